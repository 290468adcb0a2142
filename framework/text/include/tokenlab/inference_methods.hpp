// File: inference_methods.hpp
// Inference methods on a fixed vocabulary (Uzan et al. 2024, "Greed is All You
// Need"): the same pieces, cut into tokens by another rule than the one the
// model was trained with.
//
//   InferenceVocabulary v;
//   v.pieces = {"<unk>", "a", "b", "ab", "abb"};
//   v.unknown = 0;
//   InferenceEngine engine(std::move(v));
//   std::vector<TokenId> ids;
//   engine.encode(InferenceMethod::longest_prefix, "abab", ids);   // ab ab: {3, 3}
//
// The engine works on bytes, in the model's own alphabet: a unit is what the
// model itself segments (a pre-tokenized word with its marker "▁", a byte-level
// piece in GPT-2's alphabet, a tiktoken piece's raw bytes), and a piece matches
// where its bytes occur. Where no piece starts at a position, one character is
// written as its byte pieces (<0xNN>, when the vocabulary has all 256) or as the
// unknown token, as the models themselves fall back.
//
// Immutable after construction; encode is thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

enum class InferenceMethod : std::uint8_t {
  own,             // the model's own encoding
  longest_prefix,  // greedy: the longest piece at the start, then again on the rest
  longest_suffix,  // greedy from the end: the longest piece that ends the rest
  longest_token,   // the longest piece anywhere, then the parts left and right of it
  fewest_tokens,   // a shortest path through the lattice of pieces
  merges,          // BPE: merge the adjacent pair of lowest rank until none applies
  likelihood,      // unigram: the path of highest total log probability (Viterbi)
};

/// "own", "longest-prefix", "longest-suffix", "longest-token", "fewest-tokens",
/// "merges", "likelihood": the names the CLI, Python and the reports use.
[[nodiscard]] TOKENLAB_API const char* inference_method_name(InferenceMethod method) noexcept;
/// The method named name, or nullopt.
[[nodiscard]] TOKENLAB_API std::optional<InferenceMethod> parse_inference_method(
    std::string_view name) noexcept;
/// A comma-separated list of names, in order, duplicates dropped; "all" is every
/// method. Throws Error naming a bad name and listing the valid ones.
[[nodiscard]] TOKENLAB_API std::vector<InferenceMethod> parse_inference_methods(
    std::string_view list);

/// A fixed vocabulary in the model's alphabet, with what the model knows beyond
/// its pieces (merges, scores) where it has them.
struct InferenceVocabulary {
  /// Every piece by id as the model spells it; "" for a gap or a token that must
  /// never be matched (special tokens).
  std::vector<std::string> pieces;
  /// WordPiece's "##": a piece that does not start a unit matches only as this
  /// prefix followed by its text (and a piece that does start one only without it).
  std::string continuation_prefix;
  std::optional<TokenId> unknown;
  /// The ids of <0x00>..<0xFF> in byte order when the vocabulary has all 256.
  std::vector<TokenId> byte_pieces;
  /// BPE merges in rank order, as (left id, right id); empty when not known.
  std::vector<std::pair<TokenId, TokenId>> merges;
  /// Unigram log probabilities by id; empty when not known.
  std::vector<double> scores;
  /// BERT's rule (WordPiece): a unit with a character no piece covers is one
  /// unknown token as a whole, whatever the method.
  bool whole_word_unknown = false;
};

class TOKENLAB_API InferenceEngine {
 public:
  explicit InferenceEngine(InferenceVocabulary vocabulary);

  /// Whether encode can run method: merges needs merges, likelihood needs scores,
  /// own is never the engine's (the model runs it).
  [[nodiscard]] bool supports(InferenceMethod method) const noexcept;
  /// Appends the ids of unit segmented by method. If ends is given, appends the
  /// byte offset in unit where each token ends. Throws Error when method is not
  /// supported, or when a character has no piece and no fallback exists.
  void encode(InferenceMethod method, std::string_view unit, std::vector<TokenId>& out,
              std::vector<std::uint32_t>* ends = nullptr) const;
  /// The bytes of unit that token id stands for when it starts at byte start:
  /// its piece without the continuation prefix, 1 for a byte piece; 0 when
  /// unknown (the unknown token's extent is not in its id).
  [[nodiscard]] std::size_t piece_length(TokenId id, std::size_t start) const noexcept;
  [[nodiscard]] const InferenceVocabulary& vocabulary() const noexcept { return vocabulary_; }

 private:
  struct Edge {
    std::uint32_t end;
    TokenId id;
  };
  // Every piece matching at each byte position of unit (the lattice), longest last.
  [[nodiscard]] std::vector<std::vector<Edge>> lattice(std::string_view unit) const;
  // The fallback tokens for the character at pos: its byte pieces or the unknown token.
  void fall_back(std::string_view unit, std::size_t pos, std::vector<TokenId>& out,
                 std::vector<std::uint32_t>& ends) const;
  void encode_unit(InferenceMethod method, std::string_view unit, std::vector<TokenId>& out,
                   std::vector<std::uint32_t>& ends) const;
  void encode_greedy(InferenceMethod method, std::string_view unit, std::vector<TokenId>& out,
                     std::vector<std::uint32_t>& ends) const;
  void encode_longest_token(std::string_view unit, const std::vector<std::vector<Edge>>& edges,
                            std::size_t begin, std::size_t end, std::vector<TokenId>& out,
                            std::vector<std::uint32_t>& ends) const;
  void encode_best_path(InferenceMethod method, std::string_view unit, std::vector<TokenId>& out,
                        std::vector<std::uint32_t>& ends) const;
  void encode_merges(std::string_view unit, std::vector<TokenId>& out,
                     std::vector<std::uint32_t>& ends) const;

  InferenceVocabulary vocabulary_;
  PieceTrie initial_;       // pieces that may start a unit
  PieceTrie continuation_;  // pieces that may continue one (prefix stripped)
  // (left, right) -> (rank, merged id).
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, TokenId>> merge_ranks_;
  double unknown_score_ = -100.0;  // a fallback edge's log probability
};

}  // namespace tokenlab
