#include "tokenlab/wordpiece/wordpiece_vocab_txt.hpp"

#include <istream>
#include <ostream>
#include <unordered_map>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab::wordpiece {

namespace {

// Longest token line accepted. BERT's tokens are a few bytes, and WordPiece never
// matches a word over max_input_chars_per_word (100 on import) characters anyway.
constexpr std::size_t kMaxTokenBytes = 1024;

// std::getline, but a line longer than kMaxTokenBytes is an error before it is
// buffered: a vocab.txt is untrusted input.
bool read_line(std::istream& in, std::string& line, const std::string& name, std::size_t number) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  if (buffer == nullptr || !in.good()) return false;
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (line.size() == kMaxTokenBytes + 1)  // + 1: room for a trailing '\r'
      throw Error(name + ":" + std::to_string(number) + ": token longer than " +
                  std::to_string(kMaxTokenBytes) + " bytes");
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace

std::vector<std::string> read_vocab_txt(std::istream& in, const std::string& name) {
  std::vector<std::string> tokens;
  std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> seen;
  std::string line;
  std::size_t number = 0;
  std::size_t first_empty = 0;  // line number of a pending empty line, 0 = none
  while (read_line(in, line, name, number + 1)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (line.size() > kMaxTokenBytes)
      throw Error(name + ":" + std::to_string(number) + ": token longer than " +
                  std::to_string(kMaxTokenBytes) + " bytes");
    if (line.empty()) {
      // Tolerated only as trailing padding at the end of the file.
      if (first_empty == 0) first_empty = number;
      continue;
    }
    if (first_empty != 0)
      throw Error(name + ":" + std::to_string(first_empty) +
                  ": empty token (every line is one token)");
    if (auto bad = utf8::find_invalid(line))
      throw Error(name + ":" + std::to_string(number) + ": invalid UTF-8 at byte " +
                  std::to_string(*bad + 1));
    if (auto it = seen.find(line); it != seen.end()) {
      throw Error(name + ":" + std::to_string(number) + ": duplicate token '" + line +
                  "' (first on line " + std::to_string(it->second) + ")");
    }
    seen.emplace(line, number);
    tokens.push_back(line);
  }
  if (in.bad()) throw Error(name + ": read error");
  return tokens;
}

void write_vocab_txt(std::ostream& out, const std::vector<std::string>& tokens) {
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    const std::string& t = tokens[id];
    if (t.empty() || t.find_first_of("\r\n") != std::string::npos)
      throw Error("vocab.txt cannot hold token " + std::to_string(id) +
                  " (empty or with a line break)");
    out << t << '\n';
  }
  if (!out) throw Error("vocab.txt: write error");
}

bool is_reserved_token(std::string_view token) noexcept {
  if (token.size() < 3) return false;
  const char open = token.front();
  const char close = token.back();
  if (!((open == '[' && close == ']') || (open == '<' && close == '>'))) return false;
  for (const char c : token.substr(1, token.size() - 2)) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace tokenlab::wordpiece
