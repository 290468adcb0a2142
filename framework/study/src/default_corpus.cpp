#include "tokenlab/default_corpus.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <ostream>
#include <regex>
#include <sstream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {

namespace fs = std::filesystem;

fs::path default_corpus_path() {
  // The version names the cleaning rules: a change to clean_diatheke_output bumps
  // it, so a cache extracted by an older build is never used again.
  return cache_directory() / "web-bible-v2.txt";
}

namespace {

std::string collapse_spaces(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Removes bracketed footnotes "[1:1 The Hebrew word ...]" and empty "[]" whole.
std::string strip_footnotes(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  int depth = 0;
  for (const char c : s) {
    if (c == '[') {
      ++depth;
    } else if (c == ']' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

// The module has a footnote removed in "ofAchan" (Sirach 46:1): a lowercase letter
// directly followed by an uppercase one never occurs inside an English word here,
// so such joins get their space back.
std::string split_case_joins(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 4);
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (i + 1 < s.size() && s[i] >= 'a' && s[i] <= 'z' && s[i + 1] >= 'A' && s[i + 1] <= 'Z')
      out += ' ';
  }
  return out;
}

}  // namespace

std::size_t clean_diatheke_output(std::istream& in, std::ostream& out) {
  // "Genesis 1:1: ", "I Kings 3:4: ", "Esther (Greek) 11:2: ", "Revelation of John 22:21: "
  static const std::regex reference(
      R"(^\s*((?:[IV]+ )?[A-Z][A-Za-z]*(?: [A-Za-z]+)*(?: \([A-Za-z]+\))?) (\d+):(\d+):\s?)");
  std::size_t written = 0;
  const auto emit = [&](const std::string& text) {
    out << text << '\n';
    ++written;
  };
  // Cleans one line of text; empty when nothing usable is left.
  const auto clean = [](const std::string& text) -> std::string {
    if (text.find('<') != std::string::npos) return {};  // leftover OSIS markup
    std::string line = split_case_joins(collapse_spaces(strip_footnotes(text)));
    if (line.find('[') != std::string::npos || line.find(']') != std::string::npos) return {};
    if (!line.empty() && line.front() == '(' && line.back() == ')' &&
        line.find(' ') == std::string::npos)
      return {};  // the module name, "(engWEB2015eb)"
    return line;
  };
  // A line directly followed by a verse is a heading (a psalm title). The module
  // repeats the last title before every later verse ("A praise psalm by David.
  // []" 10,900 times): a heading equal to the previous heading is such a repeat.
  // Repeated refrains (Psalm 136) are not followed by a verse, so they stay.
  std::string held;
  bool holding = false;
  std::string last_heading;
  const auto release = [&](bool is_heading) {
    if (!holding) return;
    holding = false;
    if (is_heading) {
      if (held == last_heading) return;
      last_heading = held;
    }
    emit(held);
  };
  std::string line;
  bool last_verse_reached = false;
  std::smatch match;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, match, reference)) {
      if (last_verse_reached) break;
      release(true);
      if (match[1] == "Revelation of John" && match[2] == "22" && match[3] == "21")
        last_verse_reached = true;
      const std::string text = clean(match.suffix().str());
      if (!text.empty()) emit(text);
      continue;
    }
    // After the last verse, its continuation lines end at the first blank line;
    // the glossary follows.
    if (last_verse_reached && collapse_spaces(line).empty()) break;
    release(false);
    std::string text = clean(line);
    if (!text.empty()) {
      held = std::move(text);
      holding = true;
    }
  }
  release(false);
  return written;
}

fs::path ensure_default_corpus() {
  const fs::path path = default_corpus_path();
  std::error_code ec;
  if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0) return path;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    throw Error(path.parent_path().string() + ": cannot create cache directory: " + ec.message());
  const char* command =
      "diatheke -b engWEB2015eb -f plain -o f -k 'Genesis 1:1-Revelation 22:21' 2>/dev/null";
  FILE* pipe = ::popen(command, "r");
  if (pipe == nullptr) throw Error("cannot run diatheke to extract the default corpus");
  std::string raw;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) raw.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0 || raw.size() < 1000000)
    throw Error(
        "the default corpus (World English Bible) needs Debian's packages diatheke and "
        "sword-text-web: "
        "run tools/scripts/demo, or 'sudo apt-get install diatheke sword-text-web', or pass "
        "--corpus FILE");
  std::istringstream in(raw);
  write_file_atomically(path, [&](std::ostream& out) { clean_diatheke_output(in, out); });
  return path;
}

}  // namespace tokenlab
