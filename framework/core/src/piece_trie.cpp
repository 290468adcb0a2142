#include "tokenlab/piece_trie.hpp"

#include <algorithm>

#include "tokenlab/error.hpp"

namespace tokenlab {

PieceTrie::PieceTrie() : nodes_(1) {}

PieceTrie::PieceTrie(std::vector<std::pair<std::string_view, std::uint32_t>> entries) : nodes_(1) {
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].first.empty()) throw Error("empty piece in a trie");
    if (i > 0 && entries[i].first == entries[i - 1].first)
      throw Error("duplicate piece '" + std::string(entries[i].first) + "' in a trie");
  }

  // The exact node count first (one node per byte not shared with the previous
  // sorted key), so the node array is allocated once, without growth copies.
  std::size_t node_total = 1;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::size_t common = 0;
    if (i > 0) {
      const auto& a = entries[i - 1].first;
      const auto& b = entries[i].first;
      while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
    }
    node_total += entries[i].first.size() - common;
  }
  nodes_.reserve(node_total);

  // Depth-first construction with an explicit stack: each item is a node and the
  // range of sorted keys below it, all sharing the node's prefix of `depth` bytes.
  // A node's children are appended together, so they stay contiguous.
  struct Item {
    std::uint32_t node;
    std::size_t lo, hi, depth;
  };
  std::vector<Item> stack;
  stack.push_back({0, 0, entries.size(), 0});
  std::vector<Item> children;
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (item.lo < item.hi && entries[item.lo].first.size() == item.depth) {
      nodes_[item.node].value = entries[item.lo].second;
      ++item.lo;
    }
    const auto first_child = static_cast<std::uint32_t>(nodes_.size());
    std::uint16_t count = 0;
    children.clear();
    for (std::size_t i = item.lo; i < item.hi;) {
      const auto label = static_cast<unsigned char>(entries[i].first[item.depth]);
      std::size_t j = i + 1;
      while (j < item.hi && static_cast<unsigned char>(entries[j].first[item.depth]) == label) ++j;
      Node child;
      child.label = label;
      const auto child_index = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(child);
      children.push_back({child_index, i, j, item.depth + 1});
      ++count;
      i = j;
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    Node& node = nodes_[item.node];
    node.first_child = first_child;
    node.child_count = count;
    if (count > kDenseThreshold) {
      node.dense = 1;
      node.first_child = static_cast<std::uint32_t>(dense_.size());
      dense_.resize(dense_.size() + 256, kNone);
      for (std::uint16_t k = 0; k < count; ++k)
        dense_[node.first_child + nodes_[first_child + k].label] = first_child + k;
    }
  }
}

std::uint32_t PieceTrie::find(std::string_view key) const noexcept {
  if (key.empty()) return kNone;
  std::uint32_t node = 0;
  for (const char ch : key) {
    node = child(node, static_cast<unsigned char>(ch));
    if (node == kNone) return kNone;
  }
  return nodes_[node].value;
}

}  // namespace tokenlab
