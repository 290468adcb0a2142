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
//
// A word is stored without its boundary marker and a flag says whether it has
// one; the marker is written once per distinct word, when the block's counts are
// taken, instead of once per occurrence. add_soon() defers a lookup until a few
// more words are hashed and their slots prefetched, so that the cache misses of
// neighbouring words overlap. One worker keeps one table for all its blocks.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/word_hash.hpp"

namespace tokenlab::detail {

/// One block's counts, taken from a BlockTable: the words in first-occurrence
/// order, with their WordCounts hashes, viewing bytes.
struct CountedBlock {
  std::vector<char> bytes;
  std::vector<WordCounts::HashedWord> words;
};

class BlockTable {
 public:
  /// A marked word gets the boundary marker after it if marker_after, else before.
  explicit BlockTable(bool marker_after = false) : marker_after_(marker_after) {
    slots_.resize(kInitialSlots);
  }

  /// One more occurrence of word, with a boundary marker if marked.
  void add(std::string_view word, bool marked = false) {
    const std::uint64_t hash = word_hash(word, marked);
    add_hashed(word, hash, tag_of(hash, marked));
  }

  /// add(word, marked), done later: by the next flush() at the latest. word must
  /// stay valid until then.
  void add_soon(std::string_view word, bool marked) {
    const std::uint64_t hash = word_hash(word, marked);
    __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
    if (pending_ == kAhead) {
      const Pending& due = queue_[head_];
      add_hashed(due.word, due.hash, due.tag);
      queue_[head_] = {word, hash, tag_of(hash, marked)};
      head_ = (head_ + 1) % kAhead;
      return;
    }
    queue_[(head_ + pending_) % kAhead] = {word, hash, tag_of(hash, marked)};
    ++pending_;
  }

  /// Does the lookups add_soon() deferred, in order.
  void flush() {
    for (; pending_ > 0; --pending_) {
      const Pending& due = queue_[head_];
      add_hashed(due.word, due.hash, due.tag);
      head_ = (head_ + 1) % kAhead;
    }
    head_ = 0;
  }

  [[nodiscard]] std::size_t size() const noexcept { return order_.size(); }

  /// Moves the counts into out, replacing what it held, and empties the table,
  /// which keeps its capacity for the next block. Call flush() first.
  void take(CountedBlock& out) {
    constexpr std::string_view marker = kBoundaryMarker;
    std::size_t total = 0;
    for (const std::uint32_t i : order_)
      total += slots_[i].length + (marked(slots_[i]) ? marker.size() : 0);
    out.bytes.resize(total);
    out.words.resize(order_.size());
    char* at = out.bytes.data();
    for (std::size_t k = 0; k < order_.size(); ++k) {
      const Slot& slot = slots_[order_[k]];
      const std::string_view word = word_of(slot);
      char* begin = at;
      if (marked(slot) && !marker_after_) at = copy(at, marker);
      at = copy(at, word);
      if (marked(slot) && marker_after_) at = copy(at, marker);
      const std::string_view full(begin, static_cast<std::size_t>(at - begin));
      out.words[k] = {full, slot.count, WordCounts::hash(full)};
    }
    if (order_.size() * 8 < slots_.size()) {
      for (const std::uint32_t i : order_) slots_[i].tag = 0;
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    order_.clear();
    arena_.clear();
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kInline = 16;
  static constexpr std::size_t kAhead = 8;  // lookups in flight; more gained nothing

  struct alignas(32) Slot {
    std::uint32_t tag = 0;  // 0: empty; bit 0: marked; bit 1: always set
    std::uint32_t length = 0;
    std::uint64_t count = 0;
    char bytes[kInline] = {};  // the word if length <= kInline, else its arena offset
  };

  struct Pending {
    std::string_view word;
    std::uint64_t hash = 0;
    std::uint32_t tag = 0;
  };

  // Bit 0 carries the flag, so equal tags mean equal flags, and bit 1 keeps a
  // tag from being 0.
  static std::uint32_t tag_of(std::uint64_t hash, bool marked) noexcept {
    return (static_cast<std::uint32_t>(hash >> 32) & ~3u) | 2u | static_cast<std::uint32_t>(marked);
  }
  static bool marked(const Slot& slot) noexcept { return (slot.tag & 1u) != 0; }

  static char* copy(char* to, std::string_view from) noexcept {
    std::memcpy(to, from.data(), from.size());
    return to + from.size();
  }

  [[gnu::always_inline]] void add_hashed(std::string_view word, std::uint64_t hash,
                                         std::uint32_t tag) {
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

  // Whether slot holds word (tags and lengths already equal). Both sides read
  // the same offsets, so the slot's bytes past the word are never compared.
  bool holds(const Slot& slot, std::string_view word) const noexcept {
    const char* stored = word.size() > kInline ? arena_.data() + offset_of(slot) : slot.bytes;
    return same_bytes(stored, word.data(), word.size());
  }

  static std::uint64_t offset_of(const Slot& slot) noexcept { return load_u64(slot.bytes); }

  std::string_view word_of(const Slot& slot) const noexcept {
    if (slot.length <= kInline) return {slot.bytes, slot.length};
    return {arena_.data() + offset_of(slot), slot.length};
  }

  // Out of line: a new word is the rare case, and inlining it into every
  // lookup made the loops around them slower.
  [[gnu::noinline]] void insert(Slot& slot, std::size_t index, std::string_view word,
                                std::uint32_t tag) {
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
      std::size_t i = word_hash(word_of(moving), marked(moving)) & mask;
      while (slots_[i].tag != 0) i = (i + 1) & mask;
      slots_[i] = moving;
      at = static_cast<std::uint32_t>(i);
    }
  }

  bool marker_after_ = false;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> order_;  // slot of each distinct word, in first-occurrence order
  std::string arena_;                 // the words longer than kInline
  Pending queue_[kAhead];             // add_soon()'s lookups, a ring from head_
  std::size_t head_ = 0;
  std::size_t pending_ = 0;
};

}  // namespace tokenlab::detail
