// The double-array trie that SentencePiece's pieces and user-defined symbols are
// looked up in (where libsentencepiece uses Darts). The lookups are inline here,
// as they are the inner loop of every model; the construction, run once per
// model, is in double_array.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenlab::sentencepiece_detail {

// ---- a double-array trie over bytes --------------------------------------------

// A byte trie in a double array (base + label -> child, check = parent), built
// once from sorted keys. Every node's 256 child slots lie inside the array, so
// a step is two loads and a compare, with no bounds check.
class DoubleArray {
 public:
  static constexpr std::uint32_t kFail = 0xFFFFFFFFu;
  using Key = std::pair<std::string_view, std::int32_t>;

  DoubleArray() {
    units_.resize(kBlock + 1);
    units_[0].check = kRoot;
  }

  /// keys: sorted bytewise, unique, non-empty; values >= 0.
  void build(const std::vector<Key>& keys);

  [[nodiscard]] std::uint32_t next(std::uint32_t node, unsigned char c) const noexcept {
    const std::uint32_t to = static_cast<std::uint32_t>(units_[node].base) + c;
    return units_[to].check == static_cast<std::int32_t>(node) ? to : kFail;
  }
  [[nodiscard]] std::int32_t value(std::uint32_t node) const noexcept { return units_[node].value; }
  /// A node's links, for a copy of the trie with its own payload: a node's
  /// child c is base(node) + c when that slot's check is the node.
  [[nodiscard]] std::int32_t base(std::uint32_t node) const noexcept { return units_[node].base; }
  [[nodiscard]] std::int32_t check(std::uint32_t node) const noexcept { return units_[node].check; }

  /// The value of key, or -1.
  [[nodiscard]] std::int32_t find(std::string_view key) const noexcept {
    std::uint32_t node = 0;
    for (const char ch : key) {
      node = next(node, static_cast<unsigned char>(ch));
      if (node == kFail) return -1;
    }
    return units_[node].value;
  }
  /// The length of the longest key that is a prefix of text, or 0.
  [[nodiscard]] std::size_t longest_prefix(std::string_view text) const noexcept {
    std::uint32_t node = 0;
    std::size_t longest = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = next(node, static_cast<unsigned char>(text[i]));
      if (node == kFail) break;
      if (units_[node].value >= 0) longest = i + 1;
    }
    return longest;
  }
  [[nodiscard]] std::size_t size() const noexcept { return units_.size(); }

 private:
  static constexpr std::size_t kBlock = 256;
  static constexpr std::int32_t kFree = -1;
  static constexpr std::int32_t kRoot = -2;  // the root's check: nobody's child
  struct Unit {
    std::int32_t base = 0;  // 0 for a node without children: its slots hold no check == it
    std::int32_t check = kFree;
    std::int32_t value = -1;
  };
  struct Group {
    unsigned char label;
    std::size_t lo;
    std::size_t hi;
  };

  // Slots [size, n) appended to the array and to the free list.
  void grow(std::size_t n);
  void take(std::size_t slot);
  void unlink(std::size_t slot);
  std::int32_t find_base(const std::vector<Group>& groups);

  std::vector<Unit> units_;
  // Construction only: the free slots as a doubly linked list in slot order,
  // and one past the highest slot in use.
  // failures_: how many searches failed to start at each free slot; at
  // kClosed the slot is off the list.
  static constexpr std::uint8_t kClosed = 16;
  std::vector<std::uint8_t> failures_;
  std::vector<std::int32_t> next_free_;
  std::vector<std::int32_t> prev_free_;
  std::int32_t free_head_ = -1;
  std::int32_t free_tail_ = -1;
  std::size_t used_end_ = 1;
};

}  // namespace tokenlab::sentencepiece_detail
