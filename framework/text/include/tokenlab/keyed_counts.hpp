// File: keyed_counts.hpp
// Word counts that arrive in any order and still come out in the corpus's
// first-occurrence order: what each MPI rank holds of the words it owns
// (count_mpi.hpp).
//
//   KeyedCounts owned;
//   owned.add("the", 12, occurrence_key(7, 0));   // pieces in any order
//   std::vector<KeyedEntry> sorted = std::move(owned).take_sorted();
//
// Each word keeps the key of its first occurrence: the number of the piece it
// was counted in (pieces numbered in corpus order) and its rank in that piece's
// first-occurrence order. Adding keeps the smallest key, so the result does not
// depend on the order pieces arrive in, and sorting by key gives exactly the
// order one process counting the pieces in sequence gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// Where a word first occurs: the piece, in corpus order, in the high 32 bits,
/// and its rank in that piece's first-occurrence order in the low 32.
using OccurrenceKey = std::uint64_t;

[[nodiscard]] constexpr OccurrenceKey occurrence_key(std::uint64_t piece,
                                                     std::uint64_t rank) noexcept {
  return (piece << 32) | (rank & 0xFFFFFFFFu);
}

struct KeyedEntry {
  std::string word;
  std::uint64_t count = 0;
  OccurrenceKey first = 0;
};

class TOKENLAB_API KeyedCounts {
 public:
  /// Adds count occurrences of word first seen at `first`; the smaller key is
  /// kept. Throws Error naming the word when its count would pass 2^64-1.
  void add(std::string_view word, std::uint64_t count, OccurrenceKey first);

  /// Distinct words so far.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  /// Every entry, sorted by first occurrence; the table is left empty.
  [[nodiscard]] std::vector<KeyedEntry> take_sorted() &&;

 private:
  void grow();

  std::vector<std::uint64_t> slots_;  // 0 = empty, else tag << 32 | (index + 1)
  std::vector<KeyedEntry> entries_;
};

}  // namespace tokenlab
