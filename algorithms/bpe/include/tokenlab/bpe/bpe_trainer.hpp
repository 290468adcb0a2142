// File: bpe_trainer.hpp
// The core of BPE training, independent of text: repeatedly merges the most
// frequent adjacent pair of symbol ids in a weighted set of id sequences.
//
//   MergeTrainerInput input;                  // words as id sequences + counts
//   input.symbols = {l, o, w, m, ...}; input.offsets = {0, 4, ...}; input.counts = {5, ...};
//   input.unit_lengths = {...};               // units per existing id (1 for base units)
//   MySink sink;                              // names new tokens, decides when to stop
//   MergeTrainer trainer(std::move(input), {.tie_break = TieBreak::kFirstSeen});
//   trainer.run(sink);
//   trainer.words();                          // the final segmentation
//
// The algorithm (see docs/algorithms/bpe.md): pair counts are computed once, in
// parallel over fixed chunks of words and reduced in chunk order (so the result
// never depends on the thread count); afterwards every merge rewrites only the
// words that contain the merged pair and applies count deltas to the pairs around
// each rewritten spot. A priority queue of (count, tie key, pair) with lazy
// invalidation (pair_queue.hpp) picks the next pair. Never a full recount.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "tokenlab/bpe/pair_queue.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::bpe {

/// Which of several pairs with the same count is merged first.
enum class TieBreak : std::uint8_t {
  /// The pair whose first occurrence comes first when the current segmentation of
  /// the words is scanned in input order, left to right (the textbook rule; what a
  /// naive trainer that rebuilds an insertion-ordered count table each step does).
  kFirstSeen = 0,
  /// The smaller (left id, right id) pair, compared lexicographically (Hugging Face
  /// tokenizers' rule).
  kSmallerIds = 1,
};

/// One learned merge: left followed by right becomes result.
struct MergeRule {
  TokenId left = 0;
  TokenId right = 0;
  TokenId result = 0;
  friend bool operator==(const MergeRule&, const MergeRule&) = default;
};

struct MergeTrainerInput {
  /// All words' symbols, concatenated. Ids must be < unit_lengths.size().
  std::vector<TokenId> symbols;
  /// Word i is symbols[offsets[i], offsets[i + 1]); offsets.size() == counts.size() + 1.
  std::vector<std::uint32_t> offsets;
  /// Occurrences of each word (weights).
  std::vector<std::uint64_t> counts;
  /// Length in base units of every id in use (base units: 1); used by
  /// max_token_length and to locate pairs for the first-seen rule.
  std::vector<std::uint32_t> unit_lengths;
};

struct MergeTrainerOptions {
  /// Pairs with a count below this are never merged (at least 1).
  std::uint64_t min_count = 1;
  /// A merge whose result would be longer than this many units is skipped; 0 = no limit.
  std::size_t max_token_length = 0;
  TieBreak tie_break = TieBreak::kFirstSeen;
  /// Threads for the initial count and for rewriting the words of frequent pairs;
  /// 0 = all hardware threads. Never changes the result.
  unsigned threads = 1;
};

/// Receives the trainer's decisions; owns the vocabulary.
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  /// True when no further merge is wanted (e.g. the vocabulary is full).
  [[nodiscard]] virtual bool done() const = 0;
  /// The id of the token left+right, which must be the next unused id
  /// (unit_lengths.size() at the time of the call), or nullopt to reject the pair
  /// for good (e.g. its text already exists in the vocabulary).
  virtual std::optional<TokenId> create(TokenId left, TokenId right) = 0;
  /// Called after each merge; count is the pair's count when merged, tokens the
  /// weighted number of symbols in all words afterwards.
  virtual void merged(const MergeRule& rule, std::uint64_t count, std::uint64_t tokens) = 0;
};

/// Why run() stopped.
enum class StopReason : std::uint8_t {
  kSinkDone,       // the sink said done()
  kBelowMinCount,  // pairs remain, but every one occurs fewer than min_count times
  kNoPairs,        // no mergeable pair is left
};

class MergeTrainer {
 public:
  /// Validates the input (throws Error on inconsistent offsets or ids) and counts
  /// all pairs, in parallel.
  MergeTrainer(MergeTrainerInput input, const MergeTrainerOptions& options);

  /// Merges until the sink is done or no pair qualifies. Call once.
  StopReason run(MergeSink& sink);

  /// The learned merges, in order (rank 0 first).
  [[nodiscard]] const std::vector<MergeRule>& merges() const noexcept { return merges_; }
  /// Weighted number of symbols in all words now.
  [[nodiscard]] std::uint64_t total_tokens() const noexcept { return total_tokens_; }
  [[nodiscard]] std::size_t word_count() const noexcept { return words_.size(); }
  /// The current symbols of word i (after run(): the final segmentation).
  [[nodiscard]] std::vector<TokenId> word(std::size_t i) const;

 private:
  struct Pair {
    std::uint64_t key = 0;  // packed (left, right)
    std::uint64_t count = 0;
    std::uint64_t first = 0;           // first-seen key lower bound: word << 32 | unit offset
    std::uint64_t stamp = 0;           // last merge step that added occurrences
    std::vector<std::uint32_t> words;  // ascending; may hold words that lost the pair
  };

  void count_initial_pairs(unsigned threads);
  std::uint32_t new_pair(std::uint64_t key);
  void release_pair(std::uint32_t id);
  void push(const Pair& pair);
  [[nodiscard]] std::uint64_t tie_of(const Pair& pair) const noexcept;
  // Exact first-seen key of a live pair (scans its first word that still holds it).
  std::uint64_t exact_first(Pair& pair);
  void apply_merge(std::uint32_t pair_id, TokenId result);
  // Rewrites word w in place, reporting each count change to events; returns the
  // number of merges made.
  template <class Events>
  std::uint32_t rewrite_word(std::uint32_t w, TokenId a, TokenId b, TokenId result, Events& events);
  void decrement(TokenId left, TokenId right, std::uint64_t count);
  void increment(TokenId left, TokenId right, std::uint64_t count, std::uint32_t word,
                 std::uint64_t position);

  std::vector<TokenId> symbols_;
  // What a merge reads of each word it rewrites, in one 16-byte record: one
  // cache miss a word instead of one in each of three arrays.
  struct Word {
    std::uint64_t count;
    std::uint32_t offset;  // into symbols_
    std::uint32_t length;  // current symbol count
  };
  std::vector<Word> words_;
  std::vector<std::uint32_t> unit_lengths_;
  MergeTrainerOptions options_;

  PairIndex index_;  // packed pair -> index into pairs_
  // A deque: growing it never copies the pairs, so the peak is not 1.5x their size.
  std::deque<Pair> pairs_;
  std::vector<std::uint32_t> free_pairs_;
  PairQueue queue_;
  std::vector<std::uint32_t> touched_;  // pairs that gained occurrences this step
  // A count change found while rewriting a word, applied afterwards in word order
  // (after the slice, or after all slices when they are rewritten in parallel):
  // the same changes in the same order as applying each where it is found.
  struct Delta {
    TokenId left;
    TokenId right;
    std::uint32_t word;
    std::uint32_t gained;  // 1: an occurrence appeared at position; 0: one disappeared
    std::uint64_t position;
    std::uint64_t count;  // the word's: read while its entry is in the cache
  };
  // One slice's changes: the first size of buffer, which keeps its room.
  struct DeltaSlice {
    std::vector<Delta> buffer;
    std::size_t size = 0;
  };
  // Rewrites words[slice * kSliceWords, ...), its changes into out; returns the
  // weighted number of symbols removed.
  std::uint64_t rewrite_slice(const std::vector<std::uint32_t>& words, std::size_t slice, TokenId a,
                              TokenId b, TokenId result, DeltaSlice& out);
  // Applies a slice's changes in order, prefetching the pairs of the ones ahead.
  void apply_deltas(const DeltaSlice& slice);
  std::vector<DeltaSlice> slice_deltas_;
  unsigned threads_ = 1;
  std::uint64_t step_ = 0;
  bool released_low_ = false;  // some pair was dropped for a count below min_count

  std::vector<MergeRule> merges_;
  std::uint64_t total_tokens_ = 0;
};

}  // namespace tokenlab::bpe
