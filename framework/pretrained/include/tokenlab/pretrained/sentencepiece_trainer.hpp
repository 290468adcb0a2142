// File: sentencepiece_trainer.hpp
// Retraining a SentencePiece model: a new .model with the pipeline and trainer
// settings of an existing one, trained on other text, as spm_train would write
// it (Debian's sentencepiece 0.1.97 is the reference).
//
//   SentencePieceTrainingOverrides overrides{.vocab_size = 8000};
//   overrides.flags["character_coverage"] = "1.0";
//   const std::string model = train_sentencepiece_like(read_file("llama.model"),
//                                                      {"hi.txt"}, overrides, nullptr);
//
// The given model supplies the TrainerSpec (model_type, character_coverage,
// byte_fallback, split_*, max_sentencepiece_length, the unknown, control and
// user-defined pieces and their ids, ...) and the NormalizerSpec (the precompiled
// normalization rules, add_dummy_prefix, remove_extra_whitespaces). overrides
// then changes any TrainerSpec field by spm_train's flag name.
//
// model_type=bpe gives spm_train's pieces, scores, types and order exactly
// (bpe_model_trainer.cc reproduced step for step, with its active-symbol
// window). model_type=unigram trains with tokenlab's unigram trainer on the same
// sentences: the same kind of model, not the same file (docs/pretrained.md gives
// how close it comes). word and char models are refused.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

/// What changes from the template model's TrainerSpec.
struct SentencePieceTrainingOverrides {
  /// The new vocabulary size, every piece included (spm_train's --vocab_size).
  /// Required: 0 is an error.
  int vocab_size = 0;
  /// Other TrainerSpec fields by spm_train's flag name (model_type, character_coverage,
  /// byte_fallback, split_digits, user_defined_symbols as a comma-separated list,
  /// ...), plus the NormalizerSpec switches add_dummy_prefix, remove_extra_whitespaces
  /// and escape_whitespaces. Values as spm_train parses them ("true", "0.9995",
  /// "bpe"). An unknown name, a bad value, a value spm_train refuses, or a field
  /// the call sets (input, model_prefix, vocab_size) is an Error naming it.
  std::map<std::string, std::string> flags;
  /// Worker threads for loading and counting (0: all cores). The result does not
  /// depend on it.
  unsigned threads = 0;
};

/// Trains a new model like the one in model_file_bytes (a serialized ModelProto)
/// on the lines of corpus_files (plain UTF-8 text read as spm_train reads it,
/// or word<TAB>count lines with input_format=tsv). Returns the serialized new
/// ModelProto. note, if set, receives progress and spm_train's warnings (lines
/// skipped as too long, sampled sentences), one line each.
///
/// Throws Error naming the file (and line, or field) for an unreadable or
/// malformed model or corpus, a bad override, or settings spm_train refuses
/// (vocab_size too small for the required characters and meta pieces, or larger
/// than the text can fill while hard_vocab_limit is true). Thread-safe: it shares
/// no state between calls.
[[nodiscard]] TOKENLAB_PRETRAINED_API std::string train_sentencepiece_like(
    std::string_view model_file_bytes, const std::vector<std::string>& corpus_files,
    const SentencePieceTrainingOverrides& overrides,
    const std::function<void(const std::string&)>& note);

}  // namespace tokenlab
