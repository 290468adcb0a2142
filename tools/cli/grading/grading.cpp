#include "grading/grading.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/child_pipe.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

namespace tokenlab::cli::grading {

// ---- running plugin code in a child -----------------------------------------

namespace {

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

}  // namespace

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

}  // namespace tokenlab::cli::grading
