// File: piece_trie.hpp
// A read-only byte trie over a vocabulary's pieces, built once and then queried
// for every prefix of a text that is a piece (a "common prefix search", which the
// unigram lattice needs) or for the longest one (WordPiece's greedy longest match).
// The one trie of the trainers, the encoders and the pretrained readers.
//
//   PieceTrie trie({{"\u2581l", 7}, {"\u2581lo", 9}, {"w", 3}});
//   trie.common_prefixes("\u2581low", 0, [](std::size_t length, std::uint32_t id) {
//     // called for ("▁l", 7) then ("▁lo", 9): length is in bytes
//   });
//
// Layout: nodes in breadth-first order, the children of a node contiguous and
// sorted by byte, so a lookup scans a few adjacent labels; nodes with many
// children (the root, "▁", frequent prefixes) get a 256-entry direct table. A
// query allocates nothing. Immutable after construction; any number of threads
// may query one trie concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

class TOKENLAB_API PieceTrie {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  PieceTrie();
  /// Builds from (key, value) pairs. Keys must be distinct and non-empty; the
  /// views need to live only during construction. Throws Error on a duplicate.
  explicit PieceTrie(std::vector<std::pair<std::string_view, std::uint32_t>> entries);

  /// Calls fn(length, value) for every key equal to text.substr(pos, length),
  /// shortest first.
  template <class Fn>
  void common_prefixes(std::string_view text, std::size_t pos, Fn&& fn) const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    std::uint32_t node = 0;
    for (std::size_t i = pos; i < text.size(); ++i) {
      node = child(node, bytes[i]);
      if (node == kNone) return;
      if (nodes_[node].value != kNone) fn(i + 1 - pos, nodes_[node].value);
    }
  }

  /// Length in bytes of the longest key that is a prefix of text and ends at a
  /// UTF-8 code point boundary of text (a key ending inside a multi-byte sequence
  /// would split a character); 0 if there is none. Sets value to that key's value.
  [[nodiscard]] std::size_t longest_prefix(std::string_view text,
                                           std::uint32_t& value) const noexcept {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    std::size_t best = 0;
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = child(node, bytes[i]);
      if (node == kNone) break;
      if (nodes_[node].value != kNone && (i + 1 == text.size() || (bytes[i + 1] & 0xC0) != 0x80)) {
        best = i + 1;
        value = nodes_[node].value;
      }
    }
    return best;
  }

  /// The value of key, or kNone.
  [[nodiscard]] std::uint32_t find(std::string_view key) const noexcept;

  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }

  /// The trie's two arrays as they lie in memory, for a cache that keeps it for
  /// this build (the node layout is the build's): node_count() nodes of
  /// node_bytes() each, and dense_words() words.
  [[nodiscard]] const void* node_data() const noexcept { return nodes_.data(); }
  static constexpr std::size_t node_bytes() noexcept { return sizeof(Node); }
  [[nodiscard]] const std::uint32_t* dense_data() const noexcept { return dense_.data(); }
  [[nodiscard]] std::size_t dense_words() const noexcept { return dense_.size(); }
  /// Replaces the trie by nodes nodes and dense words that read(void* to,
  /// std::size_t bytes) fills, nodes first, as node_data() and dense_data()
  /// gave them. False, and the trie empty, unless every child index the
  /// arrays hold stays inside them (so no query can read past them) and every
  /// value is below value_limit (or none).
  template <class Read>
  bool assign(std::size_t nodes, std::size_t dense, std::uint32_t value_limit, Read&& read) {
    nodes_.resize(nodes);
    dense_.resize(dense);
    read(static_cast<void*>(nodes_.data()), nodes * sizeof(Node));
    read(static_cast<void*>(dense_.data()), dense * sizeof(std::uint32_t));
    if (!indices_valid(value_limit)) {
      *this = PieceTrie();
      return false;
    }
    return true;
  }

 private:
  // 12 bytes: training builds tries over up to a million seed pieces (millions of
  // nodes for 3-byte scripts), so every byte here is megabytes of peak memory.
  struct Node {
    std::uint32_t first_child = 0;  // or, when dense, the offset of its table in dense_
    std::uint32_t value = kNone;
    std::uint16_t child_count = 0;
    std::uint8_t label = 0;
    std::uint8_t dense = 0;  // 1: children are found through a 256-entry table
  };

  // Above this many children a node gets a direct table: a linear scan over more
  // labels costs more than the table's cache footprint.
  static constexpr std::uint16_t kDenseThreshold = 24;

  [[nodiscard]] std::uint32_t child(std::uint32_t node, unsigned char c) const noexcept {
    const Node& n = nodes_[node];
    if (n.dense != 0) return dense_[n.first_child + c];
    const Node* first = nodes_.data() + n.first_child;
    for (std::uint16_t k = 0; k < n.child_count; ++k) {
      if (first[k].label == c) return n.first_child + k;
      if (first[k].label > c) break;
    }
    return kNone;
  }

  [[nodiscard]] bool indices_valid(std::uint32_t value_limit) const noexcept;

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> dense_;
};

}  // namespace tokenlab
