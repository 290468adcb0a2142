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
//  * gpt2, cl100k (also Llama 3's), qwen2, o200k: the pre-tokenization regexes of
//    GPT-style tokenizers (regex.hpp), exactly as tiktoken and HF run them. Their
//    pieces keep the spaces and line breaks in front of words (" world"), so the
//    marker style is space: nothing is added, and joining the pieces gives the
//    line back byte for byte. With bpe units=bytes this trains a byte-level BPE
//    the way GPT-2 and its successors were trained.
// Marker styles: prefix puts U+2581 before a word that follows a space or starts
// the line; suffix puts it after a word followed by a space or ending the line;
// none adds nothing (BERT); space keeps the pieces' own spaces (regex presets).
// Joining words and turning markers into spaces (then trimming) gives the line
// back exactly, except with style none; with style space, joining alone does.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {
class Regex;
}

namespace tokenlab {

enum class PreTokenizerKind { whitespace, unicode, icu_words, bert, gpt2, cl100k, qwen2, o200k };
enum class MarkerStyle { prefix, suffix, none, space };

/// Whether kind is one of the GPT-style regex presets, whose pieces keep their
/// spaces (marker style space, and only that).
[[nodiscard]] constexpr bool is_regex_kind(PreTokenizerKind kind) noexcept {
  return kind == PreTokenizerKind::gpt2 || kind == PreTokenizerKind::cl100k ||
         kind == PreTokenizerKind::qwen2 || kind == PreTokenizerKind::o200k;
}

/// The pattern of a regex preset kind (regex.hpp's kGpt2Pattern...), exactly as
/// tiktoken and HF tokenizers spell it; empty for the other kinds.
[[nodiscard]] TOKENLAB_API std::string_view regex_pattern(PreTokenizerKind kind) noexcept;

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
  void split_regex(std::string_view line, const WordCallback& on_word) const;
  void emit(std::string_view word, bool space_before, bool space_after, std::string& scratch,
            const WordCallback& on_word) const;

  PreTokenizerOptions options_;
  std::shared_ptr<const Regex> regex_;  // the regex kinds' pattern
};

}  // namespace tokenlab
