#include "trie.hpp"

#include <algorithm>

namespace tokenlab::wordpiece::detail {

void PieceTrie::build(std::vector<std::pair<std::string, TokenId>> entries) {
  std::sort(entries.begin(), entries.end());
  nodes_.clear();
  labels_.clear();
  targets_.clear();
  nodes_.reserve(entries.size() * 2 + 1);
  build_node(entries, 0, entries.size(), 0);
  root_.fill(kNone);
  const Node& root = nodes_[0];
  for (std::uint32_t e = 0; e < root.edge_count; ++e)
    root_[labels_[root.first_edge + e]] = targets_[root.first_edge + e];
}

// entries[lo, hi) share their first depth bytes; they are sorted, so the ones
// ending exactly at depth come first and each next byte forms one run.
std::uint32_t PieceTrie::build_node(const std::vector<std::pair<std::string, TokenId>>& entries,
                                    std::size_t lo, std::size_t hi, std::size_t depth) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  if (lo < hi && entries[lo].first.size() == depth) {
    nodes_[index].id = entries[lo].second;
    ++lo;
  }
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = lo; i < hi;) {
    const char byte = entries[i].first[depth];
    std::size_t j = i + 1;
    while (j < hi && entries[j].first[depth] == byte) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  // Reserve this node's edges before recursing so they stay contiguous.
  const auto first = static_cast<std::uint32_t>(labels_.size());
  nodes_[index].first_edge = first;
  nodes_[index].edge_count = static_cast<std::uint32_t>(runs.size());
  labels_.resize(labels_.size() + runs.size());
  targets_.resize(targets_.size() + runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    labels_[first + r] = static_cast<unsigned char>(entries[runs[r].first].first[depth]);
    const std::uint32_t target = build_node(entries, runs[r].first, runs[r].second, depth + 1);
    targets_[first + r] = target;
  }
  return index;
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
