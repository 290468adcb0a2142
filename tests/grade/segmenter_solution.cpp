// File: segmenter_solution.cpp
// A reference solution of the new-segmenter assignment
// (docs/course/assignments/new-segmenter.md), started from `tokenlab new-plugin
// my_segmenter`: "whole words first". The vocabulary holds the most frequent whole
// words (with their boundary marker), then the most frequent character n-grams for
// what is left; a word in the vocabulary is one token, any other is cut by greedy
// longest match.
//
// tests/grade/CMakeLists.txt builds it as it should be and once per mistake below
// (GRADE_FAULT_<name>), each as my_segmenter.so in a directory of its own;
// grade_test.cpp asserts the score and the reasons tokenlab grade gives each.
#include <algorithm>
#include <unordered_map>

#include "tokenlab/vocabulary_segmenter.hpp"

namespace my_segmenter_plugin {

using namespace tokenlab;

inline constexpr std::size_t kLongest = 32;  // longest piece looked up, in characters

std::string_view join(const std::vector<std::string_view>& chars, std::size_t i, std::size_t n) {
  return {chars[i].data(), chars[i + n - 1].data() + chars[i + n - 1].size()};
}

class MySegmenter final : public VocabularySegmenter<MySegmenter> {
 public:
  static constexpr const char* kName = "my_segmenter";
  static constexpr const char* kVersion = "0.1.0";
#if defined(GRADE_FAULT_example_description)
  // A mistake: the description the example plugin had, copied with its code.
  static constexpr const char* kDescription =
      "Greedy longest match over frequent character n-grams (example plugin)";
#else
  static constexpr const char* kDescription =
      "Whole words first: the most frequent words, then frequent n-grams, longest match";
#endif
  static constexpr Capabilities kCapabilities = kCapabilityTrace;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
};

void MySegmenter::train(const WordCounts& counts, const TrainOptions& options,
                        TrainingObserver* observer) {
  const OptionReader reader(kName, options.extra, {});
  Vocabulary vocabulary = new_vocabulary(options, counts);
  const std::uint64_t min_count = std::max<std::uint64_t>(2, options.min_frequency);
  // Candidates: whole words, then n-grams of 2..4 characters, each by count, ties in
  // first-seen order (stable sorts): deterministic.
  std::vector<std::pair<std::string_view, std::uint64_t>> words;
  for (const auto& e : counts.entries())
    if (e.count >= min_count && utf8::split_code_points(e.word).size() <= kLongest)
      words.emplace_back(e.word, e.count);
  std::stable_sort(words.begin(), words.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::unordered_map<std::string_view, std::uint64_t> seen;
  std::vector<std::string_view> first_seen;
  for (const auto& e : counts.entries()) {
    const auto chars = utf8::split_code_points(e.word);
    for (std::size_t i = 0; i < chars.size(); ++i)
      for (std::size_t n = 2; n <= 4 && i + n <= chars.size(); ++n) {
        const auto [it, inserted] = seen.try_emplace(join(chars, i, n), 0);
        if (inserted) first_seen.push_back(it->first);
        it->second += e.count;
      }
  }
  std::vector<std::pair<std::string_view, std::uint64_t>> grams;
  for (const auto g : first_seen)
    if (seen[g] >= min_count) grams.emplace_back(g, seen[g]);
  std::stable_sort(grams.begin(), grams.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  // Half of the room for words, the rest (and what words leave) for n-grams.
  const std::size_t room =
      options.vocab_size > vocabulary.size() ? options.vocab_size - vocabulary.size() : 0;
  std::size_t step = 0;
  const auto add = [&](std::string_view piece) {
    if (vocabulary.size() >= options.vocab_size) return false;
    if (options.max_steps != 0 && step == options.max_steps) return false;
    if (vocabulary.contains(piece)) return true;
    vocabulary.add(std::string(piece));
    ++step;
    if (observer != nullptr && observer->trace())
      observer->on_step({"piece", step, {{"piece", std::string(piece)}}});
    return true;
  };
  for (std::size_t i = 0; i < words.size() && i < room / 2; ++i)
    if (!add(words[i].first)) break;
  for (const auto& [gram, count] : grams)
    if (!add(gram)) break;
  if (observer != nullptr && vocabulary.size() < options.vocab_size &&
      (options.max_steps == 0 || step < options.max_steps))
    observer->on_message(
        "my_segmenter: stopped at vocabulary size " + std::to_string(vocabulary.size()) + " of " +
        std::to_string(options.vocab_size) + ": no other word or n-gram occurs twice or more");
  set_vocabulary(std::move(vocabulary));
}

void MySegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  const auto chars = utf8::split_code_points(word);
  for (std::size_t i = 0; i < chars.size();) {
#if defined(GRADE_FAULT_characters_only)
    std::size_t n = 1;  // a mistake: one character at a time, the pieces never used
#else
    std::size_t n = std::min(kLongest, chars.size() - i);
#endif
    std::optional<TokenId> id;
    while (n > 0 && !(id = find_piece(join(chars, i, n)))) --n;
    out.push_back(id.value_or(unknown_id()));
    i += std::max<std::size_t>(n, 1);
  }
}

}  // namespace my_segmenter_plugin

TOKENLAB_DEFINE_PLUGIN(my_segmenter_plugin::MySegmenter)
