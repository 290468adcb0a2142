// File: block_table.hpp
// The counting pass's table for one block of text: each distinct word with its
// count, in first-occurrence order, built for the one operation that dominates
// counting, looking up a word that is already there.
//
// A WordCounts lookup reads a slot and then the entry it points to, two
// dependent cache misses once the table outgrows the cache. Here a slot is one
// aligned 32-byte record holding the hash tag, the length, the count and, for a
// word of up to 16 bytes (nearly all of them), the word itself: a lookup reads
// one slot. Longer words live in an arena and cost a second read. A short word
// is read as two 64-bit loads masked to its length, and hashed and compared as
// those two numbers, with no branch on its length.
//
// A word is stored without its boundary marker and a flag says whether it has
// one; the marker is written once per distinct word, when the block's counts are
// taken, instead of once per occurrence. add_soon() defers a lookup until a few
// more words are hashed and their slots prefetched, so that the cache misses of
// neighbouring words overlap. One worker keeps one table for all its blocks.
#pragma once

#include <bit>
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

// Masks that keep the first n bytes (n <= 16) of two little-endian loads of 8.
struct ShortWordMasks {
  std::uint64_t low[17] = {};
  std::uint64_t high[17] = {};
  constexpr ShortWordMasks() {
    for (std::size_t n = 0; n <= 16; ++n) {
      const std::size_t in_low = n < 8 ? n : 8;
      const std::size_t in_high = n - in_low;
      low[n] = in_low == 8 ? ~0ULL : (1ULL << (8 * in_low)) - 1;
      high[n] = in_high == 8 ? ~0ULL : (1ULL << (8 * in_high)) - 1;
    }
  }
};
inline constexpr ShortWordMasks kShortWordMasks{};

class BlockTable {
 public:
  /// A marked word gets the boundary marker after it if marker_after, else before.
  explicit BlockTable(bool marker_after = false) : marker_after_(marker_after) {
    slots_.resize(kInitialSlots);
  }

  /// One more occurrence of word, with a boundary marker if marked.
  void add(std::string_view word, bool marked = false) {
    const Key key = key_of(word, marked, word.size());
    add_keyed(word, key);
  }

  /// add(word, marked), done later: by the next flush() at the latest. word must
  /// stay valid until then, and readable bytes from word.data() must be readable
  /// (at least word.size(); 16 or more lets a short word be read in two loads).
  void add_soon(std::string_view word, bool marked, std::size_t readable) {
    const Key key = key_of(word, marked, readable);
    __builtin_prefetch(&slots_[key.hash & (slots_.size() - 1)]);
    if (pending_ == kAhead) {
      const Pending& due = queue_[head_];
      add_keyed(due.word, due.key);
      queue_[head_] = {word, key};
      head_ = (head_ + 1) % kAhead;
      return;
    }
    queue_[(head_ + pending_) % kAhead] = {word, key};
    ++pending_;
  }

  /// Does the lookups add_soon() deferred, in order.
  void flush() {
    for (; pending_ > 0; --pending_) {
      const Pending& due = queue_[head_];
      add_keyed(due.word, due.key);
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

  // A word of up to kInline bytes is keyed by its bytes as two 64-bit words,
  // zero past its end, so that hashing and comparing it take no branch on its
  // length: those branches, mispredicted on the short words of a corpus, were
  // where a lookup spent its time. Longer words are hashed by word_hash.
  struct alignas(32) Slot {
    std::uint32_t tag = 0;  // 0: empty; bit 0: marked; bit 1: always set
    std::uint32_t length = 0;
    std::uint64_t count = 0;
    // length <= kInline: the word, zero past its end; else its arena offset.
    alignas(8) char bytes[kInline] = {};
  };

  struct Key {
    std::uint64_t low = 0;   // bytes 0-7 of a short word, zero past its end
    std::uint64_t high = 0;  // bytes 8-15
    std::uint64_t hash = 0;
    std::uint32_t tag = 0;
  };

  struct Pending {
    std::string_view word;
    Key key;
  };

  // Bit 0 carries the flag, so equal tags mean equal flags, and bit 1 keeps a
  // tag from being 0.
  static std::uint32_t tag_of(std::uint64_t hash, bool marked) noexcept {
    return (static_cast<std::uint32_t>(hash >> 32) & ~3u) | 2u | static_cast<std::uint32_t>(marked);
  }
  static bool marked(const Slot& slot) noexcept { return (slot.tag & 1u) != 0; }

  static std::uint64_t short_hash(std::uint64_t low, std::uint64_t high, std::size_t n,
                                  bool marked) noexcept {
    constexpr std::uint64_t k0 = 0xa0761d6478bd642fULL;
    constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbULL;
    return fold_multiply(low ^ k1, high ^ k0 ^ (n << 1) ^ static_cast<std::uint64_t>(marked));
  }

  // The key of word; readable as for add_soon(). The same word gets the same
  // key whichever way its bytes are read.
  static Key key_of(std::string_view word, bool marked, std::size_t readable) noexcept {
    const std::size_t n = word.size();
    Key key;
    if (n > kInline) {
      key.hash = word_hash(word, marked);
    } else {
      if (std::endian::native == std::endian::little && readable >= kInline) {
        key.low = load_u64(word.data()) & kShortWordMasks.low[n];
        key.high = load_u64(word.data() + 8) & kShortWordMasks.high[n];
      } else {  // near the end of the text: copy, zero-padded
        char padded[kInline] = {};
        std::memcpy(padded, word.data(), n);
        key.low = load_u64(padded);
        key.high = load_u64(padded + 8);
      }
      key.hash = short_hash(key.low, key.high, n, marked);
    }
    key.tag = tag_of(key.hash, marked);
    return key;
  }

  static char* copy(char* to, std::string_view from) noexcept {
    std::memcpy(to, from.data(), from.size());
    return to + from.size();
  }

  [[gnu::always_inline]] void add_keyed(std::string_view word, const Key& key) {
    const std::size_t mask = slots_.size() - 1;
    if (word.size() <= kInline) {
      const std::uint64_t shape = key.tag | (static_cast<std::uint64_t>(word.size()) << 32);
      for (std::size_t i = key.hash & mask;; i = (i + 1) & mask) {
        Slot& slot = slots_[i];
        const std::uint64_t differs =
            (load_u64(slot.bytes) ^ key.low) | (load_u64(slot.bytes + 8) ^ key.high) |
            ((slot.tag | (static_cast<std::uint64_t>(slot.length) << 32)) ^ shape);
        if (differs == 0) {
          ++slot.count;
          return;
        }
        if (slot.tag == 0) {
          insert(slot, i, word, key);
          return;
        }
      }
    }
    for (std::size_t i = key.hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        insert(slot, i, word, key);
        return;
      }
      if (slot.tag == key.tag && slot.length == word.size() &&
          std::memcmp(arena_.data() + offset_of(slot), word.data(), word.size()) == 0) {
        ++slot.count;
        return;
      }
    }
  }

  static std::uint64_t offset_of(const Slot& slot) noexcept { return load_u64(slot.bytes); }

  std::string_view word_of(const Slot& slot) const noexcept {
    if (slot.length <= kInline) return {slot.bytes, slot.length};
    return {arena_.data() + offset_of(slot), slot.length};
  }

  std::uint64_t hash_of(const Slot& slot) const noexcept {
    if (slot.length > kInline) return word_hash(word_of(slot), marked(slot));
    return short_hash(load_u64(slot.bytes), load_u64(slot.bytes + 8), slot.length, marked(slot));
  }

  // Out of line: a new word is the rare case, and inlining it into every
  // lookup made the loops around them slower.
  [[gnu::noinline]] void insert(Slot& slot, std::size_t index, std::string_view word,
                                const Key& key) {
    slot.tag = key.tag;
    slot.length = static_cast<std::uint32_t>(word.size());
    slot.count = 1;
    if (word.size() <= kInline) {
      std::memcpy(slot.bytes, &key.low, 8);
      std::memcpy(slot.bytes + 8, &key.high, 8);
    } else {
      const std::uint64_t offset = arena_.size();
      arena_.append(word);
      std::memcpy(slot.bytes, &offset, 8);
      std::memset(slot.bytes + 8, 0, 8);
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
      std::size_t i = hash_of(moving) & mask;
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
