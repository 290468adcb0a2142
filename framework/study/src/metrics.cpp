#include "tokenlab/metrics.hpp"

#include <utility>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "tokenlab/segmenter.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

double ratio(std::uint64_t a, std::uint64_t b) noexcept {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

std::uint64_t marker_count(std::string_view text) {
  const std::string_view marker(kBoundaryMarker);
  std::uint64_t n = 0;
  for (std::size_t pos = text.find(marker); pos != std::string_view::npos;
       pos = text.find(marker, pos + 1))
    ++n;
  return n;
}

}  // namespace

std::uint64_t surface_characters(std::string_view text) {
  return utf8::count_code_points(text) - marker_count(text);
}

std::uint64_t surface_bytes(std::string_view text) {
  return text.size() - marker_count(text) * std::string_view(kBoundaryMarker).size();
}

double SegmentationMetrics::fertility() const noexcept {
  return ratio(tokens, words);
}
double SegmentationMetrics::whitespace_fertility() const noexcept {
  return ratio(tokens, whitespace_words);
}
double SegmentationMetrics::tokens_per_line() const noexcept {
  return ratio(tokens, lines);
}
double SegmentationMetrics::characters_per_token() const noexcept {
  return ratio(characters, tokens);
}
double SegmentationMetrics::bytes_per_token() const noexcept {
  return ratio(bytes, tokens);
}
double SegmentationMetrics::continued_word_rate() const noexcept {
  return ratio(continued_words, words);
}
double SegmentationMetrics::unknown_token_rate() const noexcept {
  return ratio(unknown_tokens, tokens);
}
double SegmentationMetrics::unknown_character_rate() const noexcept {
  return ratio(unknown_characters, characters);
}
double SegmentationMetrics::unknown_word_rate() const noexcept {
  return ratio(words_with_unknown, words);
}
double SegmentationMetrics::byte_fallback_rate() const noexcept {
  return ratio(byte_fallback_tokens, tokens);
}
double SegmentationMetrics::vocabulary_utilization() const noexcept {
  return ratio(distinct_tokens, vocabulary_size);
}

namespace {

// Rényi entropy of order alpha, in bits, of the distribution of counts over total.
double renyi_bits(std::span<const std::uint64_t> counts, std::uint64_t total, double alpha) {
  double result = 0.0;
  if (alpha == 1.0) {
    for (const auto c : counts)
      if (c > 0) {
        const double p = static_cast<double>(c) / static_cast<double>(total);
        result -= p * std::log2(p);
      }
    return result;
  }
  double sum = 0.0;
  for (const auto c : counts)
    if (c > 0) sum += std::pow(static_cast<double>(c) / static_cast<double>(total), alpha);
  return std::log2(sum) / (1.0 - alpha);
}

}  // namespace

double renyi_efficiency(std::span<const std::uint64_t> token_counts, double alpha,
                        std::size_t vocabulary_size) {
  if (vocabulary_size < 2) return 0.0;
  std::uint64_t total = 0;
  for (const auto c : token_counts) total += c;
  if (total == 0) return 0.0;
  return renyi_bits(token_counts, total, alpha) / std::log2(static_cast<double>(vocabulary_size));
}

TokenDistribution token_distribution(std::span<const std::uint64_t> token_counts,
                                     std::size_t vocabulary_size, std::uint64_t bytes) {
  TokenDistribution d;
  std::uint64_t total = 0;
  std::vector<std::pair<std::uint64_t, std::size_t>> seen;  // (count, id)
  for (std::size_t id = 0; id < token_counts.size(); ++id)
    if (token_counts[id] > 0) {
      total += token_counts[id];
      seen.emplace_back(token_counts[id], id);
    }
  if (total == 0) return d;
  const double types = static_cast<double>(seen.size());
  for (std::size_t k = 0; k < TokenDistribution::kRenyiOrders.size(); ++k) {
    const double h = renyi_bits(token_counts, total, TokenDistribution::kRenyiOrders[k]);
    if (TokenDistribution::kRenyiOrders[k] == 1.0) d.shannon_bits = h;
    d.renyi_vocabulary[k] = vocabulary_size > 1 ? h / std::log2(vocabulary_size) : 0.0;
    d.renyi_seen[k] = types > 1 ? h / std::log2(types) : 0.0;
  }
  d.type_token_ratio = types / static_cast<double>(total);
  std::sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  double rank_sum = 0.0;
  for (std::size_t r = 0; r < seen.size(); ++r)
    rank_sum += static_cast<double>(r + 1) * static_cast<double>(seen[r].first);
  d.average_token_rank = rank_sum / static_cast<double>(total);
  if (bytes > 0 && vocabulary_size > 0)
    d.uniform_bits_per_byte = static_cast<double>(total) *
                              std::log2(static_cast<double>(vocabulary_size)) /
                              static_cast<double>(bytes);
  return d;
}

MetricsAccumulator::MetricsAccumulator(std::size_t vocabulary_size,
                                       std::optional<TokenId> unknown_id,
                                       std::vector<TokenId> byte_pieces)
    : vocabulary_size_(vocabulary_size),
      unknown_id_(unknown_id),
      byte_pieces_(std::move(byte_pieces)),
      token_counts_(vocabulary_size, 0) {
  totals_.vocabulary_size = vocabulary_size;
}

void MetricsAccumulator::add_word(std::string_view word, std::span<const TokenId> ids,
                                  const Segmenter& segmenter) {
  const std::uint64_t characters = surface_characters(word);
  totals_.words += 1;
  totals_.tokens += ids.size();
  totals_.characters += characters;
  totals_.bytes += surface_bytes(word);
  if (ids.size() >= 2) totals_.continued_words += 1;
  std::uint64_t unknown = 0;
  for (const TokenId id : ids) {
    if (id < token_counts_.size()) ++token_counts_[id];
    if (unknown_id_ && id == *unknown_id_) ++unknown;
  }
  if (unknown == 0) return;
  totals_.unknown_tokens += unknown;
  totals_.words_with_unknown += 1;
  if (unknown == ids.size()) {
    totals_.unknown_characters += characters;
    return;
  }
  // Characters not covered by the known pieces are the ones under unknown tokens.
  std::vector<TokenId> known;
  known.reserve(ids.size());
  for (const TokenId id : ids)
    if (id != *unknown_id_) known.push_back(id);
  const std::uint64_t covered = surface_characters(segmenter.decode(known));
  totals_.unknown_characters += characters > covered ? characters - covered : 0;
}

void MetricsAccumulator::add_line(
    std::span<const TokenId> ids, std::uint64_t words, std::uint64_t characters,
    std::uint64_t bytes, const std::function<std::string(std::span<const TokenId>)>& decode) {
  totals_.words += words;
  totals_.tokens += ids.size();
  totals_.characters += characters;
  totals_.bytes += bytes;
  std::uint64_t unknown = 0;
  for (const TokenId id : ids) {
    if (id < token_counts_.size()) ++token_counts_[id];
    if (unknown_id_ && id == *unknown_id_) ++unknown;
  }
  if (unknown == 0) return;
  totals_.unknown_tokens += unknown;
  totals_.words_with_unknown += 1;
  std::vector<TokenId> known;
  for (const TokenId id : ids)
    if (id != *unknown_id_) known.push_back(id);
  std::uint64_t covered = 0;
  const std::string text = decode(known);
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(1, utf8::sequence_length(text, i));
    if (length > 1 || !std::isspace(static_cast<unsigned char>(text[i]))) ++covered;
    i += length;
  }
  totals_.unknown_characters += characters > covered ? characters - covered : 0;
}

void MetricsAccumulator::add_text(std::uint64_t lines, std::uint64_t whitespace_words) {
  totals_.lines += lines;
  totals_.whitespace_words += whitespace_words;
}

void MetricsAccumulator::add_lost_characters(std::uint64_t characters) {
  totals_.characters += characters;
  totals_.unknown_characters += characters;
}

void MetricsAccumulator::merge(const MetricsAccumulator& other) {
  totals_.tokens += other.totals_.tokens;
  totals_.lines += other.totals_.lines;
  totals_.whitespace_words += other.totals_.whitespace_words;
  totals_.words += other.totals_.words;
  totals_.characters += other.totals_.characters;
  totals_.bytes += other.totals_.bytes;
  totals_.unknown_tokens += other.totals_.unknown_tokens;
  totals_.unknown_characters += other.totals_.unknown_characters;
  totals_.words_with_unknown += other.totals_.words_with_unknown;
  totals_.continued_words += other.totals_.continued_words;
  for (std::size_t i = 0; i < token_counts_.size() && i < other.token_counts_.size(); ++i)
    token_counts_[i] += other.token_counts_[i];
}

SegmentationMetrics MetricsAccumulator::finish() const {
  SegmentationMetrics m = totals_;
  m.distinct_tokens = 0;
  for (const auto c : token_counts_) m.distinct_tokens += c > 0;
  m.byte_fallback_tokens = 0;
  for (const TokenId id : byte_pieces_)
    if (id < token_counts_.size()) m.byte_fallback_tokens += token_counts_[id];
  m.distribution = token_distribution(token_counts_, vocabulary_size_, m.bytes);
  static_assert(TokenDistribution::kRenyiOrders[2] == 2.5);
  m.renyi_efficiency_2_5 = m.distribution.renyi_vocabulary[2];  // the compare table's `renyi`
  return m;
}

EmbeddingCost embedding_cost(std::uint64_t vocabulary_size, std::size_t d_model) noexcept {
  EmbeddingCost cost;
  cost.d_model = d_model;
  cost.tied_parameters = vocabulary_size * d_model;
  cost.untied_parameters = 2 * vocabulary_size * d_model;
  return cost;
}

}  // namespace tokenlab
