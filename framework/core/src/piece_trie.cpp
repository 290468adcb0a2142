#include "tokenlab/piece_trie.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "tokenlab/error.hpp"

namespace tokenlab {
namespace {

using Entry = std::pair<std::string_view, std::uint32_t>;

// Sorts entries[lo, hi), whose keys share their first depth bytes, as
// std::sort orders the pairs, by their bytes from depth on: most significant
// byte first, a key that ends before a longer one sharing its prefix first,
// each byte's bucket then sorted alike. std::sort's comparisons re-read every
// shared prefix (a memcmp each), and sorting was half of building BERT's trie;
// this reads each key's bytes about once. Small buckets, and the bytes after
// kMaxDepth (keys sharing a long prefix), go to std::sort.
void sort_keys(std::vector<Entry>& entries, std::vector<Entry>& scratch, std::size_t lo,
               std::size_t hi, std::size_t depth) {
  constexpr std::size_t kSmall = 48;
  constexpr std::size_t kMaxDepth = 64;  // a frame per byte: hostile keys sharing a long prefix
  if (hi - lo <= kSmall || depth >= kMaxDepth) {
    std::sort(entries.begin() + static_cast<std::ptrdiff_t>(lo),
              entries.begin() + static_cast<std::ptrdiff_t>(hi),
              [depth](const Entry& a, const Entry& b) {
                const int order = a.first.substr(depth).compare(b.first.substr(depth));
                return order != 0 ? order < 0 : a.second < b.second;
              });
    return;
  }
  // Bucket 0: keys that end at depth; bucket 1 + b: keys whose byte at depth is b.
  std::array<std::size_t, 258> start{};
  const auto bucket = [depth](const Entry& e) -> std::size_t {
    return e.first.size() == depth ? 0 : 1 + static_cast<unsigned char>(e.first[depth]);
  };
  for (std::size_t i = lo; i < hi; ++i) ++start[bucket(entries[i]) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::array<std::size_t, 258> next = start;
  scratch.resize(hi - lo);
  for (std::size_t i = lo; i < hi; ++i) scratch[next[bucket(entries[i])]++] = entries[i];
  std::copy(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(hi - lo),
            entries.begin() + static_cast<std::ptrdiff_t>(lo));
  // Keys that end here are all equal: ordered by value, as std::sort orders pairs.
  std::sort(entries.begin() + static_cast<std::ptrdiff_t>(lo),
            entries.begin() + static_cast<std::ptrdiff_t>(lo + start[1]),
            [](const Entry& a, const Entry& b) { return a.second < b.second; });
  for (std::size_t b = 1; b < 257; ++b)
    if (start[b + 1] - start[b] > 1)
      sort_keys(entries, scratch, lo + start[b], lo + start[b + 1], depth + 1);
}

}  // namespace

PieceTrie::PieceTrie() : nodes_(1) {}

PieceTrie::PieceTrie(std::vector<std::pair<std::string_view, std::uint32_t>> entries) : nodes_(1) {
  std::vector<Entry> scratch;
  sort_keys(entries, scratch, 0, entries.size(), 0);
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

bool PieceTrie::indices_valid(std::uint32_t value_limit) const noexcept {
  static_assert(std::has_unique_object_representations_v<Node>);
  if (nodes_.empty()) return false;
  for (const Node& n : nodes_) {
    if (n.dense > 1 || (n.value != kNone && n.value >= value_limit)) return false;
    const std::uint64_t end =
        std::uint64_t{n.first_child} + (n.dense != 0 ? 256 : std::uint64_t{n.child_count});
    if (n.dense != 0 ? end > dense_.size() : (n.child_count > 0 && end > nodes_.size()))
      return false;
  }
  for (const std::uint32_t child : dense_)
    if (child != kNone && child >= nodes_.size()) return false;
  return true;
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
