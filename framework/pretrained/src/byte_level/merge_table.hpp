// File: byte_level/merge_table.hpp (private to tokenlab_pretrained)
// A pair of token ids -> the rank and result of their merge, for the byte-level
// encoder's HF rule (tokenizer.json): open addressing with a tag byte per slot
// beside the 16-byte slots, both on huge pages. Most of BPE's lookups are of
// pairs that are no merge; over the tags (a byte a slot, a sixteenth of the
// slots' size) such a lookup reads a few bytes of one array instead of a run of
// slots. With PairMap (no tags, small pages) GPT-4o's tokenizer.json encoded a
// fifth slower than the same vocabulary through tiktoken's table.
//
//   MergeTable t;
//   t.reserve(merges);
//   t.insert_or_assign(pack_pair(a, b), {rank, merged});   // a later rank wins
//   if (const auto* m = t.find(pack_pair(a, b))) ...
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

#include "byte_level/compiled_arrays.hpp"
#include "byte_level/huge_page_array.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::byte_level_detail {

class MergeTable {
 public:
  struct Merge {
    std::uint32_t rank;
    TokenId merged;
  };

  /// Sizes the table for n entries (at most 4/5 full) and empties it. (At 3/4,
  /// GPT-4o's 200,000 merges took 524,288 slots, 8 MiB; now half.)
  void reserve(std::size_t n) {
    if (n * 5 <= capacity() * 4) return;
    rebuild(std::bit_ceil(std::max<std::size_t>(64, n + n / 4)));
  }
  void insert_or_assign(std::uint64_t pair, Merge merge) {
    if ((size_ + 1) * 5 > capacity() * 4) rebuild(std::max<std::size_t>(64, capacity() * 2));
    put(pair, merge);
  }
  /// Fetches pair's home tag and slot into the cache, ahead of an insert or a
  /// find of it (a no-op before reserve()).
  void prefetch(std::uint64_t pair) const noexcept {
    if (capacity() == 0) return;
    const std::size_t home = hash(pair) >> shift_;
    __builtin_prefetch(&tags_[home]);
    __builtin_prefetch(&slots_[home]);
  }
  [[nodiscard]] const Merge* find(std::uint64_t pair) const noexcept {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash(pair);
    const std::uint8_t tag = tag_of(h);
    for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
      const std::uint8_t t = tags_[i];
      if (t == tag && slots_[i].pair == pair) return &slots_[i].merge;
      if (t == 0) return nullptr;
    }
  }
  /// The table written as it is to out (viewed until out commits), and read
  /// back: the compiled-model cache. load throws compiled::Stale on an entry
  /// of another shape.
  void save(compiled::Writer& out) const {
    out.value(static_cast<std::uint64_t>(size_));
    save_array(out, tags_);
    save_array(out, slots_);
  }
  static MergeTable load(compiled::Reader& in) {
    MergeTable t;
    t.size_ = in.value<std::uint64_t>();
    t.tags_ = view_array<std::uint8_t>(in);
    t.slots_ = view_array<Slot>(in);
    const std::size_t capacity = t.capacity();
    // As many full slots as entries, and so (at 4/5 full at most) free ones
    // to end every probe.
    if (t.slots_.size() != capacity || (capacity != 0 && !std::has_single_bit(capacity)) ||
        t.size_ * 5 > capacity * 4 ||
        static_cast<std::size_t>(std::count_if(t.tags_.data(), t.tags_.data() + capacity,
                                               [](std::uint8_t tag) { return tag != 0; })) !=
            t.size_)
      throw compiled::Stale("merge table");
    t.mask_ = capacity == 0 ? 0 : capacity - 1;
    t.shift_ = capacity == 0 ? 64 : 64u - static_cast<unsigned>(std::countr_zero(capacity));
    return t;
  }
  /// fn(pair, merge) for every entry, in slot order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (std::size_t i = 0; i < capacity(); ++i)
      if (tags_[i] != 0) fn(slots_[i].pair, slots_[i].merge);
  }

 private:
  struct Slot {
    std::uint64_t pair;
    Merge merge;
  };
  [[nodiscard]] std::size_t capacity() const noexcept { return tags_.size(); }
  static std::uint64_t hash(std::uint64_t pair) noexcept {
    std::uint64_t h = pair * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return h * 0xBF58476D1CE4E5B9ull;
  }
  // 7 bits of the hash that the home slot does not use, and the high bit set:
  // 0 marks a free slot.
  static std::uint8_t tag_of(std::uint64_t hash) noexcept {
    return static_cast<std::uint8_t>(0x80u | (hash & 0x7Fu));
  }
  // A slot is read only where its tag matches, as in find(): the run of full
  // slots an insert passes spans several cache lines of slots, one of tags.
  void put(std::uint64_t pair, Merge merge) {
    const std::uint64_t h = hash(pair);
    const std::uint8_t tag = tag_of(h);
    for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
      const std::uint8_t t = tags_[i];
      if (t == 0) {
        tags_[i] = tag;
        slots_[i] = Slot{pair, merge};
        ++size_;
        return;
      }
      if (t == tag && slots_[i].pair == pair) {
        slots_[i].merge = merge;
        return;
      }
    }
  }
  void rebuild(std::size_t capacity) {
    HugePageArray<Slot> old_slots = std::move(slots_);
    HugePageArray<std::uint8_t> old_tags = std::move(tags_);
    slots_ = HugePageArray<Slot>(capacity);
    tags_ = HugePageArray<std::uint8_t>(capacity);
    mask_ = capacity - 1;
    shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
    size_ = 0;
    for (std::size_t i = 0; i < old_tags.size(); ++i)
      if (old_tags[i] != 0) put(old_slots[i].pair, old_slots[i].merge);
  }

  HugePageArray<Slot> slots_;
  HugePageArray<std::uint8_t> tags_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace tokenlab::byte_level_detail
