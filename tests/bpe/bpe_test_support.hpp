// Helpers shared by the BPE test files: an observer that records what the trainer
// reports, small corpora, and word-count builders.
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::bpe::test {

inline const std::string kMarker = kBoundaryMarker;

class Recorder final : public TrainingObserver {
 public:
  explicit Recorder(bool tracing = true) : tracing_(tracing) {}
  void on_step(const TrainingStep& step) override { steps.push_back(step); }
  void on_message(std::string_view message) override { messages.emplace_back(message); }
  [[nodiscard]] bool trace() const override { return tracing_; }

  std::vector<TrainingStep> steps;
  std::vector<std::string> messages;

 private:
  bool tracing_;
};

/// The textbook corpus in suffix style: low 5, lower 2, newest 6, widest 3, wider 2.
inline WordCounts textbook_counts() {
  WordCounts counts;
  counts.add("low" + kMarker, 5);
  counts.add("lower" + kMarker, 2);
  counts.add("newest" + kMarker, 6);
  counts.add("widest" + kMarker, 3);
  counts.add("wider" + kMarker, 2);
  return counts;
}

/// A small real text (written for these tests), pre-tokenized at spaces with the
/// marker as a prefix, the default style.
inline WordCounts fixture_counts() {
  static const char* const kText =
      "Byte pair encoding starts from single characters and merges the most frequent "
      "adjacent pair again and again. The merged pair becomes a new symbol, and the "
      "count of every pair around it changes. A careful trainer never counts the whole "
      "corpus twice: it keeps the counts of all pairs, an index from each pair to the "
      "words that contain it, and a priority queue ordered by count. When the lowest "
      "merges are learned first, the encoder replays them in the same order and finds "
      "the same segmentation for every word it has seen. Newer, lower and widest words "
      "share endings with the lowest and the newest, which is why the textbook example "
      "uses them. Tokenizers compress text: fewer tokens per word means shorter "
      "sequences, and shorter sequences mean cheaper models. Über-naïve café owners "
      "serve crème brûlée; the characters outside ASCII must survive the round trip.";
  WordCounts counts;
  std::istringstream in(kText);
  std::string word;
  while (in >> word) counts.add(kMarker + word);
  return counts;
}

/// Random words over a tiny alphabet (with the marker and a two-byte character),
/// small counts so that equal counts, and so ties, are frequent.
inline WordCounts random_counts(std::uint64_t seed, std::size_t words, std::size_t max_length = 8) {
  static const std::vector<std::string> kUnits = {"a", "b", "c", "d", "\xC3\xA9", kMarker};
  std::mt19937_64 rng(seed);
  WordCounts counts;
  for (std::size_t i = 0; i < words; ++i) {
    const std::size_t length = 1 + rng() % max_length;
    std::string word;
    for (std::size_t k = 0; k < length; ++k) word += kUnits[rng() % kUnits.size()];
    counts.add(word, 1 + rng() % 6);
  }
  return counts;
}

}  // namespace tokenlab::bpe::test
