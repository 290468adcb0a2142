// tokenlab grade ASSIGNMENT PLUGIN.so: a course assignment's score, with a reason
// for every point lost, as text or as JSON for a submission system.
//
// Two assignments (docs/course/assignments/): bpe-training (BPE training written in
// a plugin; its merges are compared, step by step, with the built-in bpe's on the
// textbook corpus and on a real text) and new-segmenter (a segmenter of one's own
// from tokenlab new-plugin, compared with the built-ins). Each item of a grade runs
// the plugin in a forked child process, as check-plugin does, so a submission that
// crashes or throws loses that item's points and the grader goes on. Nothing
// measured in time enters a score: the same plugin file gets the same grade.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "grade_corpus.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli {

namespace {

// ---- scores -----------------------------------------------------------------

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

// ---- running plugin code in a child -----------------------------------------

// What a check reports from the child: deductions and notes, one line each.
class Report {
 public:
  void lose(int points, std::string reason) { lost.push_back({points, std::move(reason)}); }
  void note(std::string text) { notes.push_back(std::move(text)); }
  std::vector<Deduction> lost;
  std::vector<std::string> notes;
};

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "the plugin crashed (signal " + std::to_string(sig) +
           (abbrev ? ", SIG" + std::string(abbrev) : std::string()) + ")";
  }
  if (WIFEXITED(status))
    return "the plugin ended the grader with exit code " + std::to_string(WEXITSTATUS(status));
  return "the grader's child stopped abnormally";
}

// Runs check in a forked child and fills item from what it reported. A child that
// dies (a crash, an exit) loses every point of the item, naming the signal; an
// exception that escapes check loses them too, naming its type and message.
void run_item(Item& item, const std::function<void(Report&)>& check) {
  std::cout.flush();
  std::cerr.flush();
  int fds[2];
  if (::pipe(fds) != 0) throw Error("grade: cannot create a pipe");
  const pid_t child = ::fork();
  if (child < 0) throw Error("grade: cannot fork");
  if (child == 0) {
    ::close(fds[0]);
    for (const int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    Report report;
    try {
      check(report);
    } catch (const std::exception& e) {
      report.lose(item.max, "the plugin threw " + describe_exception(e));
    } catch (...) {
      report.lose(item.max, "the plugin threw an exception that is not a std::exception");
    }
    std::string out;
    for (const auto& d : report.lost)
      out += "D\t" + std::to_string(d.points) + "\t" + one_line(d.reason) + "\n";
    for (const auto& n : report.notes) out += "N\t" + one_line(n) + "\n";
    write_all(fds[1], out + "E\n");
    std::cout.flush();
    ::_exit(0);
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::vector<Deduction> lost;
  std::vector<std::string> notes;
  bool ended = false;
  std::istringstream lines(data);
  for (std::string line; std::getline(lines, line);) {
    if (line == "E") ended = true;
    if (line.rfind("N\t", 0) == 0) notes.push_back(line.substr(2));
    const auto tab = line.find('\t', 2);
    if (line.rfind("D\t", 0) == 0 && tab != std::string::npos)
      lost.push_back({std::stoi(line.substr(2, tab - 2)), line.substr(tab + 1)});
  }
  if (!ended || !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    item.lost = {{item.max, describe_status(status) + " during this item"}};
    item.notes = std::move(notes);
    return;
  }
  // Never more than the item's points, whatever the deductions add up to.
  int room = item.max;
  for (auto& d : lost) {
    d.points = std::min(d.points, room);
    room -= d.points;
    if (d.points > 0) item.lost.push_back(std::move(d));
  }
  item.notes = std::move(notes);
}

// ---- what the checks share --------------------------------------------------

inline constexpr std::string_view kMarker = "\u2581";

// The textbook corpus (docs/course/03-bpe-by-hand.md, tokenlab trace --marker
// suffix): the marker ends each word, as the textbook's </w>.
WordCounts textbook_counts() {
  WordCounts counts;
  for (const auto& [word, count] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}, {"wider", 2}})
    counts.add(word + std::string(kMarker), count);
  return counts;
}

// Words of a text as tokenlab count makes them with its defaults (NFC, unicode
// pre-tokenizer, the marker before each word).
WordCounts text_counts(const std::string& text) {
  const Normalizer normalizer;
  const PreTokenizer pre;
  WordCounts counts;
  std::istringstream lines(text);
  std::string scratch;
  for (std::string line; std::getline(lines, line);)
    pre.split(normalizer.normalize(line), scratch, [&](std::string_view w) { counts.add(w); });
  return counts;
}

std::size_t alphabet_size(const WordCounts& counts) {
  return select_alphabet(counts, 1.0, 1).characters.size();
}

// The pieces a training learned: ordinary pieces of two or more characters that
// are not byte pieces, in vocabulary order.
std::vector<std::string> learned_pieces(const Segmenter& s) {
  std::vector<std::string> out;
  const Vocabulary& v = s.vocabulary();
  for (TokenId id = 0; id < v.size(); ++id) {
    const std::string& piece = v.piece(id);
    if (v.is_special(id) || byte_fallback_value(piece) || utf8::split_code_points(piece).size() < 2)
      continue;
    out.push_back(piece);
  }
  return out;
}

// A piece as the text output shows it: the marker as '▁', quoted.
std::string quoted(const std::string& piece) {
  return "'" + piece + "'";
}

std::string pieces_of(const Segmenter& s, const std::string& word) {
  std::vector<TokenId> ids;
  s.encode(word, ids);
  check_ids(ids, s.vocabulary().size(), s.name());
  std::string out;
  for (const TokenId id : ids) out += (out.empty() ? "" : " + ") + s.vocabulary().piece(id);
  return out;
}

// Records the "pair" column of each traced merge.
class MergeRecorder final : public TrainingObserver {
 public:
  [[nodiscard]] bool trace() const override { return true; }
  void on_step(const TrainingStep& step) override {
    for (const auto& [name, value] : step.fields)
      if (name == "pair") pairs.push_back(value);
  }
  std::vector<std::string> pairs;
};

TrainOptions student_options(std::size_t vocab_size) {
  TrainOptions o;
  o.vocab_size = vocab_size;
  o.character_coverage = 1.0;  // every character: the alphabets match the reference's
  o.threads = 1;
  return o;
}

TrainOptions reference_options(std::size_t vocab_size) {
  TrainOptions o = student_options(vocab_size);
  o.extra["byte_fallback"] = "false";  // the plain alphabet, as a student's plugin has
  return o;
}

struct Grader {
  const PluginRegistry& student;    // the submission alone
  const PluginRegistry& built_ins;  // tokenlab's plugins (the references)
  std::string name;                 // the submission's plugin name
  std::filesystem::path file;
  std::vector<std::string> plugin_dirs;
  std::string corpus_text;  // the real corpus
  std::string corpus_label;
};

// ---- check-plugin -------------------------------------------------------------

Item conformance_item(const Grader& g) {
  Item item{"check-plugin", "tokenlab check-plugin: 2 points per failed check", 20, {}, {}};
  const auto results = run_conformance_isolated(g.student, g.name);
  int room = item.max;
  for (const auto& r : results) {
    if (r.passed) continue;
    const int points = std::min(2, room);
    room -= points;
    std::string why = r.skipped ? "not run: " + r.detail : "failed: " + r.detail;
    item.lost.push_back({points, r.check + ": " + why});
  }
  // Only what lost points is listed; a check after the cap still shows, for zero.
  item.lost.erase(std::remove_if(item.lost.begin(), item.lost.end(),
                                 [](const Deduction& d) { return d.points == 0; }),
                  item.lost.end());
  return item;
}

// ---- bpe-training -----------------------------------------------------------------

// Trains the submission and the built-in bpe on counts with `merges` merges beyond
// the alphabet and compares the pieces learned, step by step.
struct MergeComparison {
  std::vector<std::string> expected;  // the reference's pieces, in order
  std::vector<std::string> pairs;     // the reference's pairs ("e + s")
  std::vector<std::string> got;       // the submission's
};

MergeComparison compare_merges(const Grader& g, const WordCounts& counts, std::size_t merges,
                               std::unique_ptr<Segmenter>* student_out = nullptr,
                               std::unique_ptr<Segmenter>* reference_out = nullptr) {
  const std::size_t size = 1 + alphabet_size(counts) + merges;
  auto reference = g.built_ins.create("bpe");
  MergeRecorder recorder;
  reference->train(counts, reference_options(size), &recorder);
  auto student = g.student.create(g.name);
  student->train(counts, student_options(size), nullptr);
  MergeComparison c{learned_pieces(*reference), std::move(recorder.pairs),
                    learned_pieces(*student)};
  if (student_out) *student_out = std::move(student);
  if (reference_out) *reference_out = std::move(reference);
  return c;
}

std::string expected_step(const MergeComparison& c, std::size_t i) {
  return (i < c.pairs.size() ? c.pairs[i] + " -> " : std::string()) + quoted(c.expected[i]);
}

std::vector<Item> grade_bpe_training(const Grader& g) {
  std::vector<Item> items;
  items.push_back(conformance_item(g));

  Item merges{"textbook-merges",
              "the first 8 merges on the textbook corpus (low:5 lower:2 newest:6 widest:3 "
              "wider:2), each as the reference's: 2 points a step",
              16,
              {},
              {}};
  run_item(merges, [&](Report& r) {
    const MergeComparison c = compare_merges(g, textbook_counts(), 8);
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      if (i < c.got.size() && c.got[i] == c.expected[i]) continue;
      r.lose(2, "step " + std::to_string(i + 1) + ": expected " + expected_step(c, i) + ", got " +
                    (i < c.got.size() ? quoted(c.got[i]) : "no piece"));
    }
    if (c.got.size() > c.expected.size())
      r.note(std::to_string(c.got.size()) + " pieces learned where 8 were asked for");
  });
  items.push_back(std::move(merges));

  Item encoding{"textbook-encoding",
                "unseen words encoded with the textbook merges as the reference encodes them: 1 "
                "point a word",
                4,
                {},
                {}};
  run_item(encoding, [&](Report& r) {
    std::unique_ptr<Segmenter> student;
    std::unique_ptr<Segmenter> reference;
    compare_merges(g, textbook_counts(), 8, &student, &reference);
    for (const std::string word : {"lowest", "newer", "wides", "slowest"}) {
      const std::string w = word + std::string(kMarker);
      const std::string want = pieces_of(*reference, w);
      const std::string got = pieces_of(*student, w);
      if (got != want) r.lose(1, "'" + w + "': expected " + want + ", got " + got);
    }
  });
  items.push_back(std::move(encoding));

  constexpr std::size_t kCorpusMerges = 300;
  Item corpus{"corpus-merges",
              "300 merges on " + g.corpus_label +
                  " as the reference's, step by step: 1 point per 10 steps matched before the "
                  "first difference",
              30,
              {},
              {}};
  run_item(corpus, [&](Report& r) {
    const MergeComparison c = compare_merges(g, text_counts(g.corpus_text), kCorpusMerges);
    std::size_t same = 0;
    while (same < c.expected.size() && same < c.got.size() && c.got[same] == c.expected[same])
      ++same;
    if (same == c.expected.size()) return;
    const int points = static_cast<int>(c.expected.size() / 10 - same / 10);
    r.lose(points, "step " + std::to_string(same + 1) + " is the first to differ: expected " +
                       expected_step(c, same) + ", got " +
                       (same < c.got.size() ? quoted(c.got[same]) : "no piece") + " (" +
                       std::to_string(same) + " of " + std::to_string(c.expected.size()) +
                       " steps matched)");
  });
  items.push_back(std::move(corpus));

  Item words{"corpus-encoding",
             "every distinct word of " + g.corpus_label +
                 " encoded as the reference encodes it after 300 merges: points in proportion",
             20,
             {},
             {}};
  run_item(words, [&](Report& r) {
    const WordCounts counts = text_counts(g.corpus_text);
    std::unique_ptr<Segmenter> student;
    std::unique_ptr<Segmenter> reference;
    const MergeComparison c = compare_merges(g, counts, kCorpusMerges, &student, &reference);
    std::size_t differ = 0;
    std::string first;
    for (const auto& e : counts.entries()) {
      const std::string want = pieces_of(*reference, e.word);
      const std::string got = pieces_of(*student, e.word);
      if (got == want) continue;
      if (differ++ == 0) first = "'" + e.word + "': expected " + want + ", got " + got;
    }
    if (differ == 0) return;
    const std::size_t total = counts.size();
    const int points = static_cast<int>((differ * 20 + total - 1) / total);
    r.lose(points, std::to_string(differ) + " of " + std::to_string(total) +
                       " words encoded otherwise, the first " + first +
                       (c.got == c.expected ? "" : " (the merges differ too: fix those first)"));
  });
  items.push_back(std::move(words));

  Item sizes{"vocabulary-size",
             "the size asked for, or the reference's when no pair is left: 5 points a case",
             10,
             {},
             {}};
  run_item(sizes, [&](Report& r) {
    const WordCounts counts = text_counts(g.corpus_text);
    const std::size_t asked = 1 + alphabet_size(counts) + 100;
    auto student = g.student.create(g.name);
    student->train(counts, student_options(asked), nullptr);
    if (student->vocabulary().size() != asked)
      r.lose(5, g.corpus_label + " at vocab_size " + std::to_string(asked) + ": " +
                    std::to_string(student->vocabulary().size()) + " entries");
    const WordCounts textbook = textbook_counts();
    auto reference = g.built_ins.create("bpe");
    reference->train(textbook, reference_options(1000), nullptr);
    auto exhausted = g.student.create(g.name);
    exhausted->train(textbook, student_options(1000), nullptr);
    if (exhausted->vocabulary().size() != reference->vocabulary().size())
      r.lose(5, "the textbook corpus at vocab_size 1000: " +
                    std::to_string(exhausted->vocabulary().size()) +
                    " entries, the reference stops at " +
                    std::to_string(reference->vocabulary().size()) +
                    " (when every word is one piece, no pair is left to merge)");
  });
  items.push_back(std::move(sizes));
  return items;
}

// ---- new-segmenter ----------------------------------------------------------------

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

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::vector<Item> grade_new_segmenter(const Grader& g) {
  std::vector<Item> items;
  items.push_back(conformance_item(g));

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
  items.push_back(std::move(description));

  constexpr std::size_t kVocabSize = 500;
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
  items.push_back(std::move(own));

  // The comparison, in one child: trained with the built-ins, as tokenlab compare
  // trains them, on the same split.
  Item compared{"comparison",
                "trained and evaluated by tokenlab compare beside character, bpe and unigram "
                "at vocab_size 500",
                20,
                {},
                {}};
  Item size{"vocabulary-size", "the 500 entries asked for, in the comparison", 10, {}, {}};
  Item fewer{
      "fewer-tokens", "fewer tokens than the character segmenter on the held-out text", 20, {}, {}};
  const auto comparison = [&](Report& r, const std::string& part) {
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
               fixed(row.metrics.fertility(), 3) + " tokens per word, " +
               fixed(100.0 * row.metrics.unknown_word_rate(), 2) + "% words with <unk>" +
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
  };
  run_item(compared, [&](Report& r) { comparison(r, "comparison"); });
  run_item(size, [&](Report& r) { comparison(r, "vocabulary-size"); });
  run_item(fewer, [&](Report& r) { comparison(r, "fewer-tokens"); });
  items.push_back(std::move(compared));
  items.push_back(std::move(size));
  items.push_back(std::move(fewer));
  return items;
}

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
    grade.items =
        assignment == "bpe-training" ? grade_bpe_training(grader) : grade_new_segmenter(grader);
  }
  if (json)
    print_json(std::cout, grade);
  else
    print_text(std::cout, grade);
  return kExitOk;
}

}  // namespace tokenlab::cli
