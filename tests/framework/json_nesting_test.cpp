// The nesting check every JSON reader runs before RapidJSON recurses: the
// depth of brackets outside strings, found sixteen bytes at a time.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <string_view>

#include "tokenlab/json_nesting.hpp"

namespace {

// The plain byte-by-byte scan: what the fast one must agree with.
std::size_t nesting_over_by_bytes(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

TEST_CASE("brackets inside strings and after escapes do not nest", "[json-nesting]") {
  using tokenlab::find_json_nesting_over;
  CHECK(find_json_nesting_over(R"({"a": "[[[[{{{{", "b": [1]})", 2) == std::string_view::npos);
  CHECK(find_json_nesting_over(R"({"a": "\"[[[[", "b": [[1]]})", 2) == 22);
  CHECK(find_json_nesting_over(R"(["\\", [[0]]])", 3) == std::string_view::npos);
  CHECK(find_json_nesting_over(R"(["\\", [[[0]]]])", 3) == 9);
  // A string left open at the end, or a backslash as the last byte.
  CHECK(find_json_nesting_over(R"([[ "open [[[[)", 2) == std::string_view::npos);
  CHECK(find_json_nesting_over("[\"\\", 1) == std::string_view::npos);
  // The offset is found in every position of a 16-byte block and past it.
  for (std::size_t pad = 0; pad < 40; ++pad) {
    const std::string text = std::string(pad, ' ') + "{\"x\":[[";
    CHECK(find_json_nesting_over(text, 2) == pad + 6);
  }
}

TEST_CASE("the 16-byte scan agrees with a byte-by-byte scan on random JSON-like text",
          "[json-nesting]") {
  // Texts drawn from the bytes that matter (quotes, backslashes, brackets)
  // among plain ones, so that strings, escapes and block edges meet in every way.
  std::mt19937 random(20261204);
  const std::string alphabet = "\"\\[]{}ab :,\xC3\xA9";
  std::size_t disagreements = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text(std::uniform_int_distribution<std::size_t>(0, 80)(random), ' ');
    for (char& c : text)
      c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(random)];
    for (const std::size_t depth : {0, 1, 2, 4})
      if (tokenlab::find_json_nesting_over(text, depth) != nesting_over_by_bytes(text, depth))
        ++disagreements;
  }
  CHECK(disagreements == 0);
}
