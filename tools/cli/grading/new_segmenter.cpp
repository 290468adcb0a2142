// The new-segmenter assignment: a segmenter of one's own from tokenlab new-plugin,
// compared with the built-ins.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "grading/grading.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::cli::grading {

namespace {

constexpr std::size_t kVocabSize = 500;  // what the submission is trained to

// The pieces plugins/example's ngram algorithm learns with its defaults (n-grams of
// 2..4 characters by count x (length - 1), stable in first-seen order, seen twice
// or more), as many as vocab_size leaves room for beside specials and alphabet.
std::vector<std::string> example_pieces(const WordCounts& counts, std::size_t room) {
  std::map<std::string, std::uint64_t> seen;
  std::vector<std::pair<std::string, std::uint64_t>> grams;
  for (const auto& entry : counts.entries()) {
    const auto chars = utf8::split_code_points(entry.word);
    for (std::size_t i = 0; i < chars.size(); ++i)
      for (std::size_t n = 2; n <= 4 && i + n <= chars.size(); ++n) {
        const std::string text(chars[i].data(),
                               chars[i + n - 1].data() + chars[i + n - 1].size() - chars[i].data());
        const auto [it, inserted] = seen.try_emplace(text, 0);
        if (inserted) grams.emplace_back(text, n - 1);
        it->second += entry.count;
      }
  }
  for (auto& [text, score] : grams) score *= seen[text];
  std::stable_sort(grams.begin(), grams.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (const auto& [text, score] : grams) {
    if (out.size() == room) break;
    if (seen[text] >= 2) out.push_back(text);
  }
  return out;
}

// A description of one's own, not the placeholder or the example's.
Item description_item(const Grader& g) {
  Item description{
      "description", "a description of one's own (tokenlab plugins shows it)", 10, {}, {}};
  const std::string text = g.student.info(g.name).description;
  if (text.find(kNewPluginPlaceholder) != std::string::npos)
    description.lost.push_back({10,
                                "the description is still the placeholder tokenlab "
                                "new-plugin wrote: replace kDescription"});
  else if (text.find("(example plugin)") != std::string::npos)
    description.lost.push_back(
        {10, "the description is the example plugin's ('" + text + "'): replace kDescription"});
  return description;
}

// An algorithm of one's own: not the example's n-grams.
Item own_algorithm(const Grader& g) {
  Item own{"own-algorithm",
           "an algorithm of one's own: the pieces learned on " + g.corpus_label +
               " are not the example plugin's",
           20,
           {},
           {}};
  run_item(own, [&](Report& r) {
    const WordCounts counts = text_counts(g.corpus_text);
    auto student = g.student.create(g.name);
    TrainOptions options = student_options(kVocabSize);
    options.character_coverage = 0.9995;  // the default, as new-plugin's template uses it
    student->train(counts, options, nullptr);
    const auto pieces = learned_pieces(*student);
    const std::size_t alphabet =
        select_alphabet(counts, options.character_coverage, 1).characters.size();
    if (pieces == example_pieces(counts, kVocabSize - 1 - alphabet))
      r.lose(20, "vocab_size " + std::to_string(kVocabSize) + ": the " +
                     std::to_string(pieces.size()) +
                     " pieces learned are the example's n-grams, in its order: train() is still "
                     "the example's");
  });
  return own;
}

// The comparison, in a child per item: the submission trained with the built-ins,
// as tokenlab compare trains them, on the same split; part names what is scored.
void compare_with_built_ins(const Grader& g, Report& r, const std::string& part) {
  PluginRegistry registry;
  load_plugins(registry, g.plugin_dirs);
  registry.load_file(g.file);
  char path[] = "/tmp/tokenlab-grade-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw Error("grade: cannot create a temporary file");
  ::close(fd);
  std::ofstream(path, std::ios::binary) << g.corpus_text;
  CompareOptions options;
  options.corpus_files = {path};
  options.algorithms = {"character", "bpe", "unigram", g.name};
  options.training.vocab_size = kVocabSize;
  options.training.threads = 1;
  options.bootstrap_samples = 0;
  options.sample_lines = 0;
  CompareResult result;
  try {
    result = run_compare(registry, options);
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
  const CompareRow* mine = nullptr;
  const CompareRow* character = nullptr;
  for (const auto& row : result.rows) {
    if (row.algorithm == g.name) mine = &row;
    if (row.algorithm == "character") character = &row;
    if (part == "comparison" && row.error.empty())
      r.note(row.algorithm + ": " + std::to_string(row.metrics.vocabulary_size) + " entries, " +
             std::to_string(row.metrics.tokens) + " tokens, " +
             fixed_decimals(row.metrics.fertility(), 3) + " tokens per word, " +
             fixed_decimals(100.0 * row.metrics.unknown_word_rate(), 2) + "% words with <unk>" +
             (row.note.empty() ? "" : " (" + row.note + ")"));
  }
  if (mine == nullptr || !mine->error.empty()) {
    r.lose(100, "tokenlab compare could not train or evaluate it: " +
                    (mine ? mine->error : std::string("no row")));
    return;
  }
  if (part == "vocabulary-size" && mine->metrics.vocabulary_size != kVocabSize)
    r.lose(10, std::to_string(mine->metrics.vocabulary_size) + " entries where " +
                   std::to_string(kVocabSize) + " were asked for" +
                   (mine->note.empty() ? "" : " (its note: " + mine->note + ")"));
  if (part == "fewer-tokens" && character != nullptr &&
      mine->metrics.tokens >= character->metrics.tokens)
    r.lose(20, std::to_string(mine->metrics.tokens) +
                   " tokens on the held-out text, the "
                   "character segmenter " +
                   std::to_string(character->metrics.tokens) +
                   ": the vocabulary's pieces are not used");
}

// Trained and evaluated beside the built-ins; the size asked for; fewer tokens
// than characters.
std::vector<Item> comparison_items(const Grader& g) {
  Item compared{"comparison",
                "trained and evaluated by tokenlab compare beside character, bpe and unigram "
                "at vocab_size 500",
                20,
                {},
                {}};
  Item size{"vocabulary-size", "the 500 entries asked for, in the comparison", 10, {}, {}};
  Item fewer{
      "fewer-tokens", "fewer tokens than the character segmenter on the held-out text", 20, {}, {}};
  run_item(compared, [&](Report& r) { compare_with_built_ins(g, r, "comparison"); });
  run_item(size, [&](Report& r) { compare_with_built_ins(g, r, "vocabulary-size"); });
  run_item(fewer, [&](Report& r) { compare_with_built_ins(g, r, "fewer-tokens"); });
  return {std::move(compared), std::move(size), std::move(fewer)};
}

}  // namespace

std::vector<Item> grade_new_segmenter(const Grader& g) {
  std::vector<Item> items;
  items.push_back(conformance_item(g));
  items.push_back(description_item(g));
  items.push_back(own_algorithm(g));
  for (Item& item : comparison_items(g)) items.push_back(std::move(item));
  return items;
}

}  // namespace tokenlab::cli::grading
