#include "tokenlab/bert_characters.hpp"

#include <unicode/uchar.h>

#include <cstdint>

namespace tokenlab::bert {

namespace {

// The unicode_categories tables HF uses know only what Unicode 8.0 assigned.
bool assigned_by_unicode_8(UChar32 c) noexcept {
  UVersionInfo age;
  u_charAge(c, age);
  return age[0] < 8 || (age[0] == 8 && age[1] == 0);
}

bool is_punctuation_category(std::int8_t type) noexcept {
  switch (type) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool is_whitespace(char32_t c) noexcept {
  if (c < 0x80) return c == ' ' || (c >= '\t' && c <= '\r');
  return u_isUWhiteSpace(static_cast<UChar32>(c)) != 0;
}

bool is_control(char32_t c) noexcept {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  if (c < 0x80) return c < 0x20 || c == 0x7F;
  const auto cp = static_cast<UChar32>(c);
  const auto type = u_charType(cp);
  return (type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_PRIVATE_USE_CHAR) &&
         assigned_by_unicode_8(cp);
}

bool is_punctuation(char32_t c) noexcept {
  if (c < 0x80)
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  // Punctuation in Unicode 8.0 that later became a symbol or a mark.
  if (c == 0x166D || c == 0x111C9) return true;
  const auto cp = static_cast<UChar32>(c);
  return is_punctuation_category(u_charType(cp)) && assigned_by_unicode_8(cp);
}

bool is_chinese(char32_t c) noexcept {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t c) noexcept {
  if (c < 0x300) return false;
  switch (c) {
    case 0x1734:  // HANUNOO SIGN PAMUDPOD: Mn in 8.0, Mc since 14.0
      return true;
    case 0x1885:   // MONGOLIAN LETTER ALI GALI BALUDA: Lo in 8.0
    case 0x1886:   // MONGOLIAN LETTER ALI GALI THREE BALUDA: Lo in 8.0
    case 0xA9BD:   // JAVANESE CONSONANT SIGN KERET: Mc in 8.0
    case 0x111C9:  // SHARADA SANDHI MARK: Po in 8.0
      return false;
    default:
      break;
  }
  const auto cp = static_cast<UChar32>(c);
  return u_charType(cp) == U_NON_SPACING_MARK && assigned_by_unicode_8(cp);
}

bool decomposes_for_bert(char32_t c) noexcept {
  // DIVES AKURU VOWEL SIGN O (Unicode 13.0), the one canonical decomposition
  // added after the Unicode version of HF's NFD tables and before ICU 72's.
  return c != 0x11938;
}

}  // namespace tokenlab::bert
