#include "tokenlab/evaluation_protocol.hpp"

#include <algorithm>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

std::string EvaluationProtocol::to_string() const {
  std::string s = "unit=" + tokenlab::to_string(unit) + " words=" + tokenlab::to_string(words);
  if (squeeze_spaces) s += " squeeze-spaces";
  return s;
}

EvaluationUnit parse_evaluation_unit(std::string_view name) {
  if (name == "auto") return EvaluationUnit::automatic;
  if (name == "word") return EvaluationUnit::word;
  if (name == "line") return EvaluationUnit::line;
  if (name == "document") return EvaluationUnit::document;
  throw Error("unknown evaluation unit '" + std::string(name) +
              "' (expected auto, word, line or document)");
}

std::string to_string(EvaluationUnit unit) {
  switch (unit) {
    case EvaluationUnit::automatic:
      return "auto";
    case EvaluationUnit::word:
      return "word";
    case EvaluationUnit::line:
      return "line";
    case EvaluationUnit::document:
      return "document";
  }
  return "auto";
}

WordDefinition parse_word_definition(std::string_view name) {
  if (name == "pretokenizer") return WordDefinition::pretokenizer;
  if (name == "whitespace") return WordDefinition::whitespace;
  throw Error("unknown word definition '" + std::string(name) +
              "' (expected pretokenizer or whitespace)");
}

std::string to_string(WordDefinition words) {
  return words == WordDefinition::whitespace ? "whitespace" : "pretokenizer";
}

bool is_python_space(char32_t c) noexcept {
  // CPython's _Py_ascii_whitespace and the Unicode characters its isspace()
  // accepts (bidirectional class WS, B or S, or category Zs).
  if (c <= 0x20) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  switch (c) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

std::size_t python_space_at(std::string_view s, std::size_t pos) noexcept {
  const auto sequence = utf8::decode_sequence(s, pos);
  if (sequence.length == 0) return 0;
  return is_python_space(sequence.code_point) ? sequence.length : 0;
}

std::uint64_t count_whitespace_words(std::string_view line) {
  return for_each_whitespace_word(line, [](std::string_view) {});
}

std::string squeeze_spaces(std::string_view line) {
  std::size_t begin = 0;
  std::size_t end = line.size();
  while (begin < end) {
    const std::size_t space = python_space_at(line, begin);
    if (space == 0) break;
    begin += space;
  }
  // Trailing white space: find the last non-space sequence start.
  std::size_t last_end = begin;
  for (std::size_t pos = begin; pos < end;) {
    const std::size_t space = python_space_at(line, pos);
    if (space > 0) {
      pos += space;
      continue;
    }
    const std::size_t length = std::max<std::size_t>(1, utf8::sequence_length(line, pos));
    pos += length;
    last_end = pos;
  }
  end = last_end;
  std::string out;
  out.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) {
    if (line[i] == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(line[i]);
  }
  return out;
}

}  // namespace tokenlab
