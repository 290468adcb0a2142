// File: wordpiece_trainer.hpp
// WordPiece training by the likelihood criterion (Schuster and Nakajima 2012).
//
// Every word starts as its characters; every character after the first carries
// the continuation prefix ("##"). The boundary marker U+2581 is glued to its
// neighbour: a marker that starts a word forms one unit with the next character,
// a marker that ends it one unit with the character before. So "▁low" starts as
// ▁l ##o ##w and "low▁" as l ##o ##w▁; the word "▁" alone stays ▁. (Pieces
// without "##" already mark word starts; a separate marker unit would occur in
// every word, and the score below, divided by its huge count, would never merge
// it.) Each step merges the adjacent pair (a, b) with the highest
//
//     score(a, b) = count(ab) / (count(a) x count(b))
//
// (counts weighted by word frequency), i.e. the merge that most increases the
// likelihood of the training data under a unigram model of units. BPE merges the
// most frequent pair instead; the denominator is what makes WordPiece prefer
// pairs whose parts rarely occur apart.
//
//   TrainerConfig config{.vocab_size = 30000, .special_tokens = {"[UNK]"}};
//   TrainerResult result = train_likelihood(counts, config, nullptr);
//   result.pieces;   // alphabet, then one piece per merge, specials not included
//
// Determinism: the result depends only on the counts and the config, never on
// config.threads. Ties in score go to the pair that appeared first: pairs of
// the initial segmentation in corpus order (words in WordCounts order, left to
// right), then pairs created by merges in the order the merges created them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tokenlab {
class TrainingObserver;
class WordCounts;
}  // namespace tokenlab

namespace tokenlab::wordpiece {

struct TrainerConfig {
  /// Marks units that continue a word; must be non-empty UTF-8 without whitespace.
  std::string continuation_prefix = "##";
  /// Words longer than this (in code points) encode to the unknown token, so
  /// training ignores them.
  std::size_t max_input_chars_per_word = 100;
  /// Target vocabulary size including special tokens; never exceeded. The
  /// alphabet holds both forms (initial, continuation) of every kept character;
  /// if they do not all fit, the most frequent forms are kept. The glued marker
  /// units come next, most frequent first, as many as still fit.
  std::size_t vocab_size = 8000;
  /// A pair is merged only if it occurs at least this often. 1: any pair.
  /// 0: automatic, the largest threshold at which training still reaches its
  /// target (vocab_size, or max_steps when set), found by trisection (two trial
  /// thresholds per round, run in parallel; a midpoint when the interval is too
  /// narrow) to within 1/16 and at most (word occurrences / vocab_size); 1
  /// when that bound is below 2. The score alone favours rare units (a pair of units seen once
  /// each scores 1); the threshold is what lets it choose among pairs with
  /// real evidence. It costs several trial runs (about 8 on 100 MB).
  std::uint64_t min_frequency = 0;
  /// Share of character occurrences the alphabet covers, most frequent first.
  /// Words holding a character outside it encode to the unknown token, so
  /// training ignores them.
  double character_coverage = 0.9995;
  /// Stop after this many merges (0 = no limit), whatever vocab_size allows.
  std::size_t max_steps = 0;
  /// Worker threads for the initial counts (0 = all cores); never changes the result.
  unsigned threads = 1;
  /// Strings no learned piece may equal (the special tokens).
  std::vector<std::string> special_tokens;
};

/// One merge, as the trace shows it.
struct Merge {
  std::string left;    // e.g. "un"
  std::string right;   // e.g. "##able"
  std::string result;  // e.g. "unable"
  std::uint64_t count = 0;
  double score = 0.0;
  bool new_piece = true;  // false when another merge had already made this string
};

struct TrainerResult {
  /// Ordinary pieces in id order (specials excluded): the alphabet, each kept
  /// character as an initial and a continuation piece, most frequent character
  /// first; then the glued marker units ("▁t", "##e▁"), most frequent first
  /// (ties: first seen); then one piece per merge that made a new string.
  std::vector<std::string> pieces;
  std::vector<Merge> merges;
  /// Whether training stopped at vocab_size or max_steps (not for lack of pairs).
  bool reached_target = false;
  /// The threshold applied (min_frequency, or the automatic choice).
  std::uint64_t min_frequency = 1;
};

/// Runs the trainer. Throws tokenlab::Error on an invalid config. If observer is
/// non-null it gets progress, messages and, when observer->trace(), one
/// TrainingStep per merge: kind "merge", fields pair ("a + ##b"), score, count,
/// vocabulary (size after the merge, specials included).
[[nodiscard]] TrainerResult train_likelihood(const WordCounts& counts, const TrainerConfig& config,
                                             TrainingObserver* observer);

/// Formats a score the way traces show it (six significant digits).
[[nodiscard]] std::string format_score(double score);

}  // namespace tokenlab::wordpiece
