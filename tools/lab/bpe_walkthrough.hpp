// File: bpe_walkthrough.hpp
// BPE by hand for the lab page: the real BPE plugin trained on a word list with
// a tracing observer (the figures of `tokenlab trace bpe --marker suffix`), and,
// for each step, what a student needs to check it by hand: every pair's count
// before the merge, the pairs tied at the top, and how a chosen word is cut.
//
//   const BpeWalkthrough w = walk_bpe(registry, "low:5 lower:2 newest:6 widest:3 wider:2", 8,
//                                     "lowest");
//   w.start_tokens == 107; w.steps[7].tokens == 48; w.steps[7].vocabulary == 19;
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tokenlab {
class SegmenterSource;
}

namespace tokenlab::lab {

/// Pairs listed per step, the most frequent (first seen first among equal
/// counts, BPE's tie rule): 200 words of 38 letters have thousands of pairs at every one of 500
/// steps, 80 MB of JSON that no student reads; the textbook example has 25.
inline constexpr std::size_t kMaxPairsShown = 32;

struct PairCount {
  std::string left;
  std::string right;
  std::uint64_t count = 0;
  /// Where the pair occurs first, reading the words in order, left to right
  /// (what breaks a tie): the word as given, and the 1-based symbol of the
  /// word's current segmentation where the pair starts.
  std::string first_word;
  std::size_t first_position = 0;
};

struct BpeStep {
  std::size_t index = 0;  // 1-based
  PairCount merged;
  std::uint64_t tokens = 0;          // after the merge
  std::size_t vocabulary = 0;        // after the merge
  std::vector<PairCount> pairs;      // before the merge: the kMaxPairsShown most
                                     // frequent, in the order BPE ranks them: by
                                     // count, then first seen first (the tie rule)
  std::size_t pairs_total = 0;       // all the pairs before the merge
  std::vector<PairCount> tied;       // the pairs with the top count, first seen first
                                     // (at most kMaxPairsShown)
  std::size_t tied_total = 0;        // all the pairs with the top count
  std::vector<std::string> encoded;  // the chosen word after this merge
};

struct BpeWalkthrough {
  std::uint64_t start_tokens = 0;
  std::size_t start_symbols = 0;
  std::vector<std::string> alphabet;          // first seen first
  std::vector<std::string> encoded_at_start;  // the chosen word in characters
  std::vector<BpeStep> steps;
  std::string note;  // why training stopped early, if it did
};

/// Symbols are shown as `tokenlab trace --marker suffix` shows them: the
/// end-of-word marker as </w>. words: "word:count ..." (as trace's --words);
/// merges: 1 to 500. Throws Error on a bad list, UsageError-like messages.
/// check, when given, is called before each step and may throw to give up
/// (the lab's deadline).
BpeWalkthrough walk_bpe(const SegmenterSource& plugins, const std::string& words,
                        std::size_t merges, const std::string& encode_word,
                        const std::function<void()>& check = {});

}  // namespace tokenlab::lab
