// File: block_table.hpp
// The counting pass's table for one block of text: each distinct word with its
// count, in first-occurrence order, built for the one operation that dominates
// counting, looking up a word that is already there.
//
// The slots hold only a 32-bit hash tag and an entry's index, 8 bytes each, so
// that a block's slots (64 Ki for the 30 Ki distinct words of a MiB of
// English) stay in the core's cache; a lookup whose tag matches then reads the
// entry. An entry is one aligned 32-byte record: the tag, the length, the count
// and, for a word of up to 16 bytes (nearly all of them), the word itself.
// Longer words live in an arena and cost a third read. The entries lie in
// first-occurrence order, so the frequent words' entries sit together near the
// start and in the cache, and taking a block's counts reads them in a row. (An
// earlier layout kept the whole record in the slot: one read a lookup, but a
// table twice the cache, and taking the counts jumped around it; this one
// counts 100 MB of English about 6% faster on one thread, 10% on two.) A short
// word is read as two 64-bit loads masked to its length, and hashed and
// compared as those two numbers, with no branch on its length.
//
// A word is stored without its boundary marker and a flag says whether it has
// one; the marker is written once per distinct word, when the block's counts are
// taken, instead of once per occurrence. add_soon() defers a lookup until a few
// more words are hashed and their slots prefetched, so that the cache misses of
// neighbouring words overlap. One worker keeps one table for all its blocks.
#pragma once

#include <algorithm>
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

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  /// Moves the counts into out, replacing what it held, and empties the table,
  /// which keeps its capacity for the next block. Call flush() first.
  void take(CountedBlock& out) {
    constexpr std::string_view marker = kBoundaryMarker;
    std::size_t total = 0;
    for (const Entry& entry : entries_) total += entry.length + (marked(entry) ? marker.size() : 0);
    // Slack after the last word: each word is hashed by two loads from its start.
    out.bytes.resize(total + kInline);
    out.words.resize(entries_.size());
    char* at = out.bytes.data();
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const Entry& entry = entries_[k];
      const std::string_view word = word_of(entry);
      char* begin = at;
      if (marked(entry) && !marker_after_) at = copy(at, marker);
      at = copy(at, word);
      if (marked(entry) && marker_after_) at = copy(at, marker);
      const std::string_view full(begin, static_cast<std::size_t>(at - begin));
      out.words[k] = {full, entry.count, WordCounts::hash_16_readable(full)};
    }
    std::fill(slots_.begin(), slots_.end(), 0);
    entries_.clear();
    arena_.clear();
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kInline = 16;
  static constexpr std::size_t kAhead = 8;  // lookups in flight; more gained nothing

  struct alignas(32) Entry {
    std::uint32_t tag = 0;  // bit 0: marked; bit 1: always set
    std::uint32_t length = 0;
    std::uint64_t count = 0;
    // length <= kInline: the word, zero past its end; else its arena offset.
    alignas(8) char bytes[kInline] = {};
  };

  // A word of up to kInline bytes is keyed by its bytes as two 64-bit words,
  // zero past its end, so that hashing and comparing it take no branch on its
  // length: those branches, mispredicted on the short words of a corpus, were
  // where a lookup spent its time. The hash is word_hash's, seeded with the
  // marker flag (short_word_hash from the two words).
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
  static bool marked(const Entry& entry) noexcept { return (entry.tag & 1u) != 0; }

  // The key of word; readable as for add_soon(). Its hash is word_hash(word,
  // marked) whichever way the bytes are read; a short word's two numbers are
  // kept to compare it by.
  static Key key_of(std::string_view word, bool marked, std::size_t readable) noexcept {
    const std::size_t n = word.size();
    Key key;
    if (n > kInline) {
      key.hash = word_hash(word, marked);
    } else {
      if (std::endian::native == std::endian::little && readable >= kInline) {
        key.low = load_u64(word.data()) & kShortWordMasks.low[n];
        key.high = load_u64(word.data() + 8) & kShortWordMasks.high[n];
      } else {  // near the end of the text: read no further than the word
        short_word_parts(word.data(), n, key.low, key.high);
      }
      key.hash = short_word_hash(key.low, key.high, n, marked);
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
    const bool is_short = word.size() <= kInline;
    for (std::size_t i = key.hash & mask;; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) {
        insert(i, word, key);
        return;
      }
      if (static_cast<std::uint32_t>(slot >> 32) != key.tag) continue;
      Entry& entry = entries_[static_cast<std::uint32_t>(slot) - 1];
      if (is_short) {
        const std::uint64_t differs = (load_u64(entry.bytes) ^ key.low) |
                                      (load_u64(entry.bytes + 8) ^ key.high) |
                                      (entry.length ^ word.size());
        if (differs == 0) {
          ++entry.count;
          return;
        }
      } else if (entry.length == word.size() &&
                 std::memcmp(arena_.data() + offset_of(entry), word.data(), word.size()) == 0) {
        ++entry.count;
        return;
      }
    }
  }

  static std::uint64_t offset_of(const Entry& entry) noexcept { return load_u64(entry.bytes); }

  std::string_view word_of(const Entry& entry) const noexcept {
    if (entry.length <= kInline) return {entry.bytes, entry.length};
    return {arena_.data() + offset_of(entry), entry.length};
  }

  std::uint64_t hash_of(const Entry& entry) const noexcept {
    if (entry.length > kInline) return word_hash(word_of(entry), marked(entry));
    return short_word_hash(load_u64(entry.bytes), load_u64(entry.bytes + 8), entry.length,
                           marked(entry));
  }

  // Out of line: a new word is the rare case, and inlining it into every
  // lookup made the loops around them slower.
  [[gnu::noinline]] void insert(std::size_t index, std::string_view word, const Key& key) {
    Entry& entry = entries_.emplace_back();
    entry.tag = key.tag;
    entry.length = static_cast<std::uint32_t>(word.size());
    entry.count = 1;
    if (word.size() <= kInline) {
      std::memcpy(entry.bytes, &key.low, 8);
      std::memcpy(entry.bytes + 8, &key.high, 8);
    } else {
      const std::uint64_t offset = arena_.size();
      arena_.append(word);
      std::memcpy(entry.bytes, &offset, 8);
    }
    slots_[index] = (static_cast<std::uint64_t>(key.tag) << 32) | entries_.size();
    if (entries_.size() * 2 > slots_.size()) grow();  // load factor <= 1/2
  }

  // Doubles the slots and places the entries again.
  void grow() {
    slots_.assign(slots_.size() * 2, 0);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      std::size_t i = hash_of(entries_[k]) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = (static_cast<std::uint64_t>(entries_[k].tag) << 32) | (k + 1);
    }
  }

  bool marker_after_ = false;
  std::vector<std::uint64_t> slots_;  // (tag << 32) | (entry index + 1); 0: empty
  std::vector<Entry> entries_;        // the distinct words, in first-occurrence order
  std::string arena_;                 // the words longer than kInline
  Pending queue_[kAhead];             // add_soon()'s lookups, a ring from head_
  std::size_t head_ = 0;
  std::size_t pending_ = 0;
};

}  // namespace tokenlab::detail
