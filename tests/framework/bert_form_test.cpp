// The `bert` form character by character against ICU over the whole line
// (framework/text/src/bert_form.hpp): the fast path must give the definition's
// bytes for every character it answers for, in any neighbourhood.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "bert_form.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/utf8.hpp"

using tokenlab::detail::bert_form_by_character;
using tokenlab::detail::bert_form_by_icu;

namespace {

std::string utf8_of(char32_t c) {
  std::string s;
  tokenlab::utf8::append(s, c);
  return s;
}

struct Settings {
  bool strip_accents;
  bool lowercase;
};
constexpr Settings kSettings[] = {{true, true}, {true, false}, {false, true}};

}  // namespace

TEST_CASE("every character's form by table is ICU's, beside letters and stripped marks",
          "[normalizer][bert]") {
  // Neighbours that decomposition could reorder against: a starter, marks of
  // combining class 230 and 220 (U+0301, U+0316), Devanagari's nukta (7) and
  // virama (9), and a precomposed letter.
  const std::vector<std::string> before = {"A", utf8_of(0x301), utf8_of(0x93C), "\xC3\x89"};
  const std::vector<std::string> after = {"b", utf8_of(0x316), utf8_of(0x94D), utf8_of(0x301)};
  for (const Settings settings : kSettings) {
    std::size_t by_table = 0;
    std::size_t whole_line = 0;
    for (char32_t c = 0x80; c <= 0x10FFFF; c += (c < 0x30000 ? 1 : 61)) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const std::string character = utf8_of(c);
      for (std::size_t k = 0; k < before.size(); ++k) {
        const std::string line = before[k] + character + after[k];
        std::string form;
        if (!bert_form_by_character(line, settings.strip_accents, settings.lowercase, form)) {
          ++whole_line;
          continue;
        }
        ++by_table;
        const std::string expected =
            bert_form_by_icu(line, settings.strip_accents, settings.lowercase);
        if (form != expected) {
          INFO("U+" << std::hex << static_cast<std::uint32_t>(c) << " after context " << k);
          CHECK(form == expected);
        }
      }
    }
    // Nearly every character is answered by the table; only those whose
    // decomposition keeps a reorderable mark (and U+11938) go to ICU.
    CHECK(by_table > 50 * whole_line);
  }
}

TEST_CASE("no character the table answers for keeps a mark that decomposition could move",
          "[normalizer][bert]") {
  // The neighbourhoods above hold only marks that stripping removes, since a
  // line with a kept one goes to ICU; this is the rule itself, by ICU's NFD:
  // what the table answers for under stripping decomposes to starters and
  // stripped marks only. (U+1D15E, a half note, decomposes to a spacing mark
  // of class 216, U+1D165: the table must leave it to ICU.)
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  REQUIRE(U_SUCCESS(status));
  std::size_t refused = 0;
  for (char32_t c = 0x80; c <= 0x10FFFF; c += (c < 0x30000 ? 1 : 61)) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string form;
    if (!bert_form_by_character(utf8_of(c), true, true, form)) {
      ++refused;
      continue;
    }
    const icu::UnicodeString decomposed =
        nfd->normalize(icu::UnicodeString(static_cast<UChar32>(c)), status);
    for (int32_t i = 0; i < decomposed.length();) {
      const UChar32 k = decomposed.char32At(i);
      if (u_getCombiningClass(k) != 0 &&
          !tokenlab::bert::is_nonspacing_mark(static_cast<char32_t>(k))) {
        INFO("U+" << std::hex << static_cast<std::uint32_t>(c) << " keeps U+"
                  << static_cast<std::uint32_t>(k));
        CHECK(false);
      }
      i += U16_LENGTH(k);
    }
  }
  std::string form;
  CHECK_FALSE(bert_form_by_character(utf8_of(0x1D15E), true, true, form));
  CHECK(refused > 0);
}

TEST_CASE("lines of real scripts come out of the table as ICU makes them", "[normalizer][bert]") {
  const std::vector<std::string> lines = {
      "नमस्ते दुनिया, यह एक परीक्षण है।",               // Hindi: virama, nukta-less, danda
      "Ελληνικά ΚΕΦΑΛΑΊΑ και τόνοι ΐ",             // Greek capitals and tonos
      "Ünïcödé Çafé naïve résumé İstanbul ǅ ß ẞ",  // Latin: U+0130 lowercases to two
      "日本語のテキスト、ｶﾀｶﾅ と 한국어 문장",     // kana, half-width, Hangul syllables
      "עִבְרִית וְנִקּוּד · العَرَبِيَّة",                     // Hebrew points, Arabic harakat
      "ผสมภาษาไทย ทดสอบ ๑๒๓",                      // Thai marks
  };
  for (const Settings settings : kSettings)
    for (const std::string& line : lines) {
      std::string form;
      REQUIRE(bert_form_by_character(line, settings.strip_accents, settings.lowercase, form));
      CHECK(form == bert_form_by_icu(line, settings.strip_accents, settings.lowercase));
    }
}

TEST_CASE("a line the table cannot answer for is left to ICU", "[normalizer][bert]") {
  std::string form;
  // Not valid UTF-8: a lone continuation byte.
  CHECK_FALSE(
      bert_form_by_character("ab\x80"
                             "cd",
                             true, true, form));
  // U+1D165, a spacing mark of combining class 216: stripping keeps it, so
  // decomposition could move it past a neighbour's mark.
  form.clear();
  CHECK_FALSE(bert_form_by_character("x" + utf8_of(0x1D165) + utf8_of(0x301), true, true, form));
}
