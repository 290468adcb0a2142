// File: unicode_words.hpp
// The unicode pre-tokenizer's words as one regular expression, for the
// tokenizer.json export of the default pipeline (HF's Split pre-tokenizer runs
// it on Oniguruma, tokenlab's reader on ICU).
//
//   const std::string& p = unicode_words_pattern();
//   // on " Hello, 42x" its matches are " Hello" "," " 42" "x"
#pragma once

#include <string>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// The words of the unicode pre-tokenizer as one regular expression, in the
/// syntax Oniguruma (HF tokenizers' Split) and ICU (tokenlab's Regex) share:
/// each match is one word with the single space before it, if any, on a
/// normalized line (white space collapsed to single spaces and trimmed), and
/// the matches cover every character. With a space put before the line and
/// each space turned into U+2581, the matches are exactly the words that
/// PreTokenizer::split gives with the prefix marker; this is how the unicode pre-tokenizer
/// exports to HF (Prepend, Split, Metaspace). It names Unicode properties, not
/// code points: one alternative per script that has letters (Han, Hiragana and
/// Katakana as one), each a letter of the script followed by letters of the
/// same script and marks; a run of digits, or of punctuation, with their
/// marks; or a run of marks where a word starts. Built from ICU once.
///
/// Example: on " Hello, 42x" the matches are " Hello" "," " 42" "x".
[[nodiscard]] TOKENLAB_API const std::string& unicode_words_pattern();

}  // namespace tokenlab
