// File: pre_tokenizer.hpp
// Splits a normalized line into words, each carrying the boundary marker.
//
//   PreTokenizer p({.kind = PreTokenizerKind::unicode, .marker = MarkerStyle::prefix});
//   p.split("Hello, world 42x", fn)  calls fn with "▁Hello" "," "▁world" "▁42" "x"
//
// Kinds:
//  * whitespace: words are maximal runs of non-space characters;
//  * unicode (default): also splits at punctuation/symbols (a run of them is one
//    word), at script changes (combining marks stay with their base; Han, Hiragana
//    and Katakana count as one script, as in SentencePiece) and at boundaries
//    between digits and other characters;
//  * icu_words: ICU's UAX #29 word break iterator (dictionary breaks for Thai,
//    CJK); spaces are dropped.
//  * bert: BERT's BasicTokenizer, exactly as HF's BertPreTokenizer: splits at
//    white space and isolates each punctuation character (ASCII punctuation or
//    Unicode P*, not symbols: "£12" stays one word) and each CJK ideograph. See
//    bert_characters.hpp.
// Marker styles: prefix puts U+2581 before a word that follows a space or starts
// the line; suffix puts it after a word followed by a space or ending the line;
// none adds nothing (BERT). Joining words and turning markers into spaces (then
// trimming) gives the line back exactly, except with style none.
// Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class PreTokenizerKind { whitespace, unicode, icu_words, bert };
enum class MarkerStyle { prefix, suffix, none };

struct TOKENLAB_API PreTokenizerOptions {
  PreTokenizerKind kind = PreTokenizerKind::unicode;
  MarkerStyle marker = MarkerStyle::prefix;

  /// Stable text form stored in model files, e.g. "unicode/prefix".
  [[nodiscard]] std::string to_string() const;
  /// Parses to_string() output; throws Error on anything else.
  static PreTokenizerOptions parse(std::string_view text);
  bool operator==(const PreTokenizerOptions&) const = default;
};

class TOKENLAB_API PreTokenizer {
 public:
  using WordCallback = std::function<void(std::string_view word)>;

  explicit PreTokenizer(PreTokenizerOptions options = {});
  [[nodiscard]] const PreTokenizerOptions& options() const noexcept { return options_; }

  /// Calls on_word for each word of a normalized line, in order. The view is valid
  /// only during the call. scratch is reused to avoid allocation.
  void split(std::string_view line, std::string& scratch, const WordCallback& on_word) const;
  [[nodiscard]] std::vector<std::string> split(std::string_view line) const;

  /// Turns concatenated decoded words back into text: markers become spaces, the
  /// result is trimmed.
  [[nodiscard]] std::string restore(std::string_view decoded) const;

 private:
  void split_simple(std::string_view line, std::string& scratch, const WordCallback& on_word) const;
  void split_icu(std::string_view line, std::string& scratch, const WordCallback& on_word) const;
  void split_bert(std::string_view line, std::string& scratch, const WordCallback& on_word) const;
  void emit(std::string_view word, bool space_before, bool space_after, std::string& scratch,
            const WordCallback& on_word) const;

  PreTokenizerOptions options_;
};

}  // namespace tokenlab
