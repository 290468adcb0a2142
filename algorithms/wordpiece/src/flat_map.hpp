// Internal: an open-addressing hash map from 64-bit keys to 32-bit values.
//
// The trainer looks up packed pair keys (left << 32 | right) millions of times;
// std::unordered_map spends most of that time chasing node pointers. Keys are
// never erased (dead pairs keep their slot and their tie-break rank), which keeps
// probing simple: linear probing, power-of-two capacity, load factor <= 1/2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tokenlab::wordpiece::detail {

class FlatMap64 {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

  explicit FlatMap64(std::size_t expected = 16) { rehash(capacity_for(expected)); }

  [[nodiscard]] std::uint32_t find(std::uint64_t key) const noexcept {
    std::size_t i = slot(key);
    for (;;) {
      const Slot& s = slots_[i];
      if (s.value == kMissing) return kMissing;
      if (s.key == key) return s.value;
      i = (i + 1) & mask_;
    }
  }

  /// Returns the value stored for key, inserting value first if key is absent.
  /// inserted tells which happened.
  std::uint32_t find_or_insert(std::uint64_t key, std::uint32_t value, bool& inserted) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    std::size_t i = slot(key);
    for (;;) {
      Slot& s = slots_[i];
      if (s.value == kMissing) {
        s.key = key;
        s.value = value;
        ++size_;
        inserted = true;
        return value;
      }
      if (s.key == key) {
        inserted = false;
        return s.value;
      }
      i = (i + 1) & mask_;
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// Calls fn(key, value) for every entry, in slot order (not insertion order).
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.value != kMissing) fn(s.key, s.value);
  }

  void reserve(std::size_t n) {
    const std::size_t want = capacity_for(n);
    if (want > slots_.size()) rehash(want);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = kMissing;
  };

  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < n * 2 + 2) c *= 2;
    return c;
  }

  [[nodiscard]] std::size_t slot(std::uint64_t key) const noexcept {
    // Fibonacci hashing: the high bits of the product mix both halves of the key.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.value == kMissing) continue;
      std::size_t i = slot(s.key);
      while (slots_[i].value != kMissing) i = (i + 1) & mask_;
      slots_[i] = s;
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace tokenlab::wordpiece::detail
