// File: pair_map.hpp
// An open-addressing hash map from a 64-bit key (usually a packed pair of token
// ids) to a small value: the one hash map of the merge trainers, the encoders and
// the pretrained readers' merge tables.
//
// Why not std::unordered_map: it allocates a node per entry and chases a pointer
// on every probe; merge training does tens of millions of probes. Here a probe is
// one multiply and, almost always, one cache line. Linear probing with
// backward-shift deletion keeps lookups tombstone-free after the many erasures
// training does.
//
//   PairMap<std::uint32_t> ranks(merges.size());
//   ranks.insert(pack_pair(a, b), rank);
//   if (const std::uint32_t* r = ranks.find(pack_pair(a, b))) ...
//
// Contract: the key ~0 (both halves 0xFFFFFFFF) marks an empty slot and must never
// be inserted; no vocabulary reaches that id. Iteration order (for_each) is slot
// order, which depends on the insertion history: never derive results from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab {

/// (left, right) as one 64-bit key; left in the high half so that comparing keys
/// compares pairs lexicographically.
[[nodiscard]] inline constexpr std::uint64_t pack_pair(TokenId left, TokenId right) noexcept {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}
[[nodiscard]] inline constexpr TokenId pair_left(std::uint64_t key) noexcept {
  return static_cast<TokenId>(key >> 32);
}
[[nodiscard]] inline constexpr TokenId pair_right(std::uint64_t key) noexcept {
  return static_cast<TokenId>(key & 0xFFFFFFFFu);
}

/// Alloc: the slots' allocator template (a large table may want huge pages).
template <class Value, template <class> class Alloc = std::allocator>
class PairMap {
 public:
  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};

  explicit PairMap(std::size_t expected = 16) { reset(expected); }

  /// Empties the map and sizes it for about expected entries.
  void reset(std::size_t expected) {
    slots_.assign(capacity_for(expected), Slot{kEmptyKey, Value{}});
    mask_ = slots_.size() - 1;
    size_ = 0;
  }

  /// Grows, if needed, so that n entries fit without a rehash.
  void reserve(std::size_t n) {
    const std::size_t want = capacity_for(n);
    if (want > slots_.size()) rehash(want);
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// The value stored for key, or nullptr. Valid until the next insertion.
  [[nodiscard]] const Value* find(std::uint64_t key) const noexcept { return view().find(key); }
  [[nodiscard]] Value* find(std::uint64_t key) noexcept {
    return const_cast<Value*>(static_cast<const PairMap&>(*this).find(key));
  }

  /// Starts loading key's home slot into the cache: a hint for a find() to come,
  /// so that a batch of look-ups waits on its cache misses together.
  void prefetch(std::uint64_t key) const noexcept { view().prefetch(key); }

  /// Inserts (key, value) unless key is present; returns the stored value either
  /// way and sets inserted accordingly.
  Value& insert(std::uint64_t key, const Value& value, bool& inserted) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) {
        inserted = false;
        return s.value;
      }
      if (s.key == kEmptyKey) {
        s = Slot{key, value};
        ++size_;
        inserted = true;
        return s.value;
      }
    }
  }

  /// Inserts (key, value), overwriting the value of a present key.
  void insert_or_assign(std::uint64_t key, const Value& value) {
    bool inserted = false;
    insert(key, value, inserted) = value;
  }

  /// Removes key if present (backward-shift deletion: no tombstones).
  void erase(std::uint64_t key) noexcept {
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) break;
      if (slots_[i].key == kEmptyKey) return;
    }
    std::size_t hole = i;
    for (std::size_t j = (hole + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].key == kEmptyKey) break;
      const std::size_t want = home(slots_[j].key);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].key = kEmptyKey;
    --size_;
  }

  /// The slots as they lie in memory, capacity() of slot_bytes() each: for a
  /// cache that keeps the map for this build (the slot layout and the hash are
  /// the build's), read back by View::of. Valid until the next insertion.
  [[nodiscard]] const void* slot_data() const noexcept {
    static_assert(std::has_unique_object_representations_v<Slot>,
                  "a slot with padding would save bytes never written");
    return slots_.data();
  }
  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  static constexpr std::size_t slot_bytes() noexcept { return sizeof(Slot); }

  /// Calls fn(key, value) for every entry, in slot order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.key != kEmptyKey) fn(s.key, s.value);
  }

 private:
  struct Slot {
    std::uint64_t key;
    Value value;
  };

 public:
  /// Read-only lookups in slots laid out as a map of this build lays them out
  /// (slot_data()): the map's own (view(), which the map's own find() goes
  /// through), or a compiled entry's, read in place.
  class View {
   public:
    View() = default;
    /// The view of capacity slots at data (slot_data()'s bytes, 8-byte
    /// aligned) said to hold size entries, or nullopt unless capacity is a
    /// power of two of at least 16, size at most three quarters of it, and a
    /// slot free, so that every probe ends. The full slots are not counted:
    /// size is taken as given. The bytes must outlive the view.
    static std::optional<View> of(const void* data, std::size_t capacity, std::size_t size) {
      // (size compared without multiplying it: a damaged size near 2^62 would wrap.)
      if (capacity < 16 || (capacity & (capacity - 1)) != 0 || size > capacity / 4 * 3)
        return std::nullopt;
      const auto* slots = static_cast<const Slot*>(data);
      // One free slot ends every probe; the full ones are not counted, which
      // would read the whole table (16 MB for Gemma 3) a second time, after
      // the entry's checksum.
      std::size_t free = 0;
      while (free < capacity && slots[free].key != kEmptyKey) ++free;
      if (free == capacity) return std::nullopt;
      return View(slots, capacity - 1, size);
    }
    [[nodiscard]] const Value* find(std::uint64_t key) const noexcept {
      for (std::size_t i = home(key, mask_);; i = (i + 1) & mask_) {
        const Slot& s = slots_[i];
        if (s.key == key) return &s.value;
        if (s.key == kEmptyKey) return nullptr;
      }
    }
    void prefetch(std::uint64_t key) const noexcept {
      __builtin_prefetch(&slots_[home(key, mask_)]);
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return slots_ ? mask_ + 1 : 0; }
    /// The slots' bytes, as slot_data() gives a map's.
    [[nodiscard]] const void* slot_data() const noexcept { return slots_; }
    static constexpr std::size_t slot_bytes() noexcept { return sizeof(Slot); }

   private:
    friend class PairMap;
    View(const Slot* slots, std::size_t mask, std::size_t size)
        : slots_(slots), mask_(mask), size_(size) {}
    const Slot* slots_ = nullptr;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
  };
  /// A view of this map's slots, valid until the next insertion.
  [[nodiscard]] View view() const noexcept { return View(slots_.data(), mask_, size_); }

 private:
  static std::size_t capacity_for(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity * 3 < n * 4 + 4) capacity *= 2;
    return capacity;
  }

  [[nodiscard]] std::size_t home(std::uint64_t key) const noexcept { return home(key, mask_); }
  [[nodiscard]] static std::size_t home(std::uint64_t key, std::size_t mask) noexcept {
    // Pairs of small ids differ in few bits; mix before masking.
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
    return static_cast<std::size_t>(key) & mask;
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot, Alloc<Slot>> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{kEmptyKey, Value{}});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.key == kEmptyKey) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != kEmptyKey) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot, Alloc<Slot>> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

/// The trainers' index: pair key -> a 32-bit id, kMissing when absent.
class PairIndex {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

  explicit PairIndex(std::size_t expected = 16) : map_(expected) {}

  void reset(std::size_t expected) { map_.reset(expected); }
  void reserve(std::size_t n) { map_.reserve(n); }
  [[nodiscard]] std::size_t size() const noexcept { return map_.size(); }

  /// The id stored for key, or kMissing.
  [[nodiscard]] std::uint32_t find(std::uint64_t key) const noexcept {
    const std::uint32_t* id = map_.find(key);
    return id != nullptr ? *id : kMissing;
  }
  /// The id stored for key, inserting id first if key is absent.
  std::uint32_t insert(std::uint64_t key, std::uint32_t id, bool& inserted) {
    return map_.insert(key, id, inserted);
  }
  void erase(std::uint64_t key) noexcept { map_.erase(key); }
  /// PairMap::prefetch.
  void prefetch(std::uint64_t key) const noexcept { map_.prefetch(key); }

 private:
  PairMap<std::uint32_t> map_;
};

}  // namespace tokenlab
