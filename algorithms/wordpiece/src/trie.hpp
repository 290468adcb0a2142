// Internal: a read-only byte trie answering "longest vocabulary piece that is a
// prefix of this text", the one query BERT's greedy longest-match-first needs.
//
// Nodes keep their outgoing edges contiguous and sorted by byte, so a lookup is a
// short scan (or a binary search on wide nodes) per byte, with no allocation and
// no hashing of substrings. The root, which is visited once per piece and has the
// most children, uses a direct 256-entry table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab::wordpiece::detail {

class PieceTrie {
 public:
  /// Builds from (key, id) pairs; keys must be distinct and non-empty.
  void build(std::vector<std::pair<std::string, TokenId>> entries);

  /// Length in bytes of the longest key that is a prefix of text and ends at a
  /// UTF-8 code point boundary of text; 0 if none. Sets id to that key's id.
  [[nodiscard]] std::size_t longest_prefix(std::string_view text, TokenId& id) const noexcept;

  [[nodiscard]] bool empty() const noexcept { return nodes_.size() <= 1; }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  struct Node {
    std::uint32_t first_edge = 0;
    std::uint32_t edge_count = 0;
    TokenId id = kNone;
  };

  void build_nodes(const std::vector<std::pair<std::string, TokenId>>& entries);
  [[nodiscard]] std::uint32_t child(std::uint32_t node, unsigned char byte) const noexcept;

  std::vector<Node> nodes_;
  std::vector<unsigned char> labels_;
  std::vector<std::uint32_t> targets_;
  std::array<std::uint32_t, 256> root_{};
};

}  // namespace tokenlab::wordpiece::detail
