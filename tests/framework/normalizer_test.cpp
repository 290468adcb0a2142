// Normalizer: Unicode form, case and white space, applied to every line.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"

using tokenlab::NormalizationForm;
using tokenlab::Normalizer;
using tokenlab::NormalizerOptions;

TEST_CASE("NFC (the default) composes, NFKC also folds compatibility forms, none keeps bytes",
          "[normalizer]") {
  const std::string decomposed = "cafe\u0301";                             // e + combining acute
  const std::string ligature = "\uFB01ne \uFF28\uFF45\uFF4C\uFF4C\uFF4F";  // "ﬁne Ｈｅｌｌｏ"

  SECTION("nfc") {
    const Normalizer n;
    CHECK(n.options().form == NormalizationForm::nfc);
    CHECK(n.normalize(decomposed) == "caf\u00E9");
    CHECK(n.normalize(ligature) == ligature);
  }
  SECTION("nfkc") {
    const Normalizer n({.form = NormalizationForm::nfkc});
    CHECK(n.normalize(decomposed) == "caf\u00E9");
    CHECK(n.normalize(ligature) == "fine Hello");
  }
  SECTION("none") {
    const Normalizer n({.form = NormalizationForm::none});
    CHECK(n.normalize(decomposed) == decomposed);
    CHECK(n.normalize(ligature) == ligature);
  }
}

TEST_CASE("lowercasing is full Unicode lowercasing, applied after normalization", "[normalizer]") {
  const Normalizer n({.form = NormalizationForm::nfkc, .lowercase = true});
  CHECK(n.normalize("HELLO World") == "hello world");
  CHECK(n.normalize("\u00DCBER \u0394\u0395\u039B\u03A4\u0391 \u0418\u0412\u0410\u041D") ==
        "\u00FCber \u03B4\u03B5\u03BB\u03C4\u03B1 \u0438\u0432\u0430\u043D");
  CHECK(n.normalize("  \uFF28\uFF45\uFF4C\uFF4C\uFF4F   World ") == "hello world");
}

TEST_CASE("white space runs collapse to one space and lines are trimmed", "[normalizer]") {
  const Normalizer n;
  CHECK(n.normalize("  a \t\t b\r\n") == "a b");
  CHECK(n.normalize("x\u00A0\u00A0y\u3000z\u2003") == "x y z");
  CHECK(n.normalize(" \t ") == "");
  CHECK(n.normalize("") == "");
  SECTION("the output buffer is replaced, not appended to") {
    std::string out = "previous";
    n.normalize(" new ", out);
    CHECK(out == "new");
  }
}

namespace {

// White space collapsed the plain way, for comparison: every White_Space
// character (ICU's property) becomes a space, then runs become one and the ends are trimmed.
std::string collapse_reference(std::string text) {
  const icu::UnicodeString wide = icu::UnicodeString::fromUTF8(text);
  icu::UnicodeString spaced;
  for (int32_t i = 0; i < wide.length(); i = wide.moveIndex32(i, 1)) {
    const UChar32 c = wide.char32At(i);
    spaced.append(u_isUWhiteSpace(c) ? UChar32{' '} : c);
  }
  text.clear();
  spaced.toUTF8String(text);
  std::string out;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

TEST_CASE(
    "a line whose white space is already single spaces comes out as it went in, and any "
    "other is collapsed, wherever the spaces fall",
    "[normalizer]") {
  // Lines are checked sixteen bytes at a time, then eight: put each arrangement
  // at every offset across two 16-byte steps, in ASCII lines and in lines with a
  // non-ASCII letter, and check both the copying and the viewing form.
  const Normalizer n({.form = NormalizationForm::none});
  const std::string middle =
      GENERATE(as<std::string>{}, " ", "  ", "\t", " \t", "\u00A0", " \u3000 ", "\u2028", "\u0085",
               "\u00E9 ", " \u00E9", "x", "\x01", "\u00C2\u00A9");
  std::string buffer;
  for (std::size_t before = 0; before < 36; ++before)
    for (std::size_t after = 0; after < 36; after += 1 + after / 12)
      for (const std::string& edge : {std::string(), std::string(" "), std::string("\u00A0")}) {
        const std::string line =
            edge + std::string(before, 'a') + middle + std::string(after, 'b') + edge;
        INFO("line '" << line << "'");
        const std::string expected = collapse_reference(line);
        REQUIRE(n.normalize(line) == expected);
        REQUIRE(n.normalize_view(line, buffer) == expected);
      }
}

TEST_CASE("the ASCII fast path gives exactly what the ICU path gives", "[normalizer]") {
  // Appending one non-ASCII letter sends the same text through ICU; the ASCII part
  // of the result must not change.
  const bool lowercase = GENERATE(false, true);
  const auto form =
      GENERATE(NormalizationForm::nfc, NormalizationForm::nfkc, NormalizationForm::none);
  const Normalizer n({.form = form, .lowercase = lowercase});
  const std::string text =
      GENERATE(as<std::string>{}, "Hello, World!", "  leading and\ttabbed\vtext",
               "MiXeD CaSe 123 #$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "form\ffeed\rcarriage  return",
               "\x01\x1F control");
  INFO("text '" << text << "', form " << static_cast<int>(form) << ", lowercase " << lowercase);
  const std::string accent = "\u00E9";
  CHECK(n.normalize(text + accent) == n.normalize(text) + accent);
}

namespace {

// The normalization ICU gives, then white space collapsed: what normalize() does
// without lowercasing, by the long way.
std::string icu_reference(NormalizationForm form, const std::string& line) {
  if (form == NormalizationForm::none) return collapse_reference(line);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* icu = form == NormalizationForm::nfc
                                    ? icu::Normalizer2::getNFCInstance(status)
                                    : icu::Normalizer2::getNFKCInstance(status);
  std::string out;
  icu->normalize(icu::UnicodeString::fromUTF8(line), status).toUTF8String(out);
  REQUIRE(U_SUCCESS(status));
  return collapse_reference(out);
}

std::string utf8_of(UChar32 c) {
  std::string out;
  icu::UnicodeString(c).toUTF8String(out);
  return out;
}

}  // namespace

TEST_CASE(
    "every character of the BMP normalizes as ICU says, alone, after a letter and before a "
    "combining mark, through the one-pass check and the full path alike",
    "[normalizer]") {
  // Lines whose characters are all inert skip ICU: a character wrongly taken for
  // inert (a compatibility form under NFKC, a mark that reorders, a Hangul jamo
  // that composes, white space) would come out unnormalized.
  const auto form =
      GENERATE(NormalizationForm::nfc, NormalizationForm::nfkc, NormalizationForm::none);
  const Normalizer n({.form = form});
  std::size_t mismatches = 0;
  std::string buffer;
  for (UChar32 c = 0x80; c < 0x10000; ++c) {
    if (U16_IS_SURROGATE(c)) continue;
    const std::string ch = utf8_of(c);
    for (const std::string& line : {ch, "ab" + ch + "cdefghij", "\u1100" + ch, ch + "\u0301",
                                    ch + "\u1161", "e" + ch + "x", "\u0323" + ch}) {
      const std::string expected = icu_reference(form, line);
      if (n.normalize(line) != expected || n.normalize_view(line, buffer) != expected) {
        if (++mismatches <= 10) FAIL_CHECK("U+" << std::hex << c << " in '" << line << "'");
      }
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("normalize_view hands back the line itself when normalizing leaves it alone",
          "[normalizer]") {
  const Normalizer n;
  std::string buffer;
  const std::string plain =
      "Caf\u00E9 \u2013 \u0928\u092E\u0938\u094D\u0924\u0947 \u05D0\u05B8\u05BC \u65E5\u672C";
  const std::string_view same = n.normalize_view(plain, buffer);
  CHECK(same.data() == plain.data());
  CHECK(same == plain);
  // A decomposed accent and a double space are rewritten into buffer.
  const std::string decomposed = "Cafe\u0301  ok";
  const std::string_view changed = n.normalize_view(decomposed, buffer);
  CHECK(changed.data() == buffer.data());
  CHECK(changed == "Caf\u00E9 ok");
}

TEST_CASE("normalizer settings round-trip through their stored text form", "[normalizer]") {
  const NormalizerOptions options{.form = NormalizationForm::nfkc, .lowercase = true};
  CHECK(options.to_string() == "nfkc+lowercase");
  CHECK(NormalizerOptions::parse(options.to_string()) == options);
  CHECK(NormalizerOptions::parse("nfc") == NormalizerOptions{});
  CHECK_THROWS_AS(NormalizerOptions::parse("nfd"), tokenlab::Error);
  CHECK_THROWS_AS(NormalizerOptions::parse("nfc+shout"), tokenlab::Error);
}

TEST_CASE("keep_whitespace leaves spaces, tabs and the line's ends as they are", "[normalizer]") {
  const Normalizer keep({.form = NormalizationForm::nfc, .keep_whitespace = true});
  CHECK(keep.normalize("  a \t b  ") == "  a \t b  ");
  // NFC still applies: e + U+0301 composes; U+00A0 is kept, not turned into a space.
  CHECK(keep.normalize(" e\u0301\u00a0 ") == " \u00e9\u00a0 ");
  const Normalizer lower(
      {.form = NormalizationForm::nfkc, .lowercase = true, .keep_whitespace = true});
  CHECK(lower.normalize(" Hello\tWORLD ") == " hello\tworld ");
  CHECK(lower.normalize(" ＨＩ\u00a0") == " hi ");  // NFKC maps U+00A0 to a space
  CHECK(NormalizerOptions{.keep_whitespace = true}.to_string() == "nfc+keep-whitespace");
  CHECK(NormalizerOptions::parse("nfkc+lowercase+keep-whitespace").keep_whitespace);
  CHECK_THROWS_AS(NormalizerOptions::parse("bert+keep-whitespace"), tokenlab::Error);
}
