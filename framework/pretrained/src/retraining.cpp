// retrain_like: one entry point, the file's format chooses the trainer.
#include "tokenlab/pretrained/retraining.hpp"

#include "hf/retrain_tokenizer_json.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/sentencepiece_trainer.hpp"

#include <limits>

namespace tokenlab {

std::map<std::string, std::string> hf_retraining_options() {
  return {
      {"min_frequency", "a pair needs this many occurrences to be merged (HF default 0)"},
      {"limit_alphabet", "keep at most this many characters, the most frequent (default: all)"},
      {"initial_alphabet",
       "characters always in the alphabet, or byte_level for the 256 byte characters (default: "
       "byte_level with a ByteLevel pre-tokenizer, else none; empty for none)"},
      {"max_token_length", "no token of this many characters or more is formed (default: none)"},
      {"continuing_subword_prefix", "default: the model's (WordPiece: ##); empty for none"},
      {"end_of_word_suffix", "default: the model's; empty for none"},
      {"symbol_ids_from",
       "a tokenizer.json HF trained: number prefixed/suffixed symbols as that run did (HF "
       "numbers them in a random hash order)"},
  };
}

RetrainedTokenizer retrain_like(const RetrainingRequest& request,
                                const std::function<void(const std::string&)>& note) {
  if (request.corpus.empty()) throw Error("train --like: no corpus file given");
  if (request.vocab_size == 0) throw Error("train --like: --vocab-size must be at least 1");
  std::string content = read_pretrained_file(request.like);
  const std::string format = detect_pretrained_format(content);
  if (format == "tokenizer.json")
    return hf::retrain_tokenizer_json(request, std::move(content), note);
  if (format == "sentencepiece") {
    if (request.special_tokens)
      throw Error(request.like +
                  ": a SentencePiece model has no special-token list; give "
                  "--option control_symbols=A,B or --option user_defined_symbols=A,B");
    constexpr std::size_t kMaxPieces = std::numeric_limits<int>::max();
    if (request.vocab_size > kMaxPieces)
      throw Error("--vocab-size " + std::to_string(request.vocab_size) +
                  " is larger than a SentencePiece model holds");
    SentencePieceTrainingOverrides overrides;
    overrides.vocab_size = static_cast<int>(request.vocab_size);
    overrides.flags = request.options;
    overrides.threads = request.threads;
    RetrainedTokenizer out;
    out.content = train_sentencepiece_like(content, request.corpus, overrides, note);
    out.format = "sentencepiece";
    out.vocabulary_size = request.vocab_size;
    return out;
  }
  throw Error(request.like + ": retraining a " +
              (format.empty() ? "file of unknown format" : format + " file") +
              " is not supported; tokenizer.json (BPE, WordPiece) and SentencePiece .model are");
}

}  // namespace tokenlab
