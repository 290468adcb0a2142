// File: metrics.hpp
// Segmentation metrics over held-out text, accumulated as counts (no tokens kept).
//
//   MetricsAccumulator acc(segmenter.vocabulary().size(), segmenter.vocabulary().unknown_id());
//   for each word w: segmenter.encode(w, ids); acc.add_word(w, ids, segmenter);
//   SegmentationMetrics m = acc.finish();
//   m.fertility(), m.characters_per_token(), m.unknown_token_rate(), ...
//
// Definitions (ALGORITHMS.md, docs/metrics.md): a word is a pre-tokenized word;
// characters are code points of the word without its boundary marker; bytes are
// its UTF-8 bytes without the marker.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

class Segmenter;

/// How the evaluation text's tokens are spread over the vocabulary: the
/// distribution panel of the literature (docs/metrics.md gives each formula and
/// its source). Entropies are in bits; an efficiency is an entropy divided by
/// the log of a normaliser, the vocabulary size (Zouhar et al. 2023) or the
/// number of token types seen (zouharvi/tokenization-scorer's default).
struct TOKENLAB_API TokenDistribution {
  /// The orders of renyi_vocabulary and renyi_seen (1 is Shannon's entropy).
  static constexpr std::array<double, 4> kRenyiOrders = {1.0, 2.0, 2.5, 3.0};
  double shannon_bits = 0.0;
  std::array<double, 4> renyi_vocabulary{};  // H_alpha / log V, per kRenyiOrders
  std::array<double, 4> renyi_seen{};        // H_alpha / log(types seen)
  double type_token_ratio = 0.0;             // types seen / tokens
  /// Mean over the tokens of the text of each token's rank in the text's own
  /// frequency order (1 = most frequent; equal counts ranked by id).
  double average_token_rank = 0.0;
  /// Bits per byte under a uniform code over the vocabulary: T log2(V) / bytes.
  double uniform_bits_per_byte = 0.0;
};

/// The panel above for token counts indexed by id, of a text of bytes bytes.
[[nodiscard]] TOKENLAB_API TokenDistribution token_distribution(
    std::span<const std::uint64_t> token_counts, std::size_t vocabulary_size, std::uint64_t bytes);

struct TOKENLAB_API SegmentationMetrics {
  std::uint64_t tokens = 0;
  std::uint64_t words = 0;  // pre-tokenized words
  /// Words as Python's str.split() counts them (the papers' "whitespace words").
  std::uint64_t whitespace_words = 0;
  /// Non-empty evaluation lines.
  std::uint64_t lines = 0;
  std::uint64_t characters = 0;
  std::uint64_t bytes = 0;
  std::uint64_t unknown_tokens = 0;
  std::uint64_t unknown_characters = 0;  // characters covered by unknown tokens
  std::uint64_t words_with_unknown = 0;
  std::uint64_t byte_fallback_tokens = 0;  // <0xNN> pieces standing for uncovered characters
  std::uint64_t continued_words = 0;       // words split into 2+ tokens
  std::uint64_t distinct_tokens = 0;
  std::size_t vocabulary_size = 0;
  double renyi_efficiency_2_5 = 0.0;  // Zouhar et al. 2023, alpha = 2.5
  TokenDistribution distribution;

  [[nodiscard]] double fertility() const noexcept;             // tokens / words
  [[nodiscard]] double whitespace_fertility() const noexcept;  // tokens / whitespace_words
  [[nodiscard]] double tokens_per_line() const noexcept;       // tokens / lines
  [[nodiscard]] double characters_per_token() const noexcept;
  [[nodiscard]] double bytes_per_token() const noexcept;
  [[nodiscard]] double continued_word_rate() const noexcept;  // continued_words / words
  [[nodiscard]] double unknown_token_rate() const noexcept;
  [[nodiscard]] double unknown_character_rate() const noexcept;
  [[nodiscard]] double unknown_word_rate() const noexcept;
  [[nodiscard]] double byte_fallback_rate() const noexcept;      // byte pieces / tokens
  [[nodiscard]] double vocabulary_utilization() const noexcept;  // distinct / vocabulary size
};

/// Characters (code points) and UTF-8 bytes of a word, not counting the boundary marker.
TOKENLAB_API std::uint64_t surface_characters(std::string_view word);
TOKENLAB_API std::uint64_t surface_bytes(std::string_view word);

/// Renyi entropy of order alpha of a count distribution divided by log(vocabulary_size).
TOKENLAB_API double renyi_efficiency(std::span<const std::uint64_t> token_counts, double alpha,
                                     std::size_t vocabulary_size);

class TOKENLAB_API MetricsAccumulator {
 public:
  /// byte_pieces: the ids of the vocabulary's byte-fallback pieces (see
  /// byte_fallback_ids()), counted as byte_fallback_tokens.
  MetricsAccumulator(std::size_t vocabulary_size, std::optional<TokenId> unknown_id,
                     std::vector<TokenId> byte_pieces = {});

  /// Adds one word and its ids. The characters under unknown tokens are the word's
  /// characters that segmenter.decode() of its known ids does not give back, so
  /// pass the segmenter that produced the ids.
  void add_word(std::string_view word, std::span<const TokenId> ids, const Segmenter& segmenter);
  /// Adds one held-out line encoded whole by a tokenizer that tokenlab did not
  /// train (a real model's). words, characters and bytes are those of the line's
  /// words under tokenlab's own pre-tokenizer, so that per-word and per-character
  /// figures compare with the trained rows. Unknown characters are estimated as
  /// the line's characters that the decoded known ids do not give back (white
  /// space aside); continued words are not counted (tokens do not map to words).
  void add_line(std::span<const TokenId> ids, std::uint64_t words, std::uint64_t characters,
                std::uint64_t bytes,
                const std::function<std::string(std::span<const TokenId>)>& decode);
  /// Adds a text's lines and whitespace words (counted once per text, not per word).
  void add_text(std::uint64_t lines, std::uint64_t whitespace_words);
  /// Characters no tokenizer can give back (literal U+2581 markers): counted as
  /// characters and as unknown characters.
  void add_lost_characters(std::uint64_t characters);
  /// Adds another accumulator's counts (for parallel evaluation, or to pool languages).
  void merge(const MetricsAccumulator& other);
  [[nodiscard]] SegmentationMetrics finish() const;

 private:
  std::size_t vocabulary_size_;
  std::optional<TokenId> unknown_id_;
  std::vector<TokenId> byte_pieces_;
  SegmentationMetrics totals_;
  std::vector<std::uint64_t> token_counts_;
};

/// Embedding parameter count for a vocabulary size and model width.
struct EmbeddingCost {
  std::size_t d_model = 0;
  std::uint64_t tied_parameters = 0;    // V x d
  std::uint64_t untied_parameters = 0;  // 2 x V x d
  [[nodiscard]] std::uint64_t tied_bf16_bytes() const noexcept { return tied_parameters * 2; }
  [[nodiscard]] std::uint64_t untied_bf16_bytes() const noexcept { return untied_parameters * 2; }
};

TOKENLAB_API EmbeddingCost embedding_cost(std::uint64_t vocabulary_size,
                                          std::size_t d_model) noexcept;

}  // namespace tokenlab
