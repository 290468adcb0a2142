// File: unigram_trainer.hpp
// Unigram language-model training (Kudo 2018, as SentencePiece implements it),
// on distinct words weighted by their counts.
//
//   TrainerConfig config{.piece_target = 7999, .threads = 2};
//   std::vector<ScoredPiece> pieces = train_pieces(counts, config, observer);
//   // pieces: best score first; score = log probability under the final model
//
// Steps: required characters (character_coverage); seed pieces from a truncated
// suffix array of the distinct words (substring frequency x length); EM rounds of
// num_sub_iterations forward-backward E-steps and Bayesian M-steps; pruning by
// likelihood loss down to max(1.1 x piece_target, shrinking_factor x size);
// finally the best piece_target pieces. The result depends only on the counts
// and the config, never on config.threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenlab/training_observer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::unigram {

struct TrainerConfig {
  /// Pieces to learn, special and byte tokens excluded.
  std::size_t piece_target = 8000;
  /// Share of character occurrences the required characters must cover.
  double character_coverage = 0.9995;
  /// Seed vocabulary size (required characters included).
  std::size_t seed_size = 1000000;
  /// Longest piece, in code points (at most 255).
  std::size_t max_piece_length = 16;
  /// Each pruning step keeps max(1.1 x piece_target, shrinking_factor x size).
  double shrinking_factor = 0.75;
  /// EM iterations between two pruning steps.
  unsigned num_sub_iterations = 2;
  /// Seed substrings with a lower weighted frequency are not considered (a
  /// substring must occur at least twice in any case).
  std::uint64_t min_frequency = 0;
  /// Pruning steps after which training stops (0: until piece_target); a
  /// step-limited run (tokenlab trace --merges) lifts the size, so it also keeps
  /// quiet about a vocabulary smaller than requested.
  std::size_t max_steps = 0;
  /// Worker threads (already resolved, at least 1).
  unsigned threads = 1;
  /// Strings that must never become pieces (special and byte tokens).
  std::vector<std::string> reserved;
};

struct ScoredPiece {
  std::string piece;
  double score = 0.0;
  friend bool operator==(const ScoredPiece&, const ScoredPiece&) = default;
};

/// The seed vocabulary: the required characters first (most frequent first),
/// then the best substrings by frequency x length; scores are log probabilities
/// proportional to character frequency and to frequency x length respectively.
struct SeedVocabulary {
  std::vector<ScoredPiece> pieces;
  std::size_t required_characters = 0;
};

/// Step 1 and 2 alone (exposed for tests and for the trace of the seed stage).
[[nodiscard]] SeedVocabulary make_seed_pieces(const WordCounts& counts,
                                              const TrainerConfig& config);

/// The grid a trained model's scores lie on: log probabilities rounded to a
/// multiple of 1/256 nat (at most 0.2% in probability). On it every sum of
/// scores is exact, in double and, below 2^16 in magnitude, in float too, so a
/// Viterbi path no longer depends on the order of additions: two segmentations
/// of equal total, such as "0 00" and "00 0" of "000", tie exactly and the
/// earliest-start rule decides, as it does in HF tokenizers (f64, per word) and
/// in SentencePiece (f32, per line). Off the grid, rounding would decide such
/// ties, differently in each.
inline constexpr double kScoreGrid = 1.0 / 256.0;
[[nodiscard]] double on_score_grid(double score) noexcept;

/// The whole training run, scores on the grid. observer may be null.
[[nodiscard]] std::vector<ScoredPiece> train_pieces(const WordCounts& counts,
                                                    const TrainerConfig& config,
                                                    TrainingObserver* observer);

/// The digamma function psi(x) for x > 0 (asymptotic series after recurrence).
[[nodiscard]] double digamma(double x) noexcept;

/// Whether a piece keeps to one side of a word boundary: the marker U+2581 may
/// only be the first or the last code point, and only once.
[[nodiscard]] bool is_valid_piece(const std::u32string& code_points) noexcept;

}  // namespace tokenlab::unigram
