// File: keyed_counts.hpp
// Word counts that many threads, or many MPI ranks, fill in any order and that
// still come out in the corpus's first-occurrence order.
//
//   KeyedCounts total;
//   total.add_block(7, counts_of_block_7);   // from any thread, blocks in any order
//   WordCounts counts = std::move(total).take_word_counts();
//
// Each word keeps the key of its first occurrence: the number of the block it
// was counted in (blocks numbered in corpus order) and its rank in that block's
// first-occurrence order. Adding keeps the smallest key, so the result does not
// depend on the order blocks are added in, and sorting by key gives exactly the
// order one thread adding the blocks in sequence would give.
//
// The table is split by hash into partitions, each with its own lock: threads
// adding different blocks mostly touch different partitions, so merging runs in
// parallel instead of behind one lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

/// Where a word first occurs: the block, in corpus order, in the high 32 bits,
/// and its rank in that block's first-occurrence order in the low 32.
using OccurrenceKey = std::uint64_t;

[[nodiscard]] constexpr OccurrenceKey occurrence_key(std::uint64_t block,
                                                     std::uint64_t rank) noexcept {
  return (block << 32) | (rank & 0xFFFFFFFFu);
}

/// A word and its count, as a block's table lists them.
struct WordCount {
  std::string_view word;
  std::uint64_t count = 0;
};

struct KeyedEntry {
  std::string word;
  std::uint64_t count = 0;
  OccurrenceKey first = 0;
};

class TOKENLAB_API KeyedCounts {
 public:
  static constexpr std::size_t kPartitions = 64;

  KeyedCounts();
  ~KeyedCounts();
  KeyedCounts(const KeyedCounts&) = delete;
  KeyedCounts& operator=(const KeyedCounts&) = delete;

  /// Adds every entry of counts, the table of block number `block` (at most
  /// 2^32-1 blocks of at most 2^32 words). Safe to call from many threads at
  /// once. Throws Error naming the word when a count would pass 2^64-1.
  void add_block(std::uint64_t block, const WordCounts& counts);
  /// The same for a block given as its words in first-occurrence order.
  void add_block(std::uint64_t block, std::span<const WordCount> entries);
  /// Adds count occurrences of word first seen at `first`. Thread-safe.
  void add(std::string_view word, std::uint64_t count, OccurrenceKey first);

  /// Distinct words so far (not synchronized with concurrent adds).
  [[nodiscard]] std::size_t size() const noexcept;

  /// Every entry, sorted by first occurrence; the table is left empty.
  [[nodiscard]] std::vector<KeyedEntry> take_sorted() &&;
  /// The same entries as a WordCounts, in first-occurrence order.
  [[nodiscard]] WordCounts take_word_counts() &&;

 private:
  struct Partition {
    std::mutex mutex;
    std::vector<std::uint64_t> slots;  // 0 = empty, else tag << 32 | (index + 1)
    std::vector<KeyedEntry> entries;
  };
  // Adds to partition p (its lock held) the word whose WordCounts::hash is hash.
  static void add_locked(Partition& p, std::string_view word, std::uint64_t hash,
                         std::uint64_t count, OccurrenceKey first);

  std::array<Partition, kPartitions> partitions_;
};

}  // namespace tokenlab
