// PreTokenizer: splitting normalized lines into words that carry the marker.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include "simple_split.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/utf8.hpp"

using tokenlab::MarkerStyle;
using tokenlab::PreTokenizer;
using tokenlab::PreTokenizerKind;
using tokenlab::PreTokenizerOptions;
using Words = std::vector<std::string>;

namespace {

const std::string M = "\u2581";  // the boundary marker

PreTokenizer unicode_prefix() {
  return PreTokenizer({.kind = PreTokenizerKind::unicode, .marker = MarkerStyle::prefix});
}

std::string joined(const Words& words) {
  std::string out;
  for (const auto& w : words) out += w;
  return out;
}

// The unicode pre-tokenizer's rules, one code point at a time and straight from
// ICU, for checking the splitter, which takes ASCII 64 bytes at a time.
enum class Kind { space, letter, digit, punct, mark };
struct Class {
  Kind kind;
  int script;
};

Class reference_class(UChar32 c) {
  if (u_isUWhiteSpace(c)) return {Kind::space, -1};
  switch (u_charType(c)) {
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
    case U_FORMAT_CHAR:
      return {Kind::mark, -1};
    case U_DECIMAL_DIGIT_NUMBER:
      return {Kind::digit, -1};
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER: {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode script = uscript_getScript(c, &status);
      if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) return {Kind::mark, -1};
      if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ||
          script == USCRIPT_KATAKANA_OR_HIRAGANA)
        return {Kind::letter, USCRIPT_HAN};
      return {Kind::letter, script};
    }
    default:
      return {Kind::punct, -1};
  }
}

// A word continues while characters keep its class (and a letter its script);
// marks continue any word and start a letter word of their own; white space
// ends words. Markers go where white space or the line's edge is.
Words reference_split(const std::string& line, MarkerStyle marker) {
  struct Piece {
    std::size_t begin, end;
    bool space_before, space_after;
  };
  std::vector<Piece> pieces;
  bool in_word = false;
  bool space_before = true;
  Class word{Kind::space, -1};
  std::size_t start = 0;
  const auto end_word = [&](std::size_t at, bool space_after) {
    if (in_word) pieces.push_back({start, at, space_before, space_after});
    in_word = false;
    space_before = space_after;
  };
  const auto length = static_cast<std::int32_t>(line.size());
  for (std::int32_t i = 0; i < length;) {
    const auto at = static_cast<std::size_t>(i);
    UChar32 c = 0;
    U8_NEXT(line.data(), i, length, c);
    const Class cls = reference_class(c);
    if (cls.kind == Kind::space) {
      end_word(at, true);
      continue;
    }
    if (in_word && cls.kind != Kind::mark &&
        (cls.kind != word.kind || (cls.kind == Kind::letter && cls.script != word.script)))
      end_word(at, false);
    if (!in_word) {
      in_word = true;
      start = at;
      word = cls.kind == Kind::mark ? Class{Kind::letter, cls.script} : cls;
    }
  }
  end_word(line.size(), true);
  Words words;
  for (const Piece& p : pieces) {
    std::string w = line.substr(p.begin, p.end - p.begin);
    if (marker == MarkerStyle::prefix && p.space_before) w = M + w;
    if (marker == MarkerStyle::suffix && p.space_after) w += M;
    words.push_back(w);
  }
  return words;
}
}  // namespace

TEST_CASE("the whitespace pre-tokenizer splits at spaces only", "[pre_tokenizer]") {
  const PreTokenizer p({.kind = PreTokenizerKind::whitespace});
  CHECK(p.split("Hello, world 42x") == Words{M + "Hello,", M + "world", M + "42x"});
  CHECK(p.split("") == Words{});
}

TEST_CASE("the unicode pre-tokenizer splits at spaces, punctuation, scripts and digits",
          "[pre_tokenizer]") {
  const PreTokenizer p = unicode_prefix();
  SECTION("the documented example") {
    CHECK(p.split("Hello, world 42x") == Words{M + "Hello", ",", M + "world", M + "42", "x"});
  }
  SECTION("a run of punctuation is one word") {
    CHECK(p.split("wait...! no") == Words{M + "wait", "...!", M + "no"});
  }
  SECTION("digit boundaries") {
    CHECK(p.split("abc123def") == Words{M + "abc", "123", "def"});
    CHECK(p.split("2024-01-05") == Words{M + "2024", "-", "01", "-", "05"});
    CHECK(p.split("\u0967\u0968\u0969 x") ==
          Words{M + "\u0967\u0968\u0969", M + "x"});  // Devanagari digits
  }
  SECTION("a change of script inside a run of letters: Latin then Cyrillic") {
    CHECK(p.split("abc\u0430\u0431\u0432") == Words{M + "abc", "\u0430\u0431\u0432"});
  }
  SECTION("Japanese: Kanji, Hiragana and Katakana count as one script, as in SentencePiece") {
    // 日本語 (Han) の (Hiragana) テキスト (Katakana): Japanese writes one word across
    // the three (書いた), so they are not boundaries; punctuation still is.
    CHECK(p.split("\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8\u3002abc") ==
          Words{M + "\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8", "\u3002", "abc"});
  }
  SECTION("the prolonged sound mark (script Common) stays inside its Katakana word") {
    CHECK(p.split("\u30E9\u30FC\u30E1\u30F3") ==
          Words{M + "\u30E9\u30FC\u30E1\u30F3"});  // ラーメン
  }
  SECTION("combining marks stay with their base character") {
    CHECK(p.split("cafe\u0301 ok") == Words{M + "cafe\u0301", M + "ok"});
    // नमस्ते: vowel signs and the virama are marks
    CHECK(p.split("\u0928\u092E\u0938\u094D\u0924\u0947") ==
          Words{M + "\u0928\u092E\u0938\u094D\u0924\u0947"});
  }
  SECTION("a zero width joiner keeps an emoji family together") {
    const std::string family = "\U0001F468\u200D\U0001F469\u200D\U0001F467";
    CHECK(p.split("a " + family) == Words{M + "a", M + family});
  }
}

TEST_CASE("the unicode pre-tokenizer agrees with the per-character rules on mixed text",
          "[pre_tokenizer]") {
  // Pieces from every class, ASCII and not, in random lines of up to 300 bytes,
  // so that runs of every kind cross the splitter's 64-byte chunks and lines end
  // inside them.
  const std::vector<std::string> pieces = {"a",
                                           "Zq",
                                           "hello",
                                           "abcdefghijklmnopqrstuvwxyz",
                                           "7",
                                           "2024",
                                           "0123456789012",
                                           ".",
                                           ",",
                                           "...",
                                           "(",
                                           "-",
                                           "@",
                                           "\x7f",
                                           "\x01",
                                           " ",
                                           "  ",
                                           "\t",
                                           "\r",
                                           "\v",
                                           "\f",
                                           "\u00e9",
                                           "\u00c0",
                                           "\u03b1\u03b2",
                                           "\u0430\u0431",
                                           "\u0301",
                                           "\u200d",
                                           "\u0928\u092e",
                                           "\u094d",
                                           "\u0967\u0968",
                                           "\u65e5\u672c",
                                           "\u306e",
                                           "\u30c6",
                                           "\u30fc",
                                           "\u00a0",
                                           "\u3000",
                                           "\u2028",
                                           "\u2581",
                                           "\u2014",
                                           "\u00b2",
                                           "\u2160",
                                           "\U0001F600",
                                           "\U00020000",
                                           "\uff10"};
  std::uint64_t state = 2026;
  for (int round = 0; round < 3000; ++round) {
    std::string line;
    const auto target = tokenlab::next_random(state) % 300;
    while (line.size() < target) {
      const auto pick = tokenlab::next_random(state) % (pieces.size() + 20);
      // Mostly ASCII letters and spaces, as in real text.
      line += pick < pieces.size() ? pieces[pick] : (pick % 3 == 0 ? " " : "word");
    }
    for (const MarkerStyle marker : {MarkerStyle::prefix, MarkerStyle::suffix, MarkerStyle::none}) {
      const PreTokenizer p({.kind = PreTokenizerKind::unicode, .marker = marker});
      INFO("line '" << line << "'");
      REQUIRE(p.split(line) == reference_split(line, marker));
    }
  }
}

TEST_CASE("the 64-byte ASCII classifier gives what the byte-at-a-time one gives",
          "[pre_tokenizer]") {
  // Every byte value at every position, then random chunks: the SSE2 form (where
  // it is built) and the scalar one must agree on all four masks.
  using tokenlab::detail::classify_64_bytes;
  using tokenlab::detail::classify_64_bytes_scalar;
  const auto same = [](const char* p) {
    std::uint64_t fast_high = 0;
    std::uint64_t slow_high = 0;
    const auto fast = classify_64_bytes(p, fast_high);
    const auto slow = classify_64_bytes_scalar(p, slow_high);
    return fast.letters == slow.letters && fast.digits == slow.digits &&
           fast.spaces == slow.spaces && fast_high == slow_high;
  };
  char chunk[64];
  for (int byte = 0; byte < 256; ++byte)
    for (int at = 0; at < 64; ++at) {
      std::fill(chunk, chunk + 64, 'a');
      chunk[at] = static_cast<char>(byte);
      INFO("byte " << byte << " at " << at);
      REQUIRE(same(chunk));
    }
  std::uint64_t state = 64;
  for (int round = 0; round < 2000; ++round) {
    for (char& c : chunk) c = static_cast<char>(tokenlab::next_random(state) & 0xFF);
    REQUIRE(same(chunk));
  }
}

TEST_CASE("the unicode pre-tokenizer classifies every BMP character as ICU does",
          "[pre_tokenizer]") {
  // The splitter looks BMP characters up in a table made from ICU; each one is
  // tried between Latin letters, after a space before a digit, and between
  // Devanagari letters, where its class and its script both decide the words.
  const PreTokenizer p({.kind = PreTokenizerKind::unicode, .marker = MarkerStyle::prefix});
  std::size_t checked = 0;
  for (UChar32 c = 0x80; c < 0x10000; ++c) {
    if (c >= 0xD800 && c < 0xE000) continue;  // surrogates are not characters
    std::string ch;
    tokenlab::utf8::append(ch, static_cast<char32_t>(c));
    const std::string line = "x" + ch + "y " + ch + "7 \u0915" + ch + "\u0916";
    INFO("U+" << std::hex << c);
    const Words got = p.split(line);
    if (got != reference_split(line, MarkerStyle::prefix)) {
      CHECK(got == reference_split(line, MarkerStyle::prefix));
      break;  // one failure says it; 60,000 would bury it
    }
    ++checked;
  }
  CHECK(checked == 0x10000 - 0x80 - 0x800);
}

TEST_CASE("the icu-words pre-tokenizer uses UAX #29 word breaks and drops spaces",
          "[pre_tokenizer]") {
  const PreTokenizer p({.kind = PreTokenizerKind::icu_words});
  CHECK(p.split("Hello, world") == Words{M + "Hello", ",", M + "world"});
  CHECK(p.split("don't stop") == Words{M + "don't", M + "stop"});
  SECTION("Thai, written without spaces, is split by dictionary") {
    const std::string thai = "\u0E20\u0E32\u0E29\u0E32\u0E44\u0E17\u0E22";  // ภาษาไทย
    const Words words = p.split(thai);
    CHECK(words.size() >= 2);
    CHECK(joined(words) == M + thai);
  }
}

TEST_CASE("marker styles: prefix after a space, suffix before a space, none", "[pre_tokenizer]") {
  const std::string line = "Hello, world";
  SECTION("prefix") {
    CHECK(unicode_prefix().split(line) == Words{M + "Hello", ",", M + "world"});
  }
  SECTION("suffix") {
    const PreTokenizer p({.kind = PreTokenizerKind::unicode, .marker = MarkerStyle::suffix});
    CHECK(p.split(line) == Words{"Hello", "," + M, "world" + M});
  }
  SECTION("none") {
    const PreTokenizer p({.kind = PreTokenizerKind::unicode, .marker = MarkerStyle::none});
    CHECK(p.split(line) == Words{"Hello", ",", "world"});
  }
}

TEST_CASE("restore gives the normalized line back from the joined words", "[pre_tokenizer]") {
  const auto kind = GENERATE(PreTokenizerKind::whitespace, PreTokenizerKind::unicode,
                             PreTokenizerKind::icu_words);
  const auto marker = GENERATE(MarkerStyle::prefix, MarkerStyle::suffix);
  const std::string line =
      GENERATE(as<std::string>{}, "Hello, world 42x", "a", "\"Quoted,\" she said -- twice!",
               "\u0412 \u043D\u0430\u0447\u0430\u043B\u0435 abc\u0430\u0431\u0432 2024-01-05",
               "\u0928\u092E\u0938\u094D\u0924\u0947 \u0926\u0941\u0928\u093F\u092F\u093E\u0964");
  const PreTokenizer p({.kind = kind, .marker = marker});
  INFO(p.options().to_string() << " on '" << line << "'");
  CHECK(p.restore(joined(p.split(line))) == line);
}

TEST_CASE("the callback form reuses the scratch buffer and sees the same words",
          "[pre_tokenizer]") {
  const PreTokenizer p = unicode_prefix();
  std::string scratch;
  Words seen;
  p.split("one two, three", scratch, [&](std::string_view w) { seen.emplace_back(w); });
  CHECK(seen == p.split("one two, three"));
}

TEST_CASE("pre-tokenizer settings round-trip through their stored text form", "[pre_tokenizer]") {
  const PreTokenizerOptions options{.kind = PreTokenizerKind::icu_words,
                                    .marker = MarkerStyle::suffix};
  CHECK(options.to_string() == "icu-words/suffix");
  CHECK(PreTokenizerOptions::parse("icu-words/suffix") == options);
  CHECK(PreTokenizerOptions::parse("unicode") == PreTokenizerOptions{});
  CHECK_THROWS_AS(PreTokenizerOptions::parse("sentencepiece/prefix"), tokenlab::Error);
  CHECK_THROWS_AS(PreTokenizerOptions::parse("unicode/middle"), tokenlab::Error);
}

TEST_CASE("the regex presets cut text as GPT-style tokenizers do, spaces kept", "[pre_tokenizer]") {
  const PreTokenizer o200k({.kind = PreTokenizerKind::o200k, .marker = MarkerStyle::space});
  // tiktoken's o200k_base gives these pieces: a space joins the word after it,
  // digits go in threes, "\s+(?!\S)" leaves the last space of a run to the word.
  const std::string line = " Hello world,  don't 12345\tOK  ";
  const Words words = o200k.split(line);
  CHECK(words == Words{" Hello", " world", ",", " ", " don't", " ", "123", "45", "\tOK", "  "});
  CHECK(joined(words) == line);
  CHECK(o200k.restore(joined(words)) == line);

  const PreTokenizer cl100k({.kind = PreTokenizerKind::cl100k, .marker = MarkerStyle::space});
  // cl100k's contractions ignore case; o200k's attach to the word.
  CHECK(cl100k.split("DON'T stop") == Words{"DON", "'T", " stop"});
  const PreTokenizer gpt2({.kind = PreTokenizerKind::gpt2, .marker = MarkerStyle::space});
  CHECK(gpt2.split("a 2024 b") == Words{"a", " 2024", " b"});
}

TEST_CASE("the regex presets go with marker style space and no other", "[pre_tokenizer]") {
  CHECK(PreTokenizerOptions::parse("o200k/auto").marker == MarkerStyle::space);
  CHECK(PreTokenizerOptions::parse("unicode/auto").marker == MarkerStyle::prefix);
  CHECK(PreTokenizerOptions::parse("llama3/space").kind == PreTokenizerKind::cl100k);
  CHECK(PreTokenizerOptions::parse("qwen2/space").to_string() == "qwen2/space");
  CHECK_THROWS_WITH(PreTokenizerOptions::parse("o200k/prefix"),
                    Catch::Contains("o200k") && Catch::Contains("space"));
  CHECK_THROWS_WITH(PreTokenizerOptions::parse("unicode/space"), Catch::Contains("regex"));
}
