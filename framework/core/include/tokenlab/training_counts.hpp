// File: training_counts.hpp
// The word counts a trainer is given: the counted words, minus the ones too long
// to be words at all.
//
//   WordCounts counts = ...;
//   const LongWords cut = leave_out_long_words(counts);   // in place
//   if (cut.distinct > 0) std::cerr << describe(cut) << '\n';
//
// Why: every trainer's memory grows with the length of the words it is given
// (pairs, suffix arrays, lattices). A "word" of megabytes (a base64 blob, a
// line of binary junk with no spaces) teaches nothing and cost BPE 3.4 GB and
// 36 s for one 200 MB word. The cap is the same for every algorithm, so a
// comparison stays fair: 4,096 code points, the longest word SentencePiece's
// unigram trainer keeps. Encoding is not capped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tokenlab/export.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

inline constexpr std::size_t kMaxTrainingWordChars = 4096;

struct LongWords {
  std::size_t distinct = 0;       // distinct words left out
  std::uint64_t occurrences = 0;  // their occurrences
};

/// Removes the words of more than max_chars code points, keeping the others'
/// order; does not copy when there are none (the usual case).
TOKENLAB_API LongWords leave_out_long_words(WordCounts& counts,
                                            std::size_t max_chars = kMaxTrainingWordChars);

/// "2 distinct words (3 occurrences) longer than 4096 characters were left out
/// of training", or "" when nothing was.
[[nodiscard]] TOKENLAB_API std::string describe(const LongWords& cut,
                                                std::size_t max_chars = kMaxTrainingWordChars);

}  // namespace tokenlab
