// File: detail/pair_map.hpp
// An open-addressing hash map from a packed pair of token ids to a 32-bit value,
// used in the trainer's and the encoder's inner loops.
//
// Why not std::unordered_map: it allocates a node per entry and chases a pointer on
// every probe; merge training does tens of millions of probes. Here a probe is one
// multiply and, almost always, one cache line. Linear probing with backward-shift
// deletion keeps lookups tombstone-free after the many erasures training does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab::bpe::detail {

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

class PairMap {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

  explicit PairMap(std::size_t expected = 16) { reset(expected); }

  /// Empties the map and sizes it for about expected entries.
  void reset(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    slots_.assign(capacity, Slot{kEmptyKey, 0});
    mask_ = capacity - 1;
    size_ = 0;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// The value stored for key, or kMissing.
  [[nodiscard]] std::uint32_t find(std::uint64_t key) const noexcept {
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == kEmptyKey) return kMissing;
    }
  }

  /// Inserts (key, value) unless key is present; returns the stored value either way
  /// and sets inserted accordingly.
  std::uint32_t insert(std::uint64_t key, std::uint32_t value, bool& inserted) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
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
        return value;
      }
    }
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

 private:
  // (~0, ~0) would need the id 0xFFFFFFFF on both sides, which no vocabulary reaches.
  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};

  struct Slot {
    std::uint64_t key;
    std::uint32_t value;
  };

  [[nodiscard]] std::size_t home(std::uint64_t key) const noexcept {
    // Pairs of small ids differ in few bits; mix before masking.
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
    return static_cast<std::size_t>(key) & mask_;
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{kEmptyKey, 0});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == kEmptyKey) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != kEmptyKey) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace tokenlab::bpe::detail
