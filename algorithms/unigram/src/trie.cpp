#include "tokenlab/unigram/trie.hpp"

#include <algorithm>

#include "tokenlab/error.hpp"

namespace tokenlab::unigram {

PieceTrie::PieceTrie() : nodes_(1) {}

PieceTrie::PieceTrie(std::vector<std::pair<std::string_view, std::uint32_t>> entries) : nodes_(1) {
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].first.empty()) throw Error("unigram: empty piece in trie");
    if (i > 0 && entries[i].first == entries[i - 1].first)
      throw Error("unigram: duplicate piece '" + std::string(entries[i].first) + "' in trie");
  }

  // Breadth-first construction: each queued item is a node and the range of
  // sorted keys below it, all sharing the node's prefix of `depth` bytes.
  struct Item {
    std::uint32_t node;
    std::size_t lo, hi, depth;
  };
  std::vector<Item> queue;
  queue.push_back({0, 0, entries.size(), 0});
  for (std::size_t head = 0; head < queue.size(); ++head) {
    Item item = queue[head];
    if (item.lo < item.hi && entries[item.lo].first.size() == item.depth) {
      nodes_[item.node].value = entries[item.lo].second;
      ++item.lo;
    }
    const auto first_child = static_cast<std::uint32_t>(nodes_.size());
    std::uint16_t count = 0;
    for (std::size_t i = item.lo; i < item.hi;) {
      const auto label = static_cast<unsigned char>(entries[i].first[item.depth]);
      std::size_t j = i + 1;
      while (j < item.hi && static_cast<unsigned char>(entries[j].first[item.depth]) == label) ++j;
      Node child;
      child.label = label;
      const auto child_index = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(child);
      queue.push_back({child_index, i, j, item.depth + 1});
      ++count;
      i = j;
    }
    Node& node = nodes_[item.node];
    node.first_child = first_child;
    node.child_count = count;
    if (count > kDenseThreshold) {
      node.dense = static_cast<std::uint32_t>(dense_.size());
      dense_.resize(dense_.size() + 256, kNone);
      for (std::uint16_t k = 0; k < count; ++k)
        dense_[node.dense + nodes_[first_child + k].label] = first_child + k;
    }
  }
  nodes_.shrink_to_fit();
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

}  // namespace tokenlab::unigram
