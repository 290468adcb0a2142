// File: pretrained/hf_trainers.hpp
// Hugging Face tokenizers' BpeTrainer and WordPieceTrainer, rule for rule, so
// that the same words and settings give the model HF's trainer writes: the same
// vocabulary with the same ids and the same merges in the same order.
//
//   HfBpeTrainerSettings settings;             // HF's defaults: 30000, no specials
//   settings.special_tokens = {"<unk>"};
//   HfBpeResult result = train_hf_bpe(words, settings);
//   result.vocabulary[0] == "<unk>"; result.merges.front() == {"Ġ", "t"}
//
// HF's rules, in order (tokenizers 0.22, models/bpe/trainer.rs):
//  1. the special tokens, in the given order, at ids 0..;
//  2. the alphabet: every character of the words, weighted by the words' counts,
//     plus initial_alphabet; when limit_alphabet is set, the least frequent are
//     dropped; the rest get ids in code point order;
//  3. words become symbol lists; with a continuing_subword_prefix or an
//     end_of_word_suffix, the prefixed/suffixed forms of characters become new
//     symbols (see symbol_order below);
//  4. pairs are counted and merged from a max-heap ordered by count, then by the
//     smaller (left id, right id). A heap entry carries the words it was created
//     for; it merges only in those words, and when its count was stale it goes
//     back with the new count. So a pair whose occurrences were counted in two
//     entries is merged twice, at two ranks (the second gets the existing id and
//     does not grow the vocabulary), and words keep the unmerged pair in between;
//  5. a merged token is left + right without the right's prefix; a token that
//     exists already keeps its id; training stops at vocab_size entries, when no
//     pair is left, or when the best count is below min_frequency;
//  6. max_token_length (characters) stops new pairs of longer tokens from being
//     counted, as HF's Word::merge does (strictly shorter than the limit).
// The merges list is the one HF serializes: a pair recorded twice appears once,
// at its later rank.
//
// Where HF itself is not deterministic: it numbers the prefixed/suffixed symbols
// of rule 3 in the iteration order of a randomly seeded hash map, so two HF runs
// of WordPieceTrainer on the same text give different ids and, through the
// tie-break, slightly different vocabularies (measured: 76 of 30,000 entries on
// 3 MB of English). Here they are numbered in code point order of their text,
// unless symbol_order gives the order of one HF run (its file's vocabulary), which
// then reproduces that run exactly. Two heap entries equal in count and pair are
// taken in the order they were pushed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

/// One pre-tokenized word (the string HF's pipeline gives the trainer, e.g. "Ġthe")
/// and how often it occurs.
struct HfWordCount {
  std::string word;
  std::uint64_t count = 0;
};

/// BpeTrainer's options, with HF's names and defaults.
struct HfBpeTrainerSettings {
  std::size_t vocab_size = 30000;
  std::uint64_t min_frequency = 0;
  std::vector<std::string> special_tokens;
  std::optional<std::size_t> limit_alphabet;
  /// Characters always in the alphabet (UTF-8; each code point is one).
  std::vector<char32_t> initial_alphabet;
  std::optional<std::string> continuing_subword_prefix;
  std::optional<std::string> end_of_word_suffix;
  std::optional<std::size_t> max_token_length;
  /// Optional: the rank of a symbol's text in one HF run's vocabulary (its id),
  /// to number rule 3's prefixed/suffixed symbols as that run did. Symbols it
  /// does not know come after, in code point order.
  std::function<std::optional<std::uint32_t>(const std::string&)> symbol_order;
  /// Worker threads for merging in many words at once (0 = all cores). The
  /// result does not depend on it.
  unsigned threads = 1;
};

struct HfBpeResult {
  /// Token strings by id.
  std::vector<std::string> vocabulary;
  /// The merges as HF writes them (model.merges), best first.
  std::vector<std::pair<std::string, std::string>> merges;
};

/// Trains BPE on words (any order: the result does not depend on it). Throws
/// Error on a word that is not valid UTF-8 or an empty special token. Like HF,
/// every special token is kept even when they alone pass vocab_size.
TOKENLAB_PRETRAINED_API HfBpeResult train_hf_bpe(const std::vector<HfWordCount>& words,
                                                 const HfBpeTrainerSettings& settings);

/// WordPieceTrainer: BpeTrainer with continuing_subword_prefix "##" (or the one
/// given); the WordPiece vocabulary is the BPE vocabulary, ids unchanged.
TOKENLAB_PRETRAINED_API std::vector<std::string> train_hf_wordpiece(
    const std::vector<HfWordCount>& words, HfBpeTrainerSettings settings);

}  // namespace tokenlab
