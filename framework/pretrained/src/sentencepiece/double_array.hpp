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

// Where a double array's nodes go, for its builders (DoubleArray's over
// bytes, the unigram model's over characters): a node whose children have
// labels L gets the first base b, in slot order, with every b + l free, and
// its children those slots. The free slots are a doubly linked list; a slot
// that kClosed searches could not start from (in a crowded stretch, or below
// the first label) leaves it, as Darts-clone closes such blocks, though it can
// still be taken as a child; after kMaxTries a search takes the first base
// past the last slot in use, where anything fits. Without the closing, most
// of loading a .model was this search walking the same slots again.
class FirstFitLayout {
 public:
  /// Labels are below alphabet. Slot 0 (the root) is taken.
  explicit FirstFitLayout(std::size_t alphabet);
  /// The base for children with these labels (the first one is where the
  /// search starts from; any order), their slots taken. Throws Error when the
  /// array would pass 2^31 slots.
  std::size_t place(const std::vector<std::uint32_t>& labels);
  /// The slots so far: every base placed plus the alphabet fits.
  [[nodiscard]] std::size_t size() const noexcept { return used_.size(); }

 private:
  void grow(std::size_t n);  // slots [size, n) appended, free
  void take(std::size_t slot);
  void unlink(std::size_t slot);

  static constexpr std::uint8_t kClosed = 16;
  static constexpr int kMaxTries = 512;
  std::size_t alphabet_;
  std::vector<bool> used_;
  std::vector<std::uint8_t> failures_;  // searches that failed to start at the slot
  std::vector<std::int32_t> next_free_;
  std::vector<std::int32_t> prev_free_;
  std::int32_t free_head_ = -1;
  std::int32_t free_tail_ = -1;
  std::size_t used_end_ = 1;  // one past the highest slot in use
};

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
  std::vector<Unit> units_;
};

}  // namespace tokenlab::sentencepiece_detail
