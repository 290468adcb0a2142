// tokenlab grade ASSIGNMENT PLUGIN.so: a course assignment's score, with a reason
// for every point lost, as text or as JSON for a submission system.
//
// The assignments and the items they score are in tools/cli/grading/ (grading.hpp:
// items, scores and the forked child each item runs the plugin in; bpe_training.cpp
// and new_segmenter.cpp). This file reads the command line and prints the grade.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "grade_corpus.hpp"
#include "grading/grading.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab::cli {

namespace {

using grading::Grader;
using grading::Item;

// ---- output -------------------------------------------------------------------------

struct Grade {
  std::string assignment;
  std::string plugin;
  std::string version;
  std::string file;
  std::string load_error;  // the plugin did not load: every point lost
  std::vector<Item> items;

  [[nodiscard]] int score() const {
    int s = 0;
    for (const auto& i : items) s += i.score();
    return s;
  }
  [[nodiscard]] int max() const {
    int m = 0;
    for (const auto& i : items) m += i.max;
    return m;
  }
};

void print_text(std::ostream& out, const Grade& g) {
  out << "grade " << g.assignment << ": " << (g.plugin.empty() ? "?" : g.plugin) << ' ' << g.version
      << " (" << g.file << ")\n";
  for (const auto& item : g.items) {
    const std::string points = std::to_string(item.score()) + "/" + std::to_string(item.max);
    out << std::string(points.size() < 6 ? 6 - points.size() : 0, ' ') << points << "  " << item.id
        << ": " << item.title << '\n';
    for (const auto& d : item.lost) out << "     -" << d.points << "  " << d.reason << '\n';
    for (const auto& n : item.notes) out << "          " << n << '\n';
  }
  out << "score " << g.score() << "/" << g.max() << '\n';
}

void print_json(std::ostream& out, const Grade& g) {
  out << "{\"assignment\": " << json_quote(g.assignment) << ", \"plugin\": " << json_quote(g.plugin)
      << ", \"version\": " << json_quote(g.version) << ", \"file\": " << json_quote(g.file)
      << ", \"score\": " << g.score() << ", \"max\": " << g.max() << ", \"items\": [";
  for (std::size_t i = 0; i < g.items.size(); ++i) {
    const Item& item = g.items[i];
    out << (i ? ", " : "") << "\n  {\"id\": " << json_quote(item.id)
        << ", \"title\": " << json_quote(item.title) << ", \"score\": " << item.score()
        << ", \"max\": " << item.max << ", \"lost\": [";
    for (std::size_t k = 0; k < item.lost.size(); ++k)
      out << (k ? ", " : "") << "{\"points\": " << item.lost[k].points
          << ", \"reason\": " << json_quote(item.lost[k].reason) << "}";
    out << "], \"notes\": [";
    for (std::size_t k = 0; k < item.notes.size(); ++k)
      out << (k ? ", " : "") << json_quote(item.notes[k]);
    out << "]}";
  }
  out << "\n]}\n";
}

// The items of an assignment with every point lost for one reason (a plugin that
// does not load): the same items, so a submission system sees the same shape.
std::vector<Item> all_lost(std::vector<Item> items, const std::string& reason) {
  for (auto& item : items) {
    item.lost = {{item.max, reason}};
    item.notes.clear();
  }
  return items;
}

std::vector<Item> item_shape(const std::string& assignment) {
  if (assignment == "bpe-training")
    return {{"check-plugin", "tokenlab check-plugin", 20, {}, {}},
            {"textbook-merges", "the first 8 merges on the textbook corpus", 16, {}, {}},
            {"textbook-encoding", "unseen words encoded with the textbook merges", 4, {}, {}},
            {"corpus-merges", "300 merges on the real corpus", 30, {}, {}},
            {"corpus-encoding", "every distinct word of the real corpus encoded", 20, {}, {}},
            {"vocabulary-size", "the size asked for", 10, {}, {}}};
  return {{"check-plugin", "tokenlab check-plugin", 20, {}, {}},
          {"description", "a description of one's own", 10, {}, {}},
          {"own-algorithm", "an algorithm of one's own", 20, {}, {}},
          {"comparison", "trained and evaluated by tokenlab compare", 20, {}, {}},
          {"vocabulary-size", "the 500 entries asked for", 10, {}, {}},
          {"fewer-tokens", "fewer tokens than the character segmenter", 20, {}, {}}};
}

}  // namespace

int cmd_grade(const std::vector<std::string>& args) {
  std::string assignment;
  std::string path;
  std::string corpus;
  bool json = false;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("assignment", po::value(&assignment)->required(),
                     "bpe-training or new-segmenter")("plugin", po::value(&path)->required(),
                                                      "the submission: a plugin file (.so)")(
      "json", po::bool_switch(&json), "print the grade as JSON (for a submission system)")(
      "corpus", po::value(&corpus),
      "the real corpus (a UTF-8 text file; default: the short English story built into "
      "tokenlab, tests/data/corpus/english.txt)")("plugin-dir", po::value(&plugin_dirs),
                                                  "where the built-in plugins are (repeatable)");
  po::positional_options_description positional;
  positional.add("assignment", 1).add("plugin", 1);
  po::variables_map vm;
  if (!parse("grade", "ASSIGNMENT PLUGIN.so [--json]", desc, positional, args, vm)) return kExitOk;
  if (assignment != "bpe-training" && assignment != "new-segmenter")
    throw UsageError("unknown assignment '" + assignment +
                     "' (the assignments: bpe-training, new-segmenter)");

  PluginRegistry built_ins;
  load_plugins(built_ins, plugin_dirs);
  for (const std::string needed : {"bpe", "character", "unigram"})
    (void)built_ins.info(needed);  // throws naming what is missing

  Grade grade;
  grade.assignment = assignment;
  grade.file = path;
  PluginRegistry student;
  try {
    const PluginInfo& info = student.load_file(path);
    grade.plugin = info.name;
    grade.version = info.version;
  } catch (const std::exception& e) {
    grade.load_error = e.what();
  }
  if (!grade.load_error.empty()) {
    grade.items = all_lost(item_shape(assignment), "the plugin did not load: " + grade.load_error);
  } else {
    std::string text(kGradeCorpus);
    std::string label = "the built-in English story";
    if (!corpus.empty()) {
      std::ifstream in(corpus, std::ios::binary);
      if (!in) throw Error("cannot read " + corpus);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      label = std::filesystem::path(corpus).filename().string();
    }
    const Grader grader{student,     built_ins, grade.plugin, std::filesystem::path(path),
                        plugin_dirs, text,      label};
    grade.items = assignment == "bpe-training" ? grading::grade_bpe_training(grader)
                                               : grading::grade_new_segmenter(grader);
  }
  if (json)
    print_json(std::cout, grade);
  else
    print_text(std::cout, grade);
  return kExitOk;
}

}  // namespace tokenlab::cli
