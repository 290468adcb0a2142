// Grading course assignments (tokenlab grade): a grade is a list of items, each
// with its points and a reason for every point lost. Every item that runs a
// submission's code runs it in a forked child (run_item), as check-plugin does,
// so a crash or an exception loses that item's points and grading goes on.
// Nothing measured in time enters a score.
//
//   grading::Grader g{...};
//   for (const Item& item : grading::grade_bpe_training(g)) total += item.score();
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli::grading {

/// The boundary marker the graded words carry (U+2581, at their end).
inline constexpr std::string_view kMarker = "\u2581";

struct Deduction {
  int points = 0;
  std::string reason;
};

// One graded item: what it checks, its points, and every point it lost, why.
struct Item {
  std::string id;
  std::string title;
  int max = 0;
  std::vector<Deduction> lost;
  std::vector<std::string> notes;  // what the item saw, for the student (not scored)

  [[nodiscard]] int score() const {
    int lost_points = 0;
    for (const auto& d : lost) lost_points += d.points;
    return std::max(0, max - lost_points);
  }
};

// What a check reports from the child: deductions and notes, one line each.
class Report {
 public:
  void lose(int points, std::string reason) { lost.push_back({points, std::move(reason)}); }
  void note(std::string text) { notes.push_back(std::move(text)); }
  std::vector<Deduction> lost;
  std::vector<std::string> notes;
};

struct Grader {
  const PluginRegistry& student;    // the submission alone
  const PluginRegistry& built_ins;  // tokenlab's plugins (the references)
  std::string name;                 // the submission's plugin name
  std::filesystem::path file;
  std::vector<std::string> plugin_dirs;
  std::string corpus_text;  // the real corpus
  std::string corpus_label;
};

/// Runs check in a forked child and fills item from what it reported. A child that
/// dies (a crash, an exit) loses every point of the item, naming the signal; an
/// exception that escapes check loses them too, naming its type and message.
void run_item(Item& item, const std::function<void(Report&)>& check);

/// tokenlab check-plugin's suite: 2 points per failed check, 20 in all.
Item conformance_item(const Grader& g);

/// The textbook corpus (low:5 lower:2 newest:6 widest:3 wider:2); the marker ends
/// each word, as the textbook's </w>.
WordCounts textbook_counts();
/// A text's words as tokenlab count makes them with its defaults (NFC, unicode
/// pre-tokenizer, the marker before each word).
WordCounts text_counts(const std::string& text);
/// Distinct characters of the counts (every one kept).
std::size_t alphabet_size(const WordCounts& counts);
/// The pieces a training learned: ordinary pieces of two or more characters that
/// are not byte pieces, in vocabulary order.
std::vector<std::string> learned_pieces(const Segmenter& s);
/// A piece as the text output shows it: quoted, the marker as it is.
std::string quoted(const std::string& piece);
/// The pieces a segmenter cuts word into, joined by " + ".
std::string pieces_of(const Segmenter& s, const std::string& word);
/// What a submission is trained with: vocab_size, every character, one thread.
TrainOptions student_options(std::size_t vocab_size);
/// The same for the built-in bpe, without byte fallback (a student's has none).
TrainOptions reference_options(std::size_t vocab_size);

/// The assignments (docs/course/assignments/).
std::vector<Item> grade_bpe_training(const Grader& g);
std::vector<Item> grade_new_segmenter(const Grader& g);

}  // namespace tokenlab::cli::grading
