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

fs::path cache_directory() {
  if (const char* dir = std::getenv("TOKENLAB_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "tokenlab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "tokenlab";
  return fs::temp_directory_path() / "tokenlab-cache";
}

fs::path default_corpus_path() {
  return cache_directory() / "web-bible.txt";
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
  constexpr std::string_view kPsalmArtifact = "This Psalm is a genuine one of David, though extra,";
  std::string line;
  std::size_t written = 0;
  bool psalm_title_seen = false;
  bool last_verse_reached = false;
  std::smatch match;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, match, reference)) {
      if (last_verse_reached) break;  // anything after Revelation 22:21 is the glossary
      if (match[1] == "Revelation of John" && match[2] == "22" && match[3] == "21")
        last_verse_reached = true;
      line = match.suffix().str();
    } else if (last_verse_reached) {
      // Continuation lines of the last verse end at the first blank line; the glossary follows.
      if (collapse_spaces(line).empty()) break;
    }
    if (line.find('<') != std::string::npos) continue;  // leftover OSIS markup
    line = split_case_joins(collapse_spaces(strip_footnotes(line)));
    if (line.empty()) continue;
    if (line.find('[') != std::string::npos || line.find(']') != std::string::npos) continue;
    if (line.front() == '(' && line.back() == ')' && line.find(' ') == std::string::npos)
      continue;  // module name
    if (line.rfind(kPsalmArtifact, 0) == 0) {
      // The module repeats Psalm 151's title after every later verse; keep it once.
      if (psalm_title_seen) continue;
      psalm_title_seen = true;
    }
    out << line << '\n';
    ++written;
  }
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
        "run tools/demo, or 'sudo apt-get install diatheke sword-text-web', or pass --corpus FILE");
  std::istringstream in(raw);
  write_file_atomically(path, [&](std::ostream& out) { clean_diatheke_output(in, out); });
  return path;
}

}  // namespace tokenlab
