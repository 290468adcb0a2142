// File: student_plugin.cpp
// A plugin as a student writes it from `tokenlab new-plugin` in a few minutes:
// greedy longest match over the character n-grams that occur most often.
//
// CMakeLists.txt builds it once as it should be (STUDENT_FAULT_none, the plugin
// "student") and once per fault below, each under its own name (STUDENT_NAME),
// each one mistake that a student made and an earlier check-plugin let through.
// broken_plugins_test.cpp expects check-plugin to pass the first and to fail
// each of the others, naming the problem.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_cache.hpp"

namespace student {

using namespace tokenlab;

std::string_view join(const std::vector<std::string_view>& chars, std::size_t i, std::size_t n) {
  return {chars[i].data(), chars[i + n - 1].data() + chars[i + n - 1].size()};
}

class StudentSegmenter final : public VocabularySegmenter<StudentSegmenter> {
 public:
  static constexpr const char* kName = STUDENT_NAME;
  static constexpr const char* kVersion = "0.1.0";
#if defined(STUDENT_FAULT_placeholder_description)
  // Left as tokenlab new-plugin wrote it.
  static constexpr const char* kDescription =
      "TODO: say in one line what placeholder_description does (placeholder written by tokenlab "
      "new-plugin)";
#elif defined(STUDENT_FAULT_example_description)
  // Copied with the example, by hand.
  static constexpr const char* kDescription =
      "Greedy longest match over frequent character n-grams (example plugin)";
#else
  static constexpr const char* kDescription = "Greedy longest match over frequent n-grams";
#endif
  static constexpr Capabilities kCapabilities = kCapabilityTrace;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;

 private:
  void encode_uncached(std::string_view word, std::vector<TokenId>& out) const;
  std::uint64_t identity_ = new_model_identity();  // changes whenever the model does
};

void StudentSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                             TrainingObserver* observer) {
  const OptionReader reader(kName, options.extra, {});
  Vocabulary vocabulary = new_vocabulary(options, counts);
  std::unordered_map<std::string_view, std::uint64_t> seen;  // n-gram -> count
  std::vector<std::string_view> first_seen;
  for (const auto& entry : counts.entries()) {
    const auto chars = utf8::split_code_points(entry.word);
    for (std::size_t i = 0; i < chars.size(); ++i)
      for (std::size_t n = 2; n <= 4 && i + n <= chars.size(); ++n) {
        const auto [it, inserted] = seen.try_emplace(join(chars, i, n), 0);
        if (inserted) first_seen.push_back(it->first);
        it->second += entry.count;
      }
  }
  std::vector<std::pair<std::string_view, std::uint64_t>> grams;
#if defined(STUDENT_FAULT_unordered_vocabulary)
  // The hash table's order, not ranked by count: nearly character-level results.
  for (const auto& [text, count] : seen) grams.emplace_back(text, count);
#else
  for (const auto text : first_seen) grams.emplace_back(text, seen[text]);
  std::stable_sort(grams.begin(), grams.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
#endif
  std::size_t steps = 0;
  for (const auto& [text, count] : grams) {
#if defined(STUDENT_FAULT_one_too_many)
    if (vocabulary.size() > options.vocab_size) break;  // off by one: vocab_size + 1 entries
#elif !defined(STUDENT_FAULT_ignores_vocab_size)
    if (vocabulary.size() >= options.vocab_size) break;
#endif
#if !defined(STUDENT_FAULT_ignores_max_steps)
    if (options.max_steps != 0 && steps == options.max_steps) break;
#endif
    if (count < 2 || vocabulary.contains(text)) continue;
    vocabulary.add(std::string(text));
    ++steps;
    if (observer != nullptr && observer->trace())
      observer->on_step({"piece", steps, {{"piece", std::string(text)}}});
  }
#if !defined(STUDENT_FAULT_ignores_vocab_size)
  if (observer != nullptr && vocabulary.size() < options.vocab_size)
    observer->on_message(std::string(kName) + ": only " + std::to_string(vocabulary.size()) +
                         " entries: no other n-gram occurs twice");
#endif
  set_vocabulary(std::move(vocabulary));
  identity_ = new_model_identity();
}

void StudentSegmenter::encode_uncached(std::string_view word, std::vector<TokenId>& out) const {
  const auto chars = utf8::split_code_points(word);
  for (std::size_t i = 0; i < chars.size();) {
    std::size_t n = std::min<std::size_t>(4, chars.size() - i);
    std::optional<TokenId> id;
    while (n > 0 && !(id = find_piece(join(chars, i, n)))) --n;
#if defined(STUDENT_FAULT_throws_in_encode)
    out.push_back(id.value());  // an unknown character: std::bad_optional_access
#else
    out.push_back(id.value_or(unknown_id()));
#endif
    i += std::max<std::size_t>(n, 1);
  }
}

void StudentSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
#if defined(STUDENT_FAULT_word_keyed_cache)
  // Per thread, so no data race; but keyed by the word alone: another model's
  // encoding of the word comes back.
  thread_local std::unordered_map<std::string, std::vector<TokenId>> cache;
  auto [it, inserted] = cache.try_emplace(std::string(word));
  if (inserted) encode_uncached(word, it->second);
  out.insert(out.end(), it->second.begin(), it->second.end());
#elif defined(STUDENT_FAULT_shared_memo)
  // The last word encoded, remembered for every thread without a lock (keyed by
  // the model, so one thread alone never sees it wrong): a data race. Fixed-size
  // arrays, so the race gives wrong ids, not a crash.
  struct Memo {
    std::uint64_t model = 0;
    std::size_t word_size = 0;
    char word[64] = {};
    std::size_t count = 0;
    TokenId ids[64] = {};
  };
  static Memo memo;
  if (word.size() <= sizeof memo.word && memo.model == identity_ && memo.word_size == word.size() &&
      std::memcmp(memo.word, word.data(), word.size()) == 0) {
    out.insert(out.end(), memo.ids, memo.ids + std::min<std::size_t>(memo.count, 64));
    return;
  }
  const std::size_t before = out.size();
  encode_uncached(word, out);
  if (word.size() <= sizeof memo.word && out.size() - before <= 64) {
    memo.model = identity_;
    memo.word_size = word.size();
    std::memcpy(memo.word, word.data(), word.size());
    memo.count = out.size() - before;
    std::copy(out.begin() + static_cast<std::ptrdiff_t>(before), out.end(), memo.ids);
  }
#else
  encode_uncached(word, out);
#endif
}

}  // namespace student

TOKENLAB_DEFINE_PLUGIN(student::StudentSegmenter)
