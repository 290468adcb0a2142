#include "tokenlab/wordpiece/vocab_txt.hpp"

#include <istream>
#include <ostream>
#include <unordered_map>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab::wordpiece {

std::vector<std::string> read_vocab_txt(std::istream& in, const std::string& name) {
  std::vector<std::string> tokens;
  std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> seen;
  std::string line;
  std::size_t number = 0;
  std::size_t first_empty = 0;  // line number of a pending empty line, 0 = none
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
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
