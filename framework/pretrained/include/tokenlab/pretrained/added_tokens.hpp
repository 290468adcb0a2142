// File: pretrained/added_tokens.hpp
// Hugging Face's added tokens: strings cut out of the text before the model
// sees it, each becoming one id.
//
// Matching is exactly HF's (tokenizer/added_vocabulary.rs): leftmost-longest,
// non-overlapping; a token marked single_word only matches between non-word
// characters (Unicode \w); lstrip and rstrip swallow the white space beside the
// match. Tokens with normalized=false are matched in the raw text, and the
// others in each remaining segment after it is normalized.
//
//   AddedTokens added;
//   added.add({.content = "<|endoftext|>", .id = 199999, .special = true});
//   added.split("a<|endoftext|>b", /*normalized=*/false, fn)
//     calls fn("a", none), fn("", 199999), fn("b", none)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenlab/pair_map.hpp"
#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

struct AddedToken {
  std::string content;
  TokenId id = 0;
  bool special = false;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  /// The content after the tokenizer's normalizer (for normalized tokens).
  std::string normalized_content;
};

class TOKENLAB_PRETRAINED_API AddedTokens {
 public:
  /// A segment of text, or an added token's id.
  using SegmentFn = std::function<void(std::string_view text, std::optional<TokenId> id)>;

  void add(AddedToken token);
  /// add() for each of tokens, in order, with room made for all of them
  /// first: a file's thousands of added tokens (Gemma 3's 6,415) then grow no
  /// table as they come.
  void add_all(std::vector<AddedToken> tokens);
  [[nodiscard]] bool empty() const noexcept { return tokens_.empty(); }
  [[nodiscard]] const std::vector<AddedToken>& tokens() const noexcept { return tokens_; }
  [[nodiscard]] bool has_normalized() const noexcept { return !normalized_.empty(); }
  [[nodiscard]] bool has_raw() const noexcept { return !raw_.empty(); }
  /// The added token with this id, or nullptr.
  [[nodiscard]] const AddedToken* find(TokenId id) const noexcept;
  /// One past the largest added id, or 0.
  [[nodiscard]] std::size_t id_limit() const noexcept { return id_limit_; }

  /// Cuts text at the tokens of one kind (normalized or not), calling fn for each
  /// piece in order: text between matches (possibly empty only when text is) and
  /// each match's id.
  void split(std::string_view text, bool normalized, const SegmentFn& fn) const;

 private:
  // A byte trie: token index at the node that ends one, and every edge in one
  // hash map from (node, byte). (A vector of children a node cost Gemma 3's
  // 6,415 tokens tens of thousands of allocations, a tenth of its load.)
  struct Trie {
    std::vector<std::int32_t> tokens;  // a node's token index or -1; node 0 the root
    PairMap<std::uint32_t> children;   // pack_pair(node, byte) -> child node
    bool first_byte[256] = {};
    int first_bytes = 0;                // distinct first bytes
    unsigned char some_first_byte = 0;  // one of them
    [[nodiscard]] bool empty() const noexcept { return tokens.empty(); }
    void insert(std::string_view key, std::int32_t token);
    /// insert() of every (key, token), in order.
    void insert_all(std::vector<std::pair<std::string_view, std::int32_t>> keys);
    // The child of node by byte, made if missing.
    std::uint32_t child(std::uint32_t node, char byte);
    // key, whose last byte's node is node, ends there with token unless an
    // earlier key did.
    void end_key(std::string_view key, std::uint32_t node, std::int32_t token);
    /// Length and token of the longest key starting at text[pos], or token -1.
    [[nodiscard]] std::pair<std::size_t, std::int32_t> longest(std::string_view text,
                                                               std::size_t pos) const;
  };

  // The token at the end of tokens_, and its id.
  void remember(AddedToken token);
  // What a token is matched by: its normalized content if it is normalized
  // and has one, else its content (the trie is the normalized or the raw one).
  static std::string_view key_of(const AddedToken& token) noexcept;

  std::vector<AddedToken> tokens_;
  std::unordered_map<TokenId, std::size_t> by_id_;
  Trie raw_;
  Trie normalized_;
  std::size_t id_limit_ = 0;
};

}  // namespace tokenlab
