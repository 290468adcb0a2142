// File: pretrained/retraining.hpp
// tokenlab train --like FILE: a new vocabulary for a real tokenizer's pipeline,
// written as the same kind of file its own library's trainer writes.
//
//   RetrainingRequest request;
//   request.like = "llama3/tokenizer.json";
//   request.corpus = {"hi.txt"};
//   request.vocab_size = 32000;
//   RetrainedTokenizer out = retrain_like(request, note);   // out.content: tokenizer.json
//
// A tokenizer.json (trained, or an untrained template with an empty vocabulary)
// keeps its normalizer, pre-tokenizer, decoder, post-processor and model options;
// the corpus is read as HF's Tokenizer::train_from_files reads it and trained by
// HF's BpeTrainer or WordPieceTrainer rules (hf_trainers.hpp). What it takes
// from the file follows transformers' train_new_from_iterator: the special added
// tokens become the trainer's special tokens (ids 0..), a BPE model's
// continuing_subword_prefix and end_of_word_suffix go to the trainer, and a
// ByteLevel pre-tokenizer adds the 256 byte characters to the initial alphabet.
// The output is the document with the new vocabulary (and merges), the added
// tokens' and post-processor's ids updated, written as HF writes it.
//
// A SentencePiece .model is retrained by spm_train's rules with the model's own
// TrainerSpec and NormalizerSpec (sentencepiece_trainer.hpp); options are
// spm_train's flags by name. BPE gives spm_train's model exactly; unigram uses
// tokenlab's unigram trainer (docs/pretrained.md has how close it comes).
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

struct RetrainingRequest {
  /// The tokenizer file whose pipeline to keep.
  std::string like;
  std::vector<std::string> corpus;
  std::size_t vocab_size = 0;
  /// Replaces the file's special tokens (in this order) when set.
  std::optional<std::vector<std::string>> special_tokens;
  /// The trainer's options by their names in the file's library (HF:
  /// min_frequency, limit_alphabet, initial_alphabet, max_token_length,
  /// continuing_subword_prefix, end_of_word_suffix; and symbol_ids_from).
  std::map<std::string, std::string> options;
  /// Worker threads (0 = all cores); the result does not depend on it.
  unsigned threads = 0;
};

struct RetrainedTokenizer {
  /// The file's bytes.
  std::string content;
  /// "tokenizer.json" or "sentencepiece".
  std::string format;
  /// Entries in the new vocabulary (model and added tokens).
  std::size_t vocabulary_size = 0;
};

/// Trains a new vocabulary with request.like's pipeline. Throws Error naming
/// the file and the place for a file that cannot be retrained (a model type
/// whose trainer is not reproduced, an option with a bad value, an unreadable
/// or invalid corpus); notes (a removed added token, an unknown token missing
/// from the vocabulary) go to note.
TOKENLAB_PRETRAINED_API RetrainedTokenizer
retrain_like(const RetrainingRequest& request, const std::function<void(const std::string&)>& note);

/// The trainer options retrain_like accepts for a tokenizer.json, with what each means.
TOKENLAB_PRETRAINED_API std::map<std::string, std::string> hf_retraining_options();

}  // namespace tokenlab
