// select_alphabet: the one base alphabet every trainer starts from.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::select_alphabet;
using tokenlab::WordCounts;

namespace {

WordCounts skewed_counts() {
  WordCounts counts;
  counts.add("aaaa", 10);     // a: 40
  counts.add("bb", 10);       // b: 20
  counts.add("c", 5);         // c: 5
  counts.add("d", 5);         // d: 5 (ties with c: smaller code point first)
  counts.add("\xC3\xA9", 1);  // é: 1
  return counts;              // 71 occurrences in all
}

}  // namespace

TEST_CASE("the alphabet keeps the most frequent characters until they reach the coverage",
          "[alphabet]") {
  const WordCounts counts = skewed_counts();
  SECTION("coverage 1 keeps every character, in code point order") {
    const auto a = select_alphabet(counts, 1.0);
    CHECK(a.characters == std::vector<char32_t>{U'a', U'b', U'c', U'd', U'\u00E9'});
    CHECK(a.distinct == 5);
    CHECK(a.occurrences == 71);
    CHECK(a.covered == 71);
  }
  SECTION("a and b cover 60/71 = 84.5%; c then reaches 91.5%") {
    CHECK(select_alphabet(counts, 0.80).characters == std::vector<char32_t>{U'a', U'b'});
    CHECK(select_alphabet(counts, 0.90).characters == std::vector<char32_t>{U'a', U'b', U'c'});
  }
  SECTION("a tie is broken by the smaller code point") {
    CHECK(select_alphabet(counts, 0.95).characters ==
          std::vector<char32_t>{U'a', U'b', U'c', U'd'});
  }
}

TEST_CASE("a cap keeps only the most frequent characters", "[alphabet]") {
  const auto a = select_alphabet(skewed_counts(), 1.0, 0, 3);
  CHECK(a.characters == std::vector<char32_t>{U'a', U'b', U'c'});
  CHECK(a.covered == 65);
}

TEST_CASE("the alphabet does not depend on the thread count", "[alphabet]") {
  WordCounts counts;
  for (int i = 0; i < 50000; ++i) counts.add("w" + std::to_string(i * 7919 % 100003), 1 + i % 13);
  const auto one = select_alphabet(counts, 0.999, 1);
  CHECK(select_alphabet(counts, 0.999, 2).characters == one.characters);
  CHECK(select_alphabet(counts, 0.999, 7).characters == one.characters);
}

TEST_CASE("a coverage of zero, or above one, is an error", "[alphabet]") {
  const WordCounts counts = skewed_counts();
  CHECK_THROWS_AS(select_alphabet(counts, 0.0), tokenlab::Error);
  CHECK_THROWS_AS(select_alphabet(counts, 1.5), tokenlab::Error);
}

TEST_CASE("byte pieces are spelled as SentencePiece and HF spell them", "[alphabet]") {
  CHECK(tokenlab::byte_fallback_piece(0) == "<0x00>");
  CHECK(tokenlab::byte_fallback_piece(0xE2) == "<0xE2>");
}

TEST_CASE("byte pieces read back to their byte, with each reference library's hex rule",
          "[alphabet]") {
  using tokenlab::byte_fallback_value;
  using tokenlab::HexDigits;
  for (unsigned byte = 0; byte < 256; ++byte)
    CHECK(byte_fallback_value(tokenlab::byte_fallback_piece(byte)) == byte);
  // SentencePiece reads only the upper-case spelling it writes; HF takes either.
  CHECK_FALSE(byte_fallback_value("<0xe2>", HexDigits::upper_case));
  CHECK(byte_fallback_value("<0xe2>", HexDigits::either_case) == 0xE2);
  for (const char* not_a_byte : {"<0xE>", "<0xE2", "0xE2>", "<0XE2>", "<0xG1>", "<0xE2>>", ""})
    CHECK_FALSE(byte_fallback_value(not_a_byte, HexDigits::either_case));
}
