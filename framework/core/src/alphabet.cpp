#include "tokenlab/alphabet.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

constexpr std::size_t kChunkWords = 1 << 14;

// Character occurrences are count x length: with counts near 2^64 they would wrap.
// They only rank characters, so saturating is exact enough.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

Alphabet select_alphabet(const WordCounts& counts, double coverage, unsigned threads,
                         std::size_t max_characters) {
  if (!(coverage > 0.0 && coverage <= 1.0))
    throw Error("character_coverage must be in (0, 1], got " + std::to_string(coverage));
  const auto& entries = counts.entries();
  const std::size_t chunks = (entries.size() + kChunkWords - 1) / kChunkWords;
  // Per-chunk tables merged in chunk order: the sums do not depend on scheduling.
  std::vector<std::unordered_map<char32_t, std::uint64_t>> local(chunks);
  parallel_for(chunks, resolve_threads(threads), [&](std::size_t k) {
    auto& map = local[k];
    const std::size_t end = std::min(entries.size(), (k + 1) * kChunkWords);
    for (std::size_t w = k * kChunkWords; w < end; ++w) {
      const std::string_view word = entries[w].word;
      const std::uint64_t c = entries[w].count;
      for (std::size_t pos = 0; pos < word.size();) {
        const std::size_t len = utf8::sequence_length(word, pos);
        if (len == 0) {
          ++pos;
          continue;
        }
        auto& slot = map[utf8::decode_at(word, pos)];
        slot = saturating_add(slot, c);
        pos += len;
      }
    }
  });
  std::unordered_map<char32_t, std::uint64_t> total;
  for (const auto& map : local)
    for (const auto& [cp, c] : map) total[cp] = saturating_add(total[cp], c);
  std::vector<std::pair<char32_t, std::uint64_t>> sorted(total.begin(), total.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  Alphabet alphabet;
  alphabet.distinct = sorted.size();
  // Sums in long double (2^64-1 counts do not wrap); the share is compared in
  // double, the precision the option was given in, so that 90 of 100 reaches 0.9.
  // Coverage 1 keeps every character, however rare beside huge counts.
  long double all = 0;
  for (const auto& e : sorted) all += static_cast<long double>(e.second);
  long double covered = 0;
  for (const auto& [cp, c] : sorted) {
    alphabet.occurrences = saturating_add(alphabet.occurrences, c);
    if (coverage < 1.0 && all > 0 && static_cast<double>(covered / all) >= coverage) continue;
    if (alphabet.characters.size() == max_characters) continue;
    covered += static_cast<long double>(c);
    alphabet.covered = saturating_add(alphabet.covered, c);
    alphabet.characters.push_back(cp);
  }
  std::sort(alphabet.characters.begin(), alphabet.characters.end());
  alphabet.counts.reserve(alphabet.characters.size());
  for (const char32_t cp : alphabet.characters) alphabet.counts.push_back(total[cp]);
  return alphabet;
}

std::string byte_fallback_piece(unsigned byte) {
  char text[8];
  std::snprintf(text, sizeof text, "<0x%02X>", byte & 0xFFu);
  return text;
}

std::optional<unsigned char> byte_fallback_value(std::string_view piece,
                                                 HexDigits digits) noexcept {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') return std::nullopt;
  unsigned value = 0;
  for (const char c : piece.substr(3, 2)) {
    value <<= 4;
    if (c >= '0' && c <= '9')
      value |= static_cast<unsigned>(c - '0');
    else if (c >= 'A' && c <= 'F')
      value |= static_cast<unsigned>(c - 'A' + 10);
    else if (digits == HexDigits::either_case && c >= 'a' && c <= 'f')
      value |= static_cast<unsigned>(c - 'a' + 10);
    else
      return std::nullopt;
  }
  return static_cast<unsigned char>(value);
}

std::vector<TokenId> byte_fallback_ids(const Vocabulary& vocabulary) {
  std::vector<TokenId> ids;
  ids.reserve(256);
  for (unsigned b = 0; b < 256; ++b) {
    const auto id = vocabulary.find(byte_fallback_piece(b));
    if (!id) return {};
    ids.push_back(*id);
  }
  return ids;
}

}  // namespace tokenlab
