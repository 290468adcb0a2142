#include "tokenlab/tokenizer_agreement.hpp"

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "tokenlab/error.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/parallel.hpp"

namespace tokenlab {

namespace {

unsigned resolve_threads(unsigned threads) {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Distinct whitespace words of the lines and their counts, in first-seen order
// (so the result is the same whatever the hash map's order).
struct WordTable {
  std::vector<std::string> words;
  std::vector<std::uint64_t> counts;
};

WordTable word_table(std::span<const std::string> lines) {
  WordTable table;
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& line : lines)
    for_each_whitespace_word(line, [&](std::string_view word) {
      const auto [it, inserted] = index.try_emplace(std::string(word), table.words.size());
      if (inserted) {
        table.words.emplace_back(word);
        table.counts.push_back(0);
      }
      ++table.counts[it->second];
    });
  return table;
}

struct PairCounts {
  std::uint64_t compared = 0;
  std::uint64_t alike = 0;
  std::uint64_t common = 0;  // boundaries both place, weighted
  std::uint64_t total = 0;   // boundaries of either, weighted (|Bi| + |Bj|)
};

PairCounts pair_counts(const std::vector<WordCut>& a, const std::vector<WordCut>& b,
                       const std::vector<std::uint64_t>& counts) {
  PairCounts p;
  for (std::size_t w = 0; w < counts.size(); ++w) {
    if (a[w].text.size() != b[w].text.size()) continue;
    const std::uint64_t c = counts[w];
    p.compared += c;
    p.alike += c * (a[w].boundaries == b[w].boundaries);
    std::vector<std::uint32_t> both;
    std::set_intersection(a[w].boundaries.begin(), a[w].boundaries.end(), b[w].boundaries.begin(),
                          b[w].boundaries.end(), std::back_inserter(both));
    p.common += c * both.size();
    p.total += c * (a[w].boundaries.size() + b[w].boundaries.size());
  }
  return p;
}

}  // namespace

std::vector<std::string> normalised_vocabulary(const TextEncoder& encoder, unsigned threads) {
  const std::size_t ids = encoder.vocabulary_size();
  std::vector<VocabularyEntry> entries(ids);
  constexpr std::size_t kChunk = 1024;
  parallel_for((ids + kChunk - 1) / kChunk, resolve_threads(threads), [&](std::size_t chunk) {
    for (std::size_t id = chunk * kChunk; id < std::min(ids, (chunk + 1) * kChunk); ++id)
      entries[id] = encoder.vocabulary_entry(static_cast<TokenId>(id));
  });
  bool has_continuation = false;
  bool has_spaced = false;
  for (const auto& e : entries) {
    if (e.kind != EntryKind::normal) continue;
    has_continuation = has_continuation || e.continuation;
    has_spaced = has_spaced || (!e.text.empty() && e.text.front() == ' ');
  }
  // BERT's vocabulary marks the inside of a word ("##ing") and leaves its start
  // bare; the others mark the start (" the", "▁the", "Ġthe") and leave the inside bare.
  const bool space_word_starts = has_continuation && !has_spaced;
  std::vector<std::string> set;
  set.reserve(ids);
  for (auto& e : entries) {
    if (e.kind != EntryKind::normal && e.kind != EntryKind::byte_fallback) continue;
    if (e.text.empty()) continue;
    if (space_word_starts && e.kind == EntryKind::normal && !e.continuation)
      e.text.insert(0, 1, ' ');
    set.push_back(std::move(e.text));
  }
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

double jaccard(std::span<const std::string> a, std::span<const std::string> b) {
  if (a.empty() && b.empty()) return 1.0;
  std::size_t common = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      ++common, ++i, ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

WordCut cut_word(const TextEncoder& encoder, std::string_view word) {
  std::vector<TokenId> ids;
  encoder.encode(word, ids);
  WordCut cut;
  std::vector<std::size_t> ends;
  for (const TokenId id : ids) {
    cut.text += encoder.vocabulary_entry(id).text;
    ends.push_back(cut.text.size());
  }
  // The word-initial marker ("▁", "Ġ") is a space before the word, not part of it.
  const std::size_t lead = std::min(cut.text.find_first_not_of(' '), cut.text.size());
  cut.text.erase(0, lead);
  for (std::size_t k = 0; k + 1 < ends.size(); ++k)
    if (ends[k] > lead && ends[k] - lead < cut.text.size())
      cut.boundaries.push_back(static_cast<std::uint32_t>(ends[k] - lead));
  cut.boundaries.erase(std::unique(cut.boundaries.begin(), cut.boundaries.end()),
                       cut.boundaries.end());
  return cut;
}

TokenizerAgreement compare_tokenizers(std::span<const std::string> labels,
                                      std::span<const TextEncoder* const> encoders,
                                      std::span<const std::string> lines, unsigned threads) {
  if (labels.size() != encoders.size())
    throw Error("compare_tokenizers: one label per encoder is needed");
  threads = resolve_threads(threads);
  const std::size_t n = labels.size();
  TokenizerAgreement m;
  m.labels.assign(labels.begin(), labels.end());
  const WordTable table = word_table(lines);
  for (const auto c : table.counts) m.words += c;
  std::vector<std::vector<std::string>> sets(n);
  std::vector<std::vector<WordCut>> cuts(n, std::vector<WordCut>(table.words.size()));
  for (std::size_t t = 0; t < n; ++t) {
    sets[t] = normalised_vocabulary(*encoders[t], threads);
    m.vocabulary.push_back(sets[t].size());
    parallel_for(table.words.size(), threads,
                 [&](std::size_t w) { cuts[t][w] = cut_word(*encoders[t], table.words[w]); });
  }
  m.jaccard.assign(n * n, 1.0);
  m.word_agreement.assign(n * n, 1.0);
  m.boundary_f1.assign(n * n, 1.0);
  m.compared.assign(n * n, m.words);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const PairCounts p = pair_counts(cuts[i], cuts[j], table.counts);
      const double overlap = jaccard(sets[i], sets[j]);
      const double agreement =
          p.compared == 0 ? 0.0 : static_cast<double>(p.alike) / static_cast<double>(p.compared);
      const double f1 =
          p.total == 0 ? 1.0 : 2.0 * static_cast<double>(p.common) / static_cast<double>(p.total);
      for (const auto& [a, b] : {std::pair{i, j}, std::pair{j, i}}) {
        m.jaccard[a * n + b] = overlap;
        m.word_agreement[a * n + b] = agreement;
        m.boundary_f1[a * n + b] = f1;
        m.compared[a * n + b] = p.compared;
      }
    }
  return m;
}

}  // namespace tokenlab
