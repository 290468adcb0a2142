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
        map[utf8::decode_at(word, pos)] += c;
        pos += len;
      }
    }
  });
  std::unordered_map<char32_t, std::uint64_t> total;
  for (const auto& map : local)
    for (const auto& [cp, c] : map) total[cp] += c;
  std::vector<std::pair<char32_t, std::uint64_t>> sorted(total.begin(), total.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  Alphabet alphabet;
  alphabet.distinct = sorted.size();
  long double all = 0;
  for (const auto& e : sorted) all += static_cast<long double>(e.second);
  long double covered = 0;
  for (const auto& [cp, c] : sorted) {
    alphabet.occurrences += c;
    if (all > 0 && covered / all >= static_cast<long double>(coverage)) continue;
    if (alphabet.characters.size() == max_characters) continue;
    covered += static_cast<long double>(c);
    alphabet.covered += c;
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
