// PLACEHOLDER until the SentencePiece work lands (helper overwrites this file).
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/formats.hpp"
namespace tokenlab {
PretrainedPipeline read_sentencepiece(std::string_view, const std::string& source) {
  throw Error(source + ": SentencePiece is not implemented yet");
}
}  // namespace tokenlab
