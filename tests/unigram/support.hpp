// Helpers shared by the unigram tests: fixture corpora and brute-force
// enumeration of every segmentation of a short word.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/random.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"

namespace unigram_test {

inline const std::string kMarker = tokenlab::kBoundaryMarker;

/// The fixture text split at whitespace, each word with a prefix marker.
inline tokenlab::WordCounts fixture_counts() {
#ifdef UNIGRAM_TEST_DATA_DIR
  const auto path = std::filesystem::path(UNIGRAM_TEST_DATA_DIR) / "fixture.txt";
#else
  const auto path = std::filesystem::path(__FILE__).parent_path() / "data" / "fixture.txt";
#endif
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  tokenlab::WordCounts counts;
  std::string word;
  while (in >> word) counts.add(kMarker + word);
  return counts;
}

/// A few thousand pseudo-words built from syllables, with Zipf-like counts, so
/// that training spans many work chunks (determinism across thread counts).
inline tokenlab::WordCounts synthetic_counts(std::size_t words, std::uint64_t seed) {
  static const char* syllables[] = {"ka",  "lo",  "mi", "ne", "ru", "sa", "ti", "vo", "ze", "ph",
                                    "str", "ing", "ed", "er", "qu", "an", "ou", "th", "é",  "ß"};
  tokenlab::WordCounts counts;
  std::uint64_t rng = seed;
  for (std::size_t i = 0; i < words; ++i) {
    std::string w = kMarker;
    const std::size_t n = 1 + tokenlab::next_random(rng) % 4;
    for (std::size_t k = 0; k < n; ++k) w += syllables[tokenlab::next_random(rng) % 20];
    counts.add(w, 1 + 2000 / (i + 1));
  }
  return counts;
}

/// One segmentation: the pieces and their summed score.
struct Segmentation {
  std::vector<std::string> pieces;
  double score = 0.0;
};

/// Every segmentation of word into pieces of vocab (a map piece -> log prob).
inline std::vector<Segmentation> enumerate(const std::string& word,
                                           const std::map<std::string, double>& vocab) {
  std::vector<Segmentation> all;
  Segmentation current;
  std::function<void(std::size_t)> walk = [&](std::size_t pos) {
    if (pos == word.size()) {
      all.push_back(current);
      return;
    }
    for (std::size_t len = 1; pos + len <= word.size(); ++len) {
      const auto it = vocab.find(word.substr(pos, len));
      if (it == vocab.end()) continue;
      current.pieces.push_back(it->first);
      current.score += it->second;
      walk(pos + len);
      current.pieces.pop_back();
      current.score -= it->second;
    }
  };
  walk(0);
  return all;
}

inline double log_sum_exp(const std::vector<Segmentation>& all, double alpha = 1.0) {
  double m = -INFINITY;
  for (const auto& s : all) m = std::max(m, alpha * s.score);
  double sum = 0.0;
  for (const auto& s : all) sum += std::exp(alpha * s.score - m);
  return m + std::log(sum);
}

/// A small vocabulary over the words "▁lowest", "▁newer", "▁wider" with
/// distinct, fixed scores (no ties, so the best path is unique).
inline std::map<std::string, double> small_vocabulary() {
  const std::vector<std::string> pieces = {kMarker,
                                           "l",
                                           "o",
                                           "w",
                                           "e",
                                           "s",
                                           "t",
                                           "n",
                                           "r",
                                           "i",
                                           "d",
                                           kMarker + "l",
                                           kMarker + "lo",
                                           kMarker + "low",
                                           "lo",
                                           "low",
                                           "ow",
                                           "we",
                                           "wes",
                                           "es",
                                           "est",
                                           "st",
                                           kMarker + "n",
                                           kMarker + "new",
                                           "ne",
                                           "new",
                                           "ew",
                                           "er",
                                           kMarker + "w",
                                           "wi",
                                           "wid",
                                           "id",
                                           "ide",
                                           "de",
                                           "der"};
  std::map<std::string, double> vocab;
  std::uint64_t rng = 7;
  for (const auto& p : pieces) vocab[p] = -1.0 - 4.0 * tokenlab::next_unit(rng);
  return vocab;
}

}  // namespace unigram_test
