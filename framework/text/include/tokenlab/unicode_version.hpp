// File: unicode_version.hpp
// Which version of the Unicode Character Database a tokenizer's character
// classes follow. The references disagree: HF tokenizers 0.23 classifies by
// Unicode 16.0 (its regex engine, Oniguruma, and Rust's char), while tiktoken
// (fancy-regex) and tokenlab's ICU 72 (Debian 12) are on 15.0. A character
// assigned in 15.1 or 16.0 (CJK Extension I, Garay, Tulu-Tigalari, new emoji and
// digits: 5,846 code points in 88 ranges) is unassigned to one and a letter,
// mark, number, punctuation or symbol to the other, so the same pattern splits
// it differently. A tokenizer.json is read with Unicode 16.0 and a tiktoken file
// with ICU's, as each reference does.
//
//   general_category(U'\U0001E5D0', UnicodeVersion::v16_0)    U_OTHER_LETTER (Ol Onal)
//   general_category(U'\U0001E5D0', UnicodeVersion::library)  U_UNASSIGNED with ICU 72
//
// The 16.0 data is a committed table of what changed since 15.0
// (unicode_16_changes.inc, made by tools/scripts/make-unicode-16-table), applied
// only where ICU still gives the 15.0 value: with an ICU already on 16.0 both
// versions read the same.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class UnicodeVersion : std::uint8_t {
  library,  ///< the ICU library's own data (Unicode 15.0 with ICU 72): tiktoken's classes
  v16_0,    ///< Unicode 16.0: HF tokenizers 0.23's classes
};

/// "ICU 72 (Unicode 15.0)" or "Unicode 16.0", for messages and reports.
[[nodiscard]] TOKENLAB_API std::string_view describe(UnicodeVersion version);

/// The general category under version, as ICU's UCharCategory value (u_charType).
[[nodiscard]] TOKENLAB_API std::int8_t general_category(char32_t c,
                                                        UnicodeVersion version) noexcept;
/// U_MASK of general_category, to test against ICU's U_GC_*_MASK values.
[[nodiscard]] TOKENLAB_API std::uint32_t general_category_mask(char32_t c,
                                                               UnicodeVersion version) noexcept;
/// The Alphabetic property under version.
[[nodiscard]] TOKENLAB_API bool is_alphabetic(char32_t c, UnicodeVersion version) noexcept;

/// One range of code points whose category or Alphabetic property version v16_0
/// changes from ICU's 15.0 data (the table's rows, for tests and the ICU
/// pattern rewriting).
struct UnicodeChange {
  char32_t first;
  char32_t last;
  std::int8_t category_before;
  std::int8_t category_after;
  bool alphabetic_before;
  bool alphabetic_after;
};
/// The table's rows, in code point order, not overlapping.
[[nodiscard]] TOKENLAB_API const UnicodeChange* unicode_16_changes(std::size_t& count) noexcept;

}  // namespace tokenlab
