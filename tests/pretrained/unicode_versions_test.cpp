// A tokenizer.json classifies characters as HF tokenizers 0.23 does, by Unicode
// 16.0, and a tiktoken file as tiktoken does, by 15.0 (ICU 72's data); see
// tokenlab/unicode_version.hpp. Every expected piece is HF tokenizers 0.23.2's
// for the same component (npm `tokenizers`, offsets of a WordLevel model's
// tokens), or tiktoken's. The characters are new in 15.1 or 16.0: Cyrillic TJE
// (U+1C89, U+1C8A), ARABIC PEPET (U+0897, a mark), Ol Onal (U+1E5D0 a letter,
// U+1E5F1 and U+1E5F2 digits) and the splatter emoji (U+1FADF).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base64.hpp"
#include "common/icu_version.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/regex.hpp"

using tokenlab::PretrainedTokenizer;
using tokenlab::test::icu_is_unicode_15;
using tokenlab::test::Pieces;
using tokenlab::test::pieces;
using tokenlab::test::pipeline_with;

TEST_CASE("HF's pre-tokenizers take Unicode 16.0's classes",
          "[pretrained][tokenizer.json][unicode]") {
  SECTION("a Split whose pattern ICU runs") {
    const auto split = pipeline_with(
        R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\p{L}+|\\p{N}+|[^\\s\\p{L}\\p{N}]+"},)"
        R"("behavior":"Isolated","invert":false})");
    CHECK(pieces(split, "a\u1C89\u1C8Ab 1\U0001E5F1 \U0001FADF!") ==
          Pieces{"a\u1C89\u1C8Ab", " ", "1\U0001E5F1", " ", "\U0001FADF!"});
    const auto word = pipeline_with(
        R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\w+"},"behavior":"Isolated","invert":false})");
    CHECK(pieces(word, "a\u0897b.\U0001E5D0!") == Pieces{"a\u0897b", ".", "\U0001E5D0", "!"});
  }
  SECTION("Whitespace: \\w+|[^\\w\\s]+, scanned by hand") {
    const auto whitespace = pipeline_with(R"("pre_tokenizer":{"type":"Whitespace"})");
    CHECK(pieces(whitespace, "tje\u1C89\u1C8A \U0001E5D0\u0897x \U0001FADF.") ==
          Pieces{"tje\u1C89\u1C8A", "\U0001E5D0\u0897x", "\U0001FADF."});
  }
  SECTION("Digits: Rust's char::is_numeric") {
    const auto digits =
        pipeline_with(R"("pre_tokenizer":{"type":"Digits","individual_digits":false})");
    CHECK(pieces(digits, "1\U0001E5F1\U0001E5F22x") == Pieces{"1\U0001E5F1\U0001E5F22", "x"});
  }
  SECTION("an added token's single_word: \\w on either side") {
    const auto added = pipeline_with(
        R"("added_tokens":[{"id":0,"content":"tok","single_word":true,"lstrip":false,)"
        R"("rstrip":false,"normalized":true,"special":false}],)"
        R"("pre_tokenizer":{"type":"Whitespace"})");
    // After a 16.0 letter "tok" is inside a word, so it is no added token.
    CHECK(pieces(added, "\U0001E5D0tok tok") == Pieces{"\U0001E5D0tok", "tok"});
  }
}

TEST_CASE(
    "one pattern splits by tiktoken's classes in a tiktoken file and by HF's in a tokenizer.json",
    "[pretrained][tiktoken][tokenizer.json][unicode]") {
  // cl100k_base's pattern, once from a rank file and once as a tokenizer.json Split.
  std::string ranks;  // every byte ranked by its value, nothing merged
  for (int b = 0; b < 256; ++b)
    ranks += tokenlab::test::base64(std::string(1, static_cast<char>(b))) + " " +
             std::to_string(b) + "\n";
  const auto tiktoken =
      PretrainedTokenizer::from_bytes(ranks, "cl100k_base.tiktoken", "tiktoken:cl100k_base");
  std::string pattern;
  for (const char c : tokenlab::kCl100kPattern) {
    if (c == '\\' || c == '"') pattern += '\\';
    if (c == '\r') {
      pattern += "\\r";
    } else if (c == '\n') {
      pattern += "\\n";
    } else {
      pattern += c;
    }
  }
  const auto json = pipeline_with(R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":")" +
                                  pattern + R"("},"behavior":"Isolated","invert":false})");
  const std::string text = "a\U0001E5D0b";
  CHECK(pieces(json, text) == Pieces{"a\U0001E5D0b"});  // HF 0.23.2
  // tiktoken-rs 1.0.6 and npm tiktoken 1.0.22 give the ids of "a" then "\U0001E5D0b".
  if (!icu_is_unicode_15()) return;
  const std::vector<tokenlab::TokenId> a_then_rest{97, 240, 158, 151, 144, 98};
  CHECK(tiktoken.encode(text) == a_then_rest);
  CHECK(pieces(tiktoken, text) == Pieces{"a", "\U0001E5D0b"});
}
