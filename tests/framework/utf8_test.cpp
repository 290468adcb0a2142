// UTF-8 validation and repair: the first line of defence for every corpus byte.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/utf8.hpp"

using namespace std::string_literals;
namespace utf8 = tokenlab::utf8;

TEST_CASE("well-formed sequences of every length are accepted at their exact boundaries",
          "[utf8]") {
  const auto [bytes, length] = GENERATE(table<std::string, std::size_t>({
      {"A"s, 1},
      {"\x7F"s, 1},
      {"\xC2\x80"s, 2},          // U+0080, smallest 2-byte
      {"\xDF\xBF"s, 2},          // U+07FF
      {"\xE0\xA0\x80"s, 3},      // U+0800, smallest 3-byte
      {"\xED\x9F\xBF"s, 3},      // U+D7FF, just below the surrogates
      {"\xEE\x80\x80"s, 3},      // U+E000, just above the surrogates
      {"\xEF\xBF\xBF"s, 3},      // U+FFFF
      {"\xF0\x90\x80\x80"s, 4},  // U+10000, smallest 4-byte
      {"\xF4\x8F\xBF\xBF"s, 4},  // U+10FFFF, the last code point
  }));
  INFO("sequence of " << length << " bytes");
  CHECK(utf8::sequence_length(bytes, 0) == length);
  CHECK_FALSE(utf8::find_invalid(bytes).has_value());
}

TEST_CASE("overlong forms, surrogates, out-of-range and truncated sequences are rejected",
          "[utf8]") {
  const auto [bytes, why] = GENERATE(table<std::string, std::string>({
      {"\xC0\x80"s, "overlong NUL"},
      {"\xC1\xBF"s, "overlong 2-byte"},
      {"\xE0\x9F\xBF"s, "overlong 3-byte"},
      {"\xF0\x8F\xBF\xBF"s, "overlong 4-byte"},
      {"\xED\xA0\x80"s, "high surrogate U+D800"},
      {"\xED\xBF\xBF"s, "low surrogate U+DFFF"},
      {"\xF4\x90\x80\x80"s, "above U+10FFFF"},
      {"\xF5\x80\x80\x80"s, "lead byte F5"},
      {"\xFF"s, "byte FF"},
      {"\x80"s, "lone continuation byte"},
      {"\xC3"s, "2-byte sequence cut at the end"},
      {"\xE2\x82"s, "3-byte sequence cut at the end"},
      {"\xF0\x9F\x98"s, "4-byte sequence cut at the end"},
      {"\xC3("s, "2-byte sequence interrupted by ASCII"},
  }));
  INFO(why);
  CHECK(utf8::sequence_length(bytes, 0) == 0);
  REQUIRE(utf8::find_invalid(bytes).has_value());
  CHECK(*utf8::find_invalid(bytes) == 0);
}

TEST_CASE("find_invalid reports the byte offset of the first bad sequence", "[utf8]") {
  SECTION("after a long ASCII run (the eight-bytes-at-a-time fast path)") {
    const std::string text = "The quick brown fox jumps\xFF over";
    REQUIRE(utf8::find_invalid(text).has_value());
    CHECK(*utf8::find_invalid(text) == 25);
  }
  SECTION("after multi-byte characters") {
    const std::string text = "na\xC3\xAFve caf\xC3\xA9 \xE2\x82";
    REQUIRE(utf8::find_invalid(text).has_value());
    CHECK(*utf8::find_invalid(text) == 13);
  }
  SECTION("valid text of any script has no invalid offset") {
    CHECK_FALSE(utf8::find_invalid("").has_value());
    CHECK_FALSE(utf8::find_invalid("\u2581lowest \u0928\u092E\u0938\u094D\u0924\u0947 \U0001F642")
                    .has_value());
  }
}

// The reference for find_invalid: decode_sequence, one sequence after another.
std::optional<std::size_t> first_bad_by_decoding(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8::decode_sequence(s, i).length;
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

// find_invalid's answer and both validators' verdicts all agree with decoding.
bool agrees_with_decoding(std::string_view s) {
  const std::optional<std::size_t> expected = first_bad_by_decoding(s);
  return utf8::find_invalid(s) == expected &&
         utf8::detail::well_formed_portable(s) == !expected.has_value() &&
         utf8::detail::well_formed_vector(s) == !expected.has_value();
}

TEST_CASE("find_invalid agrees with decoding on every short byte string, wherever it sits",
          "[utf8]") {
  // One validator is a DFA run 32 bytes at a time after a 16-byte ASCII skip,
  // the other takes 16-byte blocks: the prefixes put a sequence across each
  // kind of boundary.
  const std::string prefixes[] = {"",
                                  "abcdefg",
                                  std::string(13, 'w'),
                                  "\u0928" + std::string(11, 'v'),
                                  std::string(31, 'x'),
                                  std::string(37, 'y'),
                                  "\u0928\u092E" + std::string(26, 'z')};
  std::size_t mismatches = 0;
  const auto check = [&](const std::string& bytes) {
    for (const std::string& prefix : prefixes) {
      const std::string text = prefix + bytes + "tail";
      if (!agrees_with_decoding(text)) ++mismatches;
    }
  };
  SECTION("every string of one and two bytes") {
    for (unsigned a = 0; a < 256; ++a) {
      check(std::string(1, static_cast<char>(a)));
      for (unsigned b = 0; b < 256; ++b) check({static_cast<char>(a), static_cast<char>(b)});
    }
  }
  SECTION("every three-byte string that starts with a lead or continuation byte") {
    for (unsigned a = 0x80; a < 256; ++a)
      for (unsigned b = 0; b < 256; ++b)
        for (unsigned c = 0; c < 256; ++c) {
          const std::string text{static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
          if (!agrees_with_decoding(text)) ++mismatches;
        }
  }
  SECTION("four-byte strings over every boundary byte of table 3-7") {
    const unsigned char edges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                   0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                   0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
    for (const unsigned char a : edges)
      for (const unsigned char b : edges)
        for (const unsigned char c : edges)
          for (const unsigned char d : edges)
            check({static_cast<char>(a), static_cast<char>(b), static_cast<char>(c),
                   static_cast<char>(d)});
  }
  CHECK(mismatches == 0);
}

TEST_CASE("find_invalid agrees with decoding on long non-ASCII text with one byte changed anywhere",
          "[utf8]") {
  // Long stretches without ASCII, where the validator never skips ahead: a
  // change must be caught wherever it falls among 2-, 3- and 4-byte sequences,
  // as decoding catches it.
  std::string text;
  for (int i = 0; i < 12; ++i)
    text +=
        "\u0928\u092E\u0938\u094D\u0924\u0947\u65E5\u672C\u8A9E\u041F\u0440"
        "\U0001F642\u00E9";
  text += " done";
  std::size_t mismatches = 0;
  std::size_t rejected = 0;
  const unsigned char replacements[] = {0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC0,
                                        0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xFF};
  for (std::size_t at = 0; at < text.size(); ++at) {
    for (const unsigned char byte : replacements) {
      std::string changed = text;
      changed[at] = static_cast<char>(byte);
      const auto expected = first_bad_by_decoding(changed);
      rejected += expected.has_value();
      if (!agrees_with_decoding(changed)) ++mismatches;
    }
    std::string shorter = text;  // a byte gone: every sequence after it shifts
    shorter.erase(at, 1);
    if (!agrees_with_decoding(shorter)) ++mismatches;
  }
  CHECK_FALSE(utf8::find_invalid(text).has_value());
  CHECK(rejected > text.size() * 5);  // the changes do break the text, mostly
  CHECK(mismatches == 0);
}

TEST_CASE("replace_invalid keeps valid text and puts U+FFFD where bytes are bad", "[utf8]") {
  CHECK(utf8::replace_invalid("already valid \u00E9\U0001F642") ==
        "already valid \u00E9\U0001F642");
  CHECK(utf8::replace_invalid("ab\xC3(cd") == "ab\uFFFD(cd");
  CHECK(utf8::replace_invalid("end\xE2\x82") == "end\uFFFD");
  CHECK(utf8::replace_invalid("\xF0\x9F\x98x") == "\uFFFDx");
  CHECK(utf8::replace_invalid("\xFF") == "\uFFFD");
  SECTION("the result is always valid UTF-8") {
    const std::string garbage = "\x80\xC0\xAF\xED\xA0\x80\xF8\x88\x80\x80\x80\xFE\xFF ok";
    CHECK_FALSE(utf8::find_invalid(utf8::replace_invalid(garbage)).has_value());
  }
}

// Unicode 15 section 3.9 (U+FFFD substitution of maximal subparts), which ICU,
// Python and every browser follow: a maximal subpart is the longest prefix of a
// well-formed sequence, so bytes that can never start or continue one (a stray
// continuation byte, C0, the A0 after ED) each get their own U+FFFD.
TEST_CASE("replace_invalid substitutes one U+FFFD per maximal subpart, as ICU does", "[utf8]") {
  CHECK(utf8::replace_invalid("a\x80\x80z") == "a\uFFFD\uFFFDz");
  CHECK(utf8::replace_invalid("\xC0\xAF") == "\uFFFD\uFFFD");
  CHECK(utf8::replace_invalid("\xED\xA0\x80") == "\uFFFD\uFFFD\uFFFD");
  CHECK(utf8::replace_invalid("\xF0\x80\x80\x80") == "\uFFFD\uFFFD\uFFFD\uFFFD");
}

TEST_CASE("decode_at and append are inverse over the whole code point range", "[utf8]") {
  const char32_t cp = GENERATE(U'\0', U'A', U'\u00E9', U'\u07FF', U'\u0800', U'\u2581', U'\uD7FF',
                               U'\uE000', U'\uFFFD', U'\U00010000', U'\U0001F642', U'\U0010FFFF');
  std::string encoded;
  utf8::append(encoded, cp);
  REQUIRE(encoded.size() == utf8::sequence_length(encoded, 0));
  CHECK(utf8::decode_at(encoded, 0) == cp);
  CHECK(utf8::count_code_points(encoded) == 1);
}

TEST_CASE("decoding well-formed text without checks agrees with decode_sequence everywhere",
          "[utf8]") {
  // decode_well_formed trusts its input (counting's lines, which the reader
  // checked): on every non-ASCII code point it must give what the checking
  // decoder gives, reading no byte past the sequence.
  std::size_t decoded = 0;
  for (char32_t cp = 0x80; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string encoded;
    utf8::append(encoded, cp);
    // On the heap and exactly as long, so that the address sanitizer sees a read past it.
    const std::vector<unsigned char> bytes(encoded.begin(), encoded.end());
    const utf8::Sequence checked = utf8::decode_sequence(encoded, 0);
    const utf8::Sequence trusted = utf8::decode_well_formed(bytes.data());
    if (trusted.code_point != checked.code_point || trusted.length != checked.length) {
      FAIL_CHECK("U+" << std::hex << static_cast<std::uint32_t>(cp) << ": "
                      << static_cast<std::uint32_t>(trusted.code_point) << "/" << trusted.length
                      << " against " << static_cast<std::uint32_t>(checked.code_point) << "/"
                      << checked.length);
      break;
    }
    ++decoded;
  }
  CHECK(decoded == 0x10FFFF - 0x7F - 0x800);
}

TEST_CASE("code points are counted and split one per character, not per byte", "[utf8]") {
  const std::string word = "\u2581na\u00EFve\U0001F642";
  CHECK(utf8::count_code_points(word) == 7);
  const auto parts = utf8::split_code_points(word);
  REQUIRE(parts.size() == 7);
  CHECK(parts[0] == "\u2581");
  CHECK(parts[3] == "\u00EF");
  CHECK(parts[6] == "\U0001F642");
  SECTION("a bad byte becomes a unit of its own instead of being lost") {
    const auto bad = utf8::split_code_points(
        "a\xFF"
        "b");
    REQUIRE(bad.size() == 3);
    CHECK(bad[1] == "\xFF");
  }
}

TEST_CASE("the ASCII prefix ends at the first byte of 0x80 or more, wherever it is",
          "[framework][utf8]") {
  // Every length up to 40 and every place of the first high byte in it, so that
  // the sixteen- (or eight-) byte steps and the byte tail are all crossed.
  for (std::size_t length = 0; length <= 40; ++length) {
    const std::string ascii(length, 'a');
    CHECK(tokenlab::utf8::ascii_prefix_length(ascii) == length);
    for (std::size_t at = 0; at < length; ++at) {
      for (const char high : {'\x80', '\xC3', '\xFF'}) {
        std::string text = ascii;
        text[at] = high;
        if (at + 1 < length) text[at + 1] = '\x7F';
        REQUIRE(tokenlab::utf8::ascii_prefix_length(text) == at);
      }
    }
  }
  CHECK(tokenlab::utf8::ascii_prefix_length(std::string("\0\x01\x7F", 3)) == 3);
}
