#include "trie.hpp"

#include <algorithm>

namespace tokenlab::wordpiece::detail {

void PieceTrie::build(std::vector<std::pair<std::string, TokenId>> entries) {
  std::sort(entries.begin(), entries.end());
  nodes_.clear();
  labels_.clear();
  targets_.clear();
  nodes_.reserve(entries.size() * 2 + 1);
  build_nodes(entries);
  root_.fill(kNone);
  const Node& root = nodes_[0];
  for (std::uint32_t e = 0; e < root.edge_count; ++e)
    root_[labels_[root.first_edge + e]] = targets_[root.first_edge + e];
}

// Depth-first with an explicit stack, not recursion: a piece may be megabytes long
// (a hostile model), and one stack frame per byte would overflow the thread stack.
// Each item covers entries[lo, hi), which share their first depth bytes; they are
// sorted, so the ones ending exactly at depth come first and each next byte forms
// one run. Children are pushed in reverse so nodes are numbered in pre-order.
void PieceTrie::build_nodes(const std::vector<std::pair<std::string, TokenId>>& entries) {
  struct Item {
    std::size_t lo, hi, depth;
    std::size_t edge;  // index in targets_ to point at this node; kNoEdge for the root
  };
  constexpr std::size_t kNoEdge = static_cast<std::size_t>(-1);
  std::vector<Item> stack{{0, entries.size(), 0, kNoEdge}};
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.emplace_back();
    if (item.edge != kNoEdge) targets_[item.edge] = index;
    std::size_t lo = item.lo;
    if (lo < item.hi && entries[lo].first.size() == item.depth) {
      nodes_[index].id = entries[lo].second;
      ++lo;
    }
    runs.clear();
    for (std::size_t i = lo; i < item.hi;) {
      const char byte = entries[i].first[item.depth];
      std::size_t j = i + 1;
      while (j < item.hi && entries[j].first[item.depth] == byte) ++j;
      runs.emplace_back(i, j);
      i = j;
    }
    // This node's edges are contiguous: reserve them all before any child.
    const auto first = static_cast<std::uint32_t>(labels_.size());
    nodes_[index].first_edge = first;
    nodes_[index].edge_count = static_cast<std::uint32_t>(runs.size());
    labels_.resize(labels_.size() + runs.size());
    targets_.resize(targets_.size() + runs.size(), kNone);
    for (std::size_t r = 0; r < runs.size(); ++r)
      labels_[first + r] = static_cast<unsigned char>(entries[runs[r].first].first[item.depth]);
    for (std::size_t r = runs.size(); r-- > 0;)
      stack.push_back({runs[r].first, runs[r].second, item.depth + 1, first + r});
  }
}

std::uint32_t PieceTrie::child(std::uint32_t node, unsigned char byte) const noexcept {
  const Node& n = nodes_[node];
  const unsigned char* begin = labels_.data() + n.first_edge;
  const unsigned char* end = begin + n.edge_count;
  if (n.edge_count <= 8) {
    for (const unsigned char* p = begin; p != end; ++p)
      if (*p == byte) return targets_[n.first_edge + static_cast<std::uint32_t>(p - begin)];
    return kNone;
  }
  const unsigned char* p = std::lower_bound(begin, end, byte);
  if (p == end || *p != byte) return kNone;
  return targets_[n.first_edge + static_cast<std::uint32_t>(p - begin)];
}

std::size_t PieceTrie::longest_prefix(std::string_view text, TokenId& id) const noexcept {
  if (nodes_.empty() || text.empty()) return 0;
  std::size_t best = 0;
  std::uint32_t node = root_[static_cast<unsigned char>(text[0])];
  for (std::size_t i = 0; node != kNone;) {
    ++i;
    // A key ending inside a multi-byte sequence would split a character.
    if (nodes_[node].id != kNone &&
        (i == text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)) {
      best = i;
      id = nodes_[node].id;
    }
    if (i == text.size()) break;
    node = child(node, static_cast<unsigned char>(text[i]));
  }
  return best;
}

}  // namespace tokenlab::wordpiece::detail
