// File: words_inert.hpp
// Whether normalizing a line can change the words a splitter that cuts at
// every White_Space character finds in it, decided one character at a time, so
// that the check can run inside the splitter's own loop (counting) or alone
// (Normalizer::words_unchanged).
//
// A line passes when each character is left alone by the form wherever it
// stands (quick check Yes), or is a quick check Maybe right after a starter
// that has no decomposition and makes no composite with it, and the combining
// marks of each run come in canonical order: UAX #15's quick check, which then
// says the line is normalized, except for its white space. (A starter that
// decomposes, such as U+00C0, can bring a mark that a following Maybe mark is
// reordered before and then composes in its place.) White space passes whatever its
// kind: collapsing it cannot change a word when every kind of it cuts words.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenlab/normalizer.hpp"

namespace tokenlab::detail {

inline constexpr std::uint16_t kWordInert = 0x8000;   // quick check Yes (any, for none)
inline constexpr std::uint16_t kWordMaybe = 0x4000;   // quick check Maybe, no decomposition
inline constexpr std::uint16_t kDecomposes = 0x2000;  // a canonical decomposition
// The low byte: the canonical combining class.

/// For each BMP code point, kWordInert or kWordMaybe or neither, and its
/// combining class; null for bert. Made from ICU on first use (normalizer.cpp).
const std::uint16_t* word_inert_table(NormalizationForm form);

/// Whether a quick check Maybe character c stays as it is after last, a
/// starter without a decomposition: when they make no composite.
bool stays_after(char32_t last, char32_t c) noexcept;

/// The check along one line: after_ascii() for each ASCII run (its last byte),
/// character() for each other character in order. Start a new one per line.
class WordsInertCheck {
 public:
  explicit WordsInertCheck(NormalizationForm form) noexcept
      : form_(form), beyond_bmp_(form == NormalizationForm::none) {}

  void after_ascii(unsigned char last_byte) noexcept {
    last_ = last_byte;
    last_combining_class_ = 0;
    last_decomposes_ = false;
  }

  /// False if the line might change at this character: a malformed sequence
  /// (length 0), a character the form changes, or marks out of order.
  bool character(char32_t c, std::size_t length) noexcept {
    if (length == 0) return false;
    if (length == 4) {  // past the BMP: only form none leaves every one alone
      last_ = c;
      last_combining_class_ = 0;
      last_decomposes_ = true;
      return beyond_bmp_;
    }
    if (table_ == nullptr) table_ = word_inert_table(form_);
    const std::uint16_t entry = table_[c];
    if ((entry & kWordInert) == 0 &&
        ((entry & kWordMaybe) == 0 || last_ == 0 || last_combining_class_ != 0 ||
         last_decomposes_ || !stays_after(last_, c)))
      return false;
    const auto combining_class = static_cast<std::uint16_t>(entry & 0xFF);
    if (combining_class != 0 && combining_class < last_combining_class_) return false;
    last_ = c;
    last_combining_class_ = combining_class;
    last_decomposes_ = (entry & kDecomposes) != 0;
    return true;
  }

 private:
  NormalizationForm form_;
  bool beyond_bmp_;
  const std::uint16_t* table_ = nullptr;  // fetched at the first non-ASCII character
  char32_t last_ = 0;                     // the character before; 0 at the line's start
  std::uint16_t last_combining_class_ = 0;
  bool last_decomposes_ = false;
};

}  // namespace tokenlab::detail
