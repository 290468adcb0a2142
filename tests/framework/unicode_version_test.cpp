// The two Unicode versions a tokenizer's classes can follow (unicode_version.hpp):
// ICU's own data, which is Unicode 15.0 in Debian 12's ICU 72 (tiktoken's), and
// Unicode 16.0 (HF tokenizers 0.23's); and Regex with each, through its
// hand-written preset matchers and through ICU. The characters are from 15.1
// and 16.0: Ol Onal (U+1E5D0 a letter, U+1E5F1 a digit), Cyrillic TJE
// (U+1C89, U+1C8A), ARABIC PEPET (U+0897, a mark), the splatter emoji U+1FADF,
// and Ahom's U+1171E, the one character 16.0 moves between categories (Mn to Mc).
#include <unicode/uchar.h>
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "common/icu_version.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/unicode_version.hpp"

using tokenlab::general_category;
using tokenlab::Regex;
using tokenlab::UnicodeVersion;
using tokenlab::test::icu_is_unicode_15;

namespace {

constexpr auto kLibrary = UnicodeVersion::library;
constexpr auto kV16 = UnicodeVersion::v16_0;

std::vector<std::string> matches(const Regex& regex, std::string_view text) {
  std::vector<std::string> out;
  regex.for_each_match(text, [&](std::size_t start, std::size_t end) {
    out.emplace_back(text.substr(start, end - start));
  });
  return out;
}

using Matches = std::vector<std::string>;

}  // namespace

TEST_CASE("Unicode 16.0 gives the categories the Unicode Character Database gives", "[unicode]") {
  CHECK(general_category(U'\U0001E5D0', kV16) == U_OTHER_LETTER);
  CHECK(general_category(U'\U0001E5F1', kV16) == U_DECIMAL_DIGIT_NUMBER);
  CHECK(general_category(U'\u1C89', kV16) == U_UPPERCASE_LETTER);
  CHECK(general_category(U'\u1C8A', kV16) == U_LOWERCASE_LETTER);
  CHECK(general_category(U'\u0897', kV16) == U_NON_SPACING_MARK);
  CHECK(general_category(U'\U0001FADF', kV16) == U_OTHER_SYMBOL);
  CHECK(general_category(U'\U0001171E', kV16) == U_COMBINING_SPACING_MARK);
  // Combining Latin small letters became Alphabetic in 16.0; still marks.
  CHECK(tokenlab::is_alphabetic(U'\u0363', kV16));
  CHECK(general_category(U'\u0363', kV16) == U_NON_SPACING_MARK);
  // What 16.0 did not change reads as ICU reads it.
  for (const char32_t c : {U'a', U'7', U'\u00E9', U'\u4E2D', U'\U0001F642', U'\U000E0001'}) {
    CAPTURE(static_cast<unsigned>(c));
    CHECK(general_category(c, kV16) == general_category(c, kLibrary));
    CHECK(tokenlab::is_alphabetic(c, kV16) == tokenlab::is_alphabetic(c, kLibrary));
  }
  CHECK(tokenlab::describe(kV16) == "Unicode 16.0");
}

TEST_CASE("the library version is ICU's own data", "[unicode]") {
  for (const char32_t c : {U'a', U'\u0897', U'\U0001E5D0', U'\U0001171E', U'\U0010FFFF'})
    CHECK(general_category(c, kLibrary) == u_charType(static_cast<UChar32>(c)));
  if (!icu_is_unicode_15()) return;  // a newer ICU has 16.0's categories itself
  CHECK(general_category(U'\U0001E5D0', kLibrary) == U_UNASSIGNED);
  CHECK(general_category(U'\U0001171E', kLibrary) == U_NON_SPACING_MARK);
  CHECK_FALSE(tokenlab::is_alphabetic(U'\u0363', kLibrary));
}

TEST_CASE("the 16.0 table is what changed from ICU 72's 15.0, in order, without overlaps",
          "[unicode]") {
  std::size_t count = 0;
  const tokenlab::UnicodeChange* rows = tokenlab::unicode_16_changes(count);
  REQUIRE(count == 88);  // tools/scripts/make-unicode-16-table: 5,846 code points
  std::size_t code_points = 0;
  for (std::size_t i = 0; i < count; ++i) {
    CAPTURE(i, static_cast<unsigned>(rows[i].first));
    CHECK(rows[i].first <= rows[i].last);
    if (i > 0) CHECK(rows[i - 1].last < rows[i].first);
    CHECK((rows[i].category_before != rows[i].category_after ||
           rows[i].alphabetic_before != rows[i].alphabetic_after));
    code_points += rows[i].last - rows[i].first + 1;
    if (!icu_is_unicode_15()) continue;
    // Each row's "before" is ICU 72's, at both ends of the row.
    for (const char32_t c : {rows[i].first, rows[i].last}) {
      CHECK(u_charType(static_cast<UChar32>(c)) == rows[i].category_before);
      CHECK((u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC) != 0) ==
            rows[i].alphabetic_before);
      CHECK(general_category(c, kV16) == rows[i].category_after);
    }
  }
  CHECK(code_points == 5846);
}

TEST_CASE("a preset pattern splits by its Unicode version's classes", "[unicode][regex]") {
  // Ol Onal's letter between Latin letters: a letter to 16.0, so one word; to
  // ICU 72 an unassigned character, which o200k lets lead the next word.
  const std::string text = "a\U0001E5D0b 1\U0001E5F1\U0001E5F2\U0001E5F3";
  const Regex o200k_16(std::string(tokenlab::kO200kPattern), kV16);
  CHECK(matches(o200k_16, text) ==
        Matches{"a\U0001E5D0b", " ", "1\U0001E5F1\U0001E5F2", "\U0001E5F3"});
  const Regex cl100k_16(std::string(tokenlab::kCl100kPattern), kV16);
  CHECK(matches(cl100k_16, text) == matches(o200k_16, text));
  if (!icu_is_unicode_15()) return;
  const Regex o200k(std::string(tokenlab::kO200kPattern), kLibrary);
  CHECK(matches(o200k, text) ==
        Matches{"a", "\U0001E5D0b", " ", "1", "\U0001E5F1\U0001E5F2\U0001E5F3"});
}

TEST_CASE("a pattern ICU runs is rewritten to Unicode 16.0's classes", "[unicode][regex]") {
  // Not presets: ICU runs each, its classes rewritten (to_icu_syntax). The
  // expected pieces are HF tokenizers 0.23.2's, a Split of each (Isolated).
  const std::string mixed = "a\u1C89\u1C8Ab 1\U0001E5F1 \U0001FADF!";
  const Regex letters_numbers(R"(\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+)", kV16);
  CHECK(matches(letters_numbers, mixed) == Matches{"a\u1C89\u1C8Ab", "1\U0001E5F1", "\U0001FADF!"});
  const Regex word(R"(\w+)", kV16);
  CHECK(matches(word, "a\u0897b.\U0001E5D0!") == Matches{"a\u0897b", "\U0001E5D0"});
  // The complements, a digit class, a long name, and classes inside brackets.
  CHECK(matches(Regex(R"(\P{L}+)", kV16), "x\U0001E5D0\u2427y") == Matches{"\u2427"});
  CHECK(matches(Regex(R"(\d+)", kV16), "x1\U0001E5F19") == Matches{"1\U0001E5F19"});
  CHECK(matches(Regex(R"(\D+)", kV16), "x1\U0001E5F19") == Matches{"x"});
  CHECK(matches(Regex(R"(\W+)", kV16), "a\u0897b.\U0001E5D0!") == Matches{".", "!"});
  CHECK(matches(Regex(R"(\p{Letter}+)", kV16), "-\U0001E5D0\u1C89-") ==
        Matches{"\U0001E5D0\u1C89"});
  CHECK(matches(Regex(R"([^\p{L}\p{M}]+)", kV16), "x\u0897\U0001E5D0.") == Matches{"."});
  // The one character 16.0 takes out of a class: Ahom's sign, Mn to Mc.
  CHECK(matches(Regex(R"(\p{Mn}+)", kV16), "\u0301\U0001171E").size() == 1);
  CHECK(matches(Regex(R"(\p{Mn}+)", kV16), "\u0301\U0001171E")[0] == "\u0301");
  CHECK(matches(Regex(R"(\p{Mc}+)", kV16), "\u0301\U0001171E") == Matches{"\U0001171E"});
  CHECK(matches(Regex(R"(\P{Mn}+)", kV16), "\u0301\U0001171E") == Matches{"\U0001171E"});
  if (!icu_is_unicode_15()) return;
  CHECK(matches(Regex(R"(\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+)", kLibrary), mixed) ==
        Matches{"a", "\u1C89\u1C8A", "b", "1", "\U0001E5F1", "\U0001FADF!"});
  CHECK(matches(Regex(R"(\w+)", kLibrary), "a\u0897b.\U0001E5D0!") == Matches{"a", "b"});
}

TEST_CASE("an error in a rewritten pattern is placed in the pattern as written",
          "[unicode][regex]") {
  // ICU has no one-letter \pM (nor has Oniguruma); it stops at the 11th
  // character, and the rewritten \p{L} before it (200 bytes) must not move that.
  try {
    const Regex bad(R"(\p{L}+|\pM+)", kV16);
    FAIL("expected an error");
  } catch (const tokenlab::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("at offset 10"));
    CHECK_THAT(e.what(), !Catch::Contains("x{"));
  }
}
