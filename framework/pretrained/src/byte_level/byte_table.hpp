// File: byte_level/byte_table.hpp (private to tokenlab_pretrained)
// Raw bytes -> token id for the byte-level encoder: open addressing with the
// key stored in the slot (32 bytes, two slots a cache line), so a lookup is one
// hash and, almost always, one cache line. TokenTable, the general table, keeps
// a hash tag and the id and then compares the token's std::string: three cache
// misses a probe on a 200k vocabulary, 43% of o200k's encoding time.
// Keys over 23 bytes (rare tokens such as long runs of '=') live in a small
// map beside it.
//
//   ByteTable t(2);
//   t.insert(entries);   // {" the", 279}, ...
//   t.find(" the") == 279; t.find("zzz") == ByteTable::kNone
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "byte_level/huge_page_array.hpp"
#include "byte_level/short_key.hpp"
#include "compiled/compiled_file.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"  // StringHash

namespace tokenlab::byte_level_detail {

class ByteTable {
 public:
  static constexpr TokenId kNone = 0xFFFFFFFFu;

  /// Sized for about expected entries (at most 4/5 full).
  explicit ByteTable(std::size_t expected);
  struct Entry {
    std::string_view bytes;  // never empty
    TokenId id;
  };
  /// Adds each bytes -> id; a repeated key keeps its first id. Returns how
  /// many entries repeated a key (a tiktoken file that does is refused).
  std::size_t insert(std::span<const Entry> entries);
  /// Calls visit(bytes, id) for every key, in no particular order; bytes
  /// views the table, valid while it lives.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t i = 0; i <= mask_; ++i) {
      if (tags_[i] == 0) continue;
      static_assert(std::endian::native == std::endian::little);
      // A short key holds its bytes in order from its first word's lowest
      // byte (ShortKey::of loads little-endian words), so they are viewed in place.
      const ShortKey& key = slots_[i].key;
      visit(std::string_view(reinterpret_cast<const char*>(key.w), key.length()), slots_[i].id);
    }
    for (const auto& [bytes, id] : long_) visit(std::string_view(bytes), id);
  }

  /// The table written as it is to out (viewed until out commits), and read
  /// back from in: the compiled-model cache (compiled/compiled_file.hpp).
  void save(compiled::Writer& out) const;
  /// Throws compiled::Stale on an entry of another shape.
  static ByteTable load(compiled::Reader& in);
  [[nodiscard, gnu::always_inline]] TokenId find(std::string_view bytes) const noexcept {
    if (bytes.size() > ShortKey::kMaxBytes) return find_long(bytes);
    return find(ShortKey::of(bytes));
  }
  /// find(bytes), and the mark of its token (mark_each): 0 for a token longer
  /// than ShortKey::kMaxBytes, which has no slot.
  [[nodiscard, gnu::always_inline]] TokenId find(std::string_view bytes,
                                                 std::uint32_t& mark) const noexcept {
    mark = 0;
    if (bytes.size() > ShortKey::kMaxBytes) return find_long(bytes);
    return find(ShortKey::of(bytes), mark);
  }
  void prefetch(const ShortKey& key) const noexcept {
    const std::size_t home = key.hash() >> shift_;
    __builtin_prefetch(&tags_[home]);  // find reads the tag first (half a MiB for o200k)
    __builtin_prefetch(&slots_[home]);
  }
  [[nodiscard]] TokenId find(const ShortKey& key) const noexcept {
    std::uint32_t mark = 0;
    return find(key, mark);
  }
  /// find(key), and the mark its token was given (mark_each), else 0.
  [[nodiscard]] TokenId find(const ShortKey& key, std::uint32_t& mark) const noexcept {
    const std::uint64_t h = key.hash();
    const std::uint8_t tag = tag_of(h);
    for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
      const std::uint8_t t = tags_[i];
      if (t == tag && slots_[i].key == key) {
        mark = slots_[i].mark;
        return slots_[i].id;
      }
      if (t == 0) return kNone;
    }
  }
  /// Gives each token of up to ShortKey::kMaxBytes bytes the mark mark_of(id)
  /// returns, kept in its slot (saved with the table), so that a lookup
  /// brings it with the id. Not on a table read from an entry (a view).
  template <class MarkOf>
  void mark_each(MarkOf&& mark_of) {
    for (std::size_t i = 0; i < tags_.size(); ++i)
      if (tags_[i] != 0) slots_[i].mark = mark_of(slots_[i].id);
  }

 private:
  ByteTable() = default;
  struct Slot {
    ShortKey key;  // empty: a free slot (no key is empty: its length byte is set)
    TokenId id = kNone;
    std::uint32_t mark = 0;  // mark_each's; 0 unless given
  };
  // A byte per slot, 0 when free, else 7 bits of the hash that the home slot
  // does not use: most of BPE's lookups are of pairs that are no token, and
  // such a probe runs over a run of full slots (about 9 at 3/4 full, 13 at 4/5) before
  // the free one. Over the tags (a quarter MiB for o200k, which stays in
  // cache) it reads no slot at all but where a tag matches (1 in 128).
  static std::uint8_t tag_of(std::uint64_t hash) noexcept {
    return static_cast<std::uint8_t>(0x80u | (hash & 0x7Fu));
  }
  [[nodiscard]] TokenId find_long(std::string_view bytes) const noexcept;
  // False when the key was there already.
  bool insert_one(const ShortKey& key, TokenId id);

  HugePageArray<Slot> slots_;  // zero-filled: free (the tag says so)
  HugePageArray<std::uint8_t> tags_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  // Not a TokenTable: that one is indexed by id, and a few hundred long tokens
  // with ids up to 200k made it a 6 MB vector of empty strings, grown by
  // doubling: a quarter of loading o200k.
  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> long_;
};

}  // namespace tokenlab::byte_level_detail
