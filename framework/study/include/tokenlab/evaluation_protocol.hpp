// File: evaluation_protocol.hpp
// How compare feeds evaluation text to a tokenizer and what it counts as a word:
// the choices on which published fertility and premium figures differ.
//
//   EvaluationProtocol p;
//   p.unit = parse_evaluation_unit("document");  // Petrov et al. 2023
//   p.words = parse_word_definition("whitespace");
//   p.squeeze_spaces = true;                      // swiss-ai's loader
//
// docs/metrics.md ("Protocols") says which paper uses which setting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// What one call of a real model's tokenizer sees. Models tokenlab trains cut
/// their input into words before the segmenter sees it, so every unit gives them
/// the same tokens; the unit changes what a whole-text tokenizer is given.
enum class EvaluationUnit {
  automatic,  // pre-tokenized words for trained models, whole lines for real tokenizers
  word,       // each whitespace-separated word of a line alone
  line,       // each line alone (swiss-ai/tokenizer-intrinsic-evals)
  document,   // one string per evaluation file: its lines joined by one space (Petrov et al.)
};

/// The denominator of tokens per word.
enum class WordDefinition {
  pretokenizer,  // the words of the run's pre-tokenizer (tokenlab's default)
  whitespace,    // maximal runs of non-space characters, as Python's str.split()
};

struct TOKENLAB_API EvaluationProtocol {
  EvaluationUnit unit = EvaluationUnit::automatic;
  WordDefinition words = WordDefinition::pretokenizer;
  /// Before anything else, each evaluation line has its runs of U+0020 collapsed
  /// to one and its white space at both ends removed, as the loader of
  /// swiss-ai/tokenizer-intrinsic-evals does. Training text is never touched.
  bool squeeze_spaces = false;

  /// One line for reports: "unit=line words=whitespace squeeze-spaces".
  [[nodiscard]] std::string to_string() const;
};

/// "auto", "word", "line", "document"; Error naming the accepted values otherwise.
[[nodiscard]] TOKENLAB_API EvaluationUnit parse_evaluation_unit(std::string_view name);
[[nodiscard]] TOKENLAB_API std::string to_string(EvaluationUnit unit);
/// "pretokenizer", "whitespace"; Error otherwise.
[[nodiscard]] TOKENLAB_API WordDefinition parse_word_definition(std::string_view name);
[[nodiscard]] TOKENLAB_API std::string to_string(WordDefinition words);

/// True for the characters Python's str.split() splits on (str.isspace()).
[[nodiscard]] TOKENLAB_API bool is_python_space(char32_t c) noexcept;

/// The words of a line under WordDefinition::whitespace, calling f(word) for
/// each; returns how many. Invalid UTF-8 bytes count as word characters.
template <typename F>
std::uint64_t for_each_whitespace_word(std::string_view line, F&& f);

/// Words of a line as Python's len(line.split()) counts them.
[[nodiscard]] TOKENLAB_API std::uint64_t count_whitespace_words(std::string_view line);

/// The line as swiss-ai's loader leaves it (see squeeze_spaces).
[[nodiscard]] TOKENLAB_API std::string squeeze_spaces(std::string_view line);

/// Length of the white space (is_python_space) at s[pos], or 0.
[[nodiscard]] TOKENLAB_API std::size_t python_space_at(std::string_view s,
                                                       std::size_t pos) noexcept;

template <typename F>
std::uint64_t for_each_whitespace_word(std::string_view line, F&& f) {
  std::uint64_t words = 0;
  std::size_t pos = 0;
  while (pos < line.size()) {
    if (const std::size_t space = python_space_at(line, pos); space > 0) {
      pos += space;
      continue;
    }
    const std::size_t begin = pos;
    while (pos < line.size() && python_space_at(line, pos) == 0) ++pos;
    ++words;
    f(line.substr(begin, pos - begin));
  }
  return words;
}

}  // namespace tokenlab
