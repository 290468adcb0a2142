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
#include <span>
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
  /// Each merge's rank, parallel to merges, where pairs share one (tiktoken: the
  /// merged piece's rank, whatever the split); empty: a merge's rank is its index.
  std::vector<std::uint32_t> merge_ranks;
  /// merges: a unit that is a piece is that piece, unmerged (tiktoken, HF's
  /// ignore_merges).
  bool whole_unit_first = false;
  /// merges: the first symbols are the unit's bytes, not its characters (tiktoken).
  bool byte_units = false;
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
  /// encode with the entries whose disabled[id] is non-zero taken out of the
  /// vocabulary (vocabulary allocation): merges applies no merge that makes one
  /// (so the later merges that need it never apply either); the other methods
  /// match no such piece; a character whose piece is disabled falls back as one
  /// with no piece. made, if given, receives every entry the segmentation builds:
  /// with merges the first symbols and each merge's result, else the ids.
  void encode_without(InferenceMethod method, std::string_view unit,
                      std::span<const std::uint8_t> disabled, std::vector<TokenId>& out,
                      std::vector<TokenId>* made = nullptr) const;
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
  // Every piece not disabled matching at each byte position of unit (the
  // lattice), longest last.
  [[nodiscard]] std::vector<std::vector<Edge>> lattice(std::string_view unit,
                                                       std::span<const std::uint8_t> off) const;
  // The fallback tokens for the character at pos: its byte pieces or the unknown token.
  void fall_back(std::string_view unit, std::size_t pos, std::vector<TokenId>& out,
                 std::vector<std::uint32_t>& ends) const;
  void encode_unit(InferenceMethod method, std::string_view unit, std::span<const std::uint8_t> off,
                   std::vector<TokenId>& out, std::vector<std::uint32_t>& ends,
                   std::vector<TokenId>* made) const;
  void encode_greedy(InferenceMethod method, std::string_view unit,
                     const std::vector<std::vector<Edge>>& edges, std::vector<TokenId>& out,
                     std::vector<std::uint32_t>& ends) const;
  void encode_longest_token(std::string_view unit, const std::vector<std::vector<Edge>>& edges,
                            std::size_t begin, std::size_t end, std::vector<TokenId>& out,
                            std::vector<std::uint32_t>& ends) const;
  void encode_best_path(InferenceMethod method, std::string_view unit,
                        const std::vector<std::vector<Edge>>& edges, std::vector<TokenId>& out,
                        std::vector<std::uint32_t>& ends) const;
  // The first symbols of merges: each character's piece, else its bytes'.
  void first_symbols(std::string_view unit, std::span<const std::uint8_t> off,
                     std::vector<TokenId>& symbols, std::vector<std::uint32_t>& ends) const;
  void encode_merges(std::string_view unit, std::span<const std::uint8_t> off,
                     std::vector<TokenId>& out, std::vector<std::uint32_t>& ends,
                     std::vector<TokenId>* made) const;

  InferenceVocabulary vocabulary_;
  PieceTrie initial_;       // pieces that may start a unit
  PieceTrie continuation_;  // pieces that may continue one (prefix stripped)
  // (left, right) -> (rank, merged id).
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, TokenId>> merge_ranks_;
  double unknown_score_ = -100.0;  // a fallback edge's log probability
};

}  // namespace tokenlab
