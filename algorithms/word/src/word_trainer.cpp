// Word training: the specials (vocabulary_layout.hpp's rule), then the most
// frequent whole words.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "tokenlab/option_reader.hpp"
#include "tokenlab/word/word_model.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::word {

void WordSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                          TrainingObserver* observer) {
  const OptionReader reader("word", options.extra, {});
  Vocabulary vocabulary = new_vocabulary(options);  // the specials (vocabulary_layout.hpp)

  const auto& entries = counts.entries();
  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].count > entries[b].count;
  });
  const std::uint64_t min_count = std::max<std::uint64_t>(1, options.min_frequency);
  std::uint64_t covered = 0;
  for (const std::size_t i : order) {
    if (vocabulary.size() >= options.vocab_size || entries[i].count < min_count) break;
    if (entries[i].word.empty() || vocabulary.contains(entries[i].word)) continue;
    vocabulary.add(entries[i].word);
    covered += entries[i].count;
  }
  if (observer) {
    observer->on_message(std::to_string(vocabulary.size() - vocabulary.special_count()) + " of " +
                         std::to_string(entries.size()) + " distinct words kept, covering " +
                         std::to_string(counts.total() == 0
                                            ? 100.0
                                            : 100.0 * static_cast<double>(covered) /
                                                  static_cast<double>(counts.total())) +
                         "% of training word occurrences");
  }
  set_vocabulary(std::move(vocabulary));
}

}  // namespace tokenlab::word
