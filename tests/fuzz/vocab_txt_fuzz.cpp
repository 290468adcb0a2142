// libFuzzer target: a BERT vocab.txt through WordPiece's import, then encoding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  tokenlab::wordpiece::WordPieceSegmenter segmenter;
  try {
    segmenter.import_model(in, "vocab.txt", "fuzz.txt");
    tokenlab::fuzz::exercise(segmenter);
  } catch (const tokenlab::Error&) {
  }
  return 0;
}
