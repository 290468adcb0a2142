// The double-array trie's construction (see double_array.hpp).
#include "sentencepiece/double_array.hpp"

#include <algorithm>
#include <climits>

#include "tokenlab/error.hpp"

namespace tokenlab::sentencepiece_detail {

FirstFitLayout::FirstFitLayout(std::size_t alphabet) : alphabet_(alphabet) {
  grow(2 * alphabet_);
  take(0);
}

void FirstFitLayout::grow(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw Error("SentencePiece: the vocabulary is too large for tokenlab's trie");
  const std::size_t old = used_.size();
  if (n <= old) return;
  used_.resize(n, false);
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

void FirstFitLayout::take(std::size_t slot) {
  used_[slot] = true;
  used_end_ = std::max(used_end_, slot + 1);
  if (failures_[slot] == kClosed) return;  // already off the list
  unlink(slot);
}

void FirstFitLayout::unlink(std::size_t slot) {
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

std::size_t FirstFitLayout::place(const std::vector<std::uint32_t>& labels) {
  const std::size_t first_label = labels.front();
  const auto fits = [&](std::size_t base) {
    grow(base + 2 * alphabet_);  // every slot base + label exists, and an alphabet beyond
    for (const std::uint32_t label : labels)
      if (used_[base + label]) return false;
    return true;
  };
  const auto taken = [&](std::size_t base) {
    for (const std::uint32_t label : labels) take(base + label);
    return base;
  };
  int tries = 0;
  for (std::int32_t p = free_head_; p >= 0 && tries < kMaxTries; ++tries) {
    const auto slot = static_cast<std::size_t>(p);
    p = next_free_[slot];
    if (slot > first_label && fits(slot - first_label)) return taken(slot - first_label);
    if (++failures_[slot] == kClosed) unlink(slot);
  }
  const std::size_t base = std::max<std::size_t>(used_end_, 1);
  if (!fits(base)) throw Error("SentencePiece: internal error building the piece trie");
  return taken(base);
}

void DoubleArray::build(const std::vector<Key>& keys) {
  FirstFitLayout layout(kBlock);
  units_.assign(layout.size(), Unit{});
  units_[0].check = kRoot;
  struct Task {
    std::uint32_t node;
    std::size_t lo;
    std::size_t hi;
    std::size_t depth;
  };
  struct Group {
    unsigned char label;
    std::size_t lo;
    std::size_t hi;
  };
  std::vector<Task> tasks{{0, 0, keys.size(), 0}};
  std::vector<Group> groups;
  std::vector<std::uint32_t> labels;
  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    std::size_t lo = task.lo;
    // Sorted keys sharing the first depth bytes: the one that ends here is first.
    if (lo < task.hi && keys[lo].first.size() == task.depth)
      units_[task.node].value = keys[lo++].second;
    if (lo == task.hi) continue;
    groups.clear();
    labels.clear();
    for (std::size_t i = lo; i < task.hi;) {
      const auto label = static_cast<unsigned char>(keys[i].first[task.depth]);
      std::size_t j = i + 1;
      while (j < task.hi && static_cast<unsigned char>(keys[j].first[task.depth]) == label) ++j;
      groups.push_back({label, i, j});
      labels.push_back(label);
      i = j;
    }
    const std::size_t base = layout.place(labels);
    if (units_.size() < layout.size()) units_.resize(layout.size());
    units_[task.node].base = static_cast<std::int32_t>(base);
    for (const Group& g : groups) {
      const std::size_t child = base + g.label;
      units_[child].check = static_cast<std::int32_t>(task.node);
      tasks.push_back({static_cast<std::uint32_t>(child), g.lo, g.hi, task.depth + 1});
    }
  }
  // Every node's 256 child slots must exist: base + 255 < size for the largest
  // base, which the layout guaranteed; trim what lies beyond.
  std::size_t needed = kBlock + 1;
  for (const Unit& u : units_) needed = std::max(needed, static_cast<std::size_t>(u.base) + kBlock);
  units_.resize(needed);
  units_.shrink_to_fit();
}

}  // namespace tokenlab::sentencepiece_detail
