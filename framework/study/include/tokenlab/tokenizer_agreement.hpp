// File: tokenizer_agreement.hpp
// Tokenizers against each other: how much of their vocabularies they share
// (Jaccard over the entries as text, markers normalised), and how alike they cut
// the same words (per-word agreement and boundary F1), for every pair.
//
//   const TextEncoder* encoders[] = {&bpe, &gpt2};
//   TokenizerAgreement m = compare_tokenizers({"bpe", "gpt2"}, encoders, lines);
//   m.at(m.jaccard, 0, 1); m.at(m.boundary_f1, 0, 1);
//
// Words are the whitespace words of the lines (Python's str.split()), each
// encoded alone; docs/metrics.md#tokenizers-against-each-other has the formulas.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/text_encoder.hpp"

namespace tokenlab {

/// A vocabulary as a set of byte strings that compare across tokenizers: the
/// normal and byte-fallback entries' texts (vocabulary_entry: U+2581 and GPT-2's
/// "Ġ" already spaces, "##" removed), a word-initial WordPiece entry given the
/// leading space the others spell (when the vocabulary has "##" pieces and no
/// entry starting with a space); sorted, without duplicates or empty strings.
[[nodiscard]] TOKENLAB_API std::vector<std::string> normalised_vocabulary(
    const TextEncoder& encoder, unsigned threads = 0);

/// |A ∩ B| / |A ∪ B| of two sorted sets (1 when both are empty).
[[nodiscard]] TOKENLAB_API double jaccard(std::span<const std::string> a,
                                          std::span<const std::string> b);

/// How encoder cuts one word given alone: the word as its tokens spell it
/// (leading spaces dropped), and the byte offsets inside it where one token ends
/// and the next begins.
struct WordCut {
  std::string text;
  std::vector<std::uint32_t> boundaries;
};
[[nodiscard]] TOKENLAB_API WordCut cut_word(const TextEncoder& encoder, std::string_view word);

/// Pair figures, row-major n x n (n = labels.size()); the diagonal is 1.
struct TokenizerAgreement {
  std::vector<std::string> labels;
  std::vector<std::size_t> vocabulary;  // normalised entries per tokenizer
  std::vector<double> jaccard;          // vocabulary overlap
  std::vector<double> word_agreement;   // share of compared words cut alike
  std::vector<double> boundary_f1;      // 2 |Bi ∩ Bj| / (|Bi| + |Bj|), over compared words
  std::vector<std::uint64_t> compared;  // word occurrences both spell alike in length
  std::uint64_t words = 0;              // word occurrences in the text
  [[nodiscard]] double at(const std::vector<double>& m, std::size_t i, std::size_t j) const {
    return m[i * labels.size() + j];
  }
};

/// Every pair of encoders on the whitespace words of lines (each distinct word
/// encoded once, weighted by its count). A word enters a pair's figures when the
/// two encoders spell it with the same number of bytes (not, say, where one has
/// an unknown token). The result does not depend on threads (0 = all cores).
[[nodiscard]] TOKENLAB_API TokenizerAgreement compare_tokenizers(
    std::span<const std::string> labels, std::span<const TextEncoder* const> encoders,
    std::span<const std::string> lines, unsigned threads = 0);

}  // namespace tokenlab
