// The double-array trie's construction (see double_array.hpp).
#include "sentencepiece/double_array.hpp"

#include <algorithm>
#include <climits>

#include "tokenlab/error.hpp"

namespace tokenlab::sentencepiece_detail {

void DoubleArray::grow(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw Error("SentencePiece: the vocabulary is too large for tokenlab's trie");
  const std::size_t old = units_.size();
  if (n <= old) return;
  units_.resize(n);
  failures_.resize(n, 0);
  next_free_.resize(n, -1);
  prev_free_.resize(n, -1);
  for (std::size_t i = old; i < n; ++i) {
    const auto slot = static_cast<std::int32_t>(i);
    prev_free_[i] = free_tail_;
    if (free_tail_ >= 0)
      next_free_[static_cast<std::size_t>(free_tail_)] = slot;
    else
      free_head_ = slot;
    free_tail_ = slot;
  }
}

void DoubleArray::take(std::size_t slot) {
  used_end_ = std::max(used_end_, slot + 1);
  if (failures_[slot] == kClosed) return;  // already off the list
  unlink(slot);
}

void DoubleArray::unlink(std::size_t slot) {
  const std::int32_t prev = prev_free_[slot];
  const std::int32_t next = next_free_[slot];
  if (prev >= 0)
    next_free_[static_cast<std::size_t>(prev)] = next;
  else
    free_head_ = next;
  if (next >= 0)
    prev_free_[static_cast<std::size_t>(next)] = prev;
  else
    free_tail_ = prev;
}

std::int32_t DoubleArray::find_base(const std::vector<Group>& groups) {
  const std::size_t first_label = groups.front().label;
  const auto fits = [&](std::size_t base) {
    grow(base + 2 * kBlock);  // every slot base + 0..255 exists, and one block beyond
    for (const Group& g : groups)
      if (units_[base + g.label].check != kFree) return false;
    return true;
  };
  // First fit over the free slots, as double-array builders do; after a
  // bounded number of tries, past the last slot in use (where anything fits).
  constexpr int kMaxTries = 512;
  int tries = 0;
  // A free slot that many searches could not start from (in a crowded
  // stretch, or below the first label) leaves the list, as Darts-clone closes
  // such blocks; it can still be taken as a child. Without this, most of
  // loading a .model was this search walking the same slots again.
  for (std::int32_t p = free_head_; p >= 0 && tries < kMaxTries; ++tries) {
    const auto slot = static_cast<std::size_t>(p);
    p = next_free_[slot];
    if (slot > first_label && fits(slot - first_label))
      return static_cast<std::int32_t>(slot - first_label);
    if (++failures_[slot] == kClosed) unlink(slot);
  }
  const std::size_t base = std::max<std::size_t>(used_end_, 1);
  if (!fits(base)) throw Error("SentencePiece: internal error building the piece trie");
  return static_cast<std::int32_t>(base);
}

void DoubleArray::build(const std::vector<Key>& keys) {
  units_.clear();
  failures_.clear();
  next_free_.clear();
  prev_free_.clear();
  free_head_ = free_tail_ = -1;
  grow(2 * kBlock);
  take(0);
  units_[0].check = kRoot;
  used_end_ = 1;
  struct Task {
    std::uint32_t node;
    std::size_t lo;
    std::size_t hi;
    std::size_t depth;
  };
  std::vector<Task> tasks{{0, 0, keys.size(), 0}};
  std::vector<Group> groups;
  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    std::size_t lo = task.lo;
    // Sorted keys sharing the first depth bytes: the one that ends here is first.
    if (lo < task.hi && keys[lo].first.size() == task.depth)
      units_[task.node].value = keys[lo++].second;
    if (lo == task.hi) continue;
    groups.clear();
    for (std::size_t i = lo; i < task.hi;) {
      const auto label = static_cast<unsigned char>(keys[i].first[task.depth]);
      std::size_t j = i + 1;
      while (j < task.hi && static_cast<unsigned char>(keys[j].first[task.depth]) == label) ++j;
      groups.push_back({label, i, j});
      i = j;
    }
    const std::int32_t base = find_base(groups);
    units_[task.node].base = base;
    for (const Group& g : groups) {
      const std::size_t child = static_cast<std::size_t>(base) + g.label;
      take(child);
      units_[child].check = static_cast<std::int32_t>(task.node);
      tasks.push_back({static_cast<std::uint32_t>(child), g.lo, g.hi, task.depth + 1});
    }
  }
  // Every node's 256 child slots must exist: base + 255 < size for the largest
  // base, which grow() guaranteed; trim what lies beyond.
  std::size_t needed = kBlock + 1;
  for (const Unit& u : units_) needed = std::max(needed, static_cast<std::size_t>(u.base) + kBlock);
  units_.resize(needed);
  units_.shrink_to_fit();
  next_free_ = {};
  prev_free_ = {};
  failures_ = {};
}

}  // namespace tokenlab::sentencepiece_detail
