// File: block_table.hpp
// The counting pass's table for one block of text: each distinct word with its
// count, in first-occurrence order, built for the one operation that dominates
// counting, looking up a word that is already there.
//
// A WordCounts lookup reads a slot and then the entry it points to, two
// dependent cache misses once the table outgrows the cache. Here a slot is one
// aligned 32-byte record holding the hash tag, the length, the count and, for a
// word of up to 16 bytes (nearly all of them), the word itself: a lookup reads
// one slot. Longer words live in an arena and cost a second read.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/word_counts.hpp"

namespace tokenlab::detail {

class BlockTable {
 public:
  BlockTable() { slots_.resize(kInitialSlots); }

  /// One more occurrence of word.
  void add(std::string_view word) {
    const std::uint64_t hash = WordCounts::hash(word);
    const auto tag = static_cast<std::uint32_t>(hash >> 32) | 1u;  // 0 marks an empty slot
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        insert(slot, i, word, tag);
        return;
      }
      if (slot.tag == tag && slot.length == word.size() && holds(slot, word)) {
        ++slot.count;
        return;
      }
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return order_.size(); }

  /// Calls f(word, count) for each distinct word in first-occurrence order.
  template <class F>
  void for_each(F&& f) const {
    for (const std::uint32_t i : order_) f(word_of(slots_[i]), slots_[i].count);
  }

  [[nodiscard]] WordCounts to_word_counts() const {
    WordCounts counts;
    counts.reserve(size());
    for_each([&](std::string_view word, std::uint64_t count) { counts.add(word, count); });
    return counts;
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kInline = 16;

  struct alignas(32) Slot {
    std::uint32_t tag = 0;
    std::uint32_t length = 0;
    std::uint64_t count = 0;
    char bytes[kInline] = {};  // the word if length <= kInline, else its arena offset
  };

  static std::uint64_t load(const char* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    std::memcpy(&v, p, n);
    return v;
  }

  // Whether slot holds word (tags and lengths already equal).
  bool holds(const Slot& slot, std::string_view word) const noexcept {
    const std::size_t n = word.size();
    const char* p = word.data();
    if (n > kInline) return std::memcmp(arena_.data() + offset_of(slot), p, n) == 0;
    // Two overlapping loads cover the word; the slot's bytes past it are zero and
    // never read, since both sides read the same offsets.
    if (n >= 8)
      return load(slot.bytes, 8) == load(p, 8) && load(slot.bytes + n - 8, 8) == load(p + n - 8, 8);
    if (n >= 4)
      return load(slot.bytes, 4) == load(p, 4) && load(slot.bytes + n - 4, 4) == load(p + n - 4, 4);
    return std::memcmp(slot.bytes, p, n) == 0;
  }

  static std::uint64_t offset_of(const Slot& slot) noexcept { return load(slot.bytes, 8); }

  std::string_view word_of(const Slot& slot) const noexcept {
    if (slot.length <= kInline) return {slot.bytes, slot.length};
    return {arena_.data() + offset_of(slot), slot.length};
  }

  void insert(Slot& slot, std::size_t index, std::string_view word, std::uint32_t tag) {
    slot.tag = tag;
    slot.length = static_cast<std::uint32_t>(word.size());
    slot.count = 1;
    if (word.size() <= kInline) {
      std::memcpy(slot.bytes, word.data(), word.size());
    } else {
      const std::uint64_t offset = arena_.size();
      arena_.append(word);
      std::memcpy(slot.bytes, &offset, 8);
    }
    order_.push_back(static_cast<std::uint32_t>(index));
    if (order_.size() * 2 > slots_.size()) grow();  // load factor <= 1/2
  }

  // Doubles the table; the order list is rebuilt in order, so it stays the
  // first-occurrence order.
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint32_t& at : order_) {
      const Slot& moving = old[at];
      std::size_t i = WordCounts::hash(word_of(moving)) & mask;
      while (slots_[i].tag != 0) i = (i + 1) & mask;
      slots_[i] = moving;
      at = static_cast<std::uint32_t>(i);
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> order_;  // slot of each distinct word, in first-occurrence order
  std::string arena_;                 // the words longer than kInline
};

}  // namespace tokenlab::detail
