// Inference methods on a fixed vocabulary: each method on a vocabulary small
// enough to segment by hand.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/inference_methods.hpp"

using namespace tokenlab;

namespace {

// The pieces of unit as strings, so that failures read as segmentations.
std::vector<std::string> cut(const InferenceEngine& engine, InferenceMethod method,
                             std::string_view unit) {
  std::vector<TokenId> ids;
  std::vector<std::uint32_t> ends;
  engine.encode(method, unit, ids, &ends);
  REQUIRE(ids.size() == ends.size());
  std::vector<std::string> pieces;
  for (const TokenId id : ids) pieces.push_back(engine.vocabulary().pieces[id]);
  return pieces;
}

using Pieces = std::vector<std::string>;

// a b c d e, ab, abc, bcd, cd, bcde, and merges b+c, a+b, ab+c (no a+bc).
InferenceVocabulary letters() {
  InferenceVocabulary v;
  v.pieces = {"<unk>", "a", "b", "c", "d", "e", "ab", "abc", "bcd", "cd", "bcde", "bc"};
  v.unknown = 0;
  v.pieces[0] = "";                     // a special token never matches text
  v.merges = {{2, 3}, {1, 2}, {6, 3}};  // b c -> bc, a b -> ab, ab c -> abc
  return v;
}

}  // namespace

TEST_CASE("each method cuts abcd as worked out by hand", "[inference]") {
  const InferenceEngine engine(letters());
  // Longest prefix: abc, then d.
  CHECK(cut(engine, InferenceMethod::longest_prefix, "abcd") == Pieces{"abc", "d"});
  // Longest suffix: the longest piece ending the word is bcd, then a.
  CHECK(cut(engine, InferenceMethod::longest_suffix, "abcd") == Pieces{"a", "bcd"});
  // Longest token: abc and bcd are both 3 long; the leftmost wins.
  CHECK(cut(engine, InferenceMethod::longest_token, "abcd") == Pieces{"abc", "d"});
  // Fewest tokens: abc+d, a+bcd and ab+cd are all 2; ties go to the longest first token.
  CHECK(cut(engine, InferenceMethod::fewest_tokens, "abcd") == Pieces{"abc", "d"});
}

TEST_CASE("longest token takes bcde out of abcde first, greedy prefix needs four tokens",
          "[inference]") {
  const InferenceEngine engine(letters());
  CHECK(cut(engine, InferenceMethod::longest_prefix, "abcde") == Pieces{"abc", "d", "e"});
  CHECK(cut(engine, InferenceMethod::longest_token, "abcde") == Pieces{"a", "bcde"});
  CHECK(cut(engine, InferenceMethod::longest_suffix, "abcde") == Pieces{"a", "bcde"});
  CHECK(cut(engine, InferenceMethod::fewest_tokens, "abcde") == Pieces{"a", "bcde"});
}

TEST_CASE("merges by rank can miss a piece that greedy prefix finds", "[inference]") {
  // b+c has the lowest rank, so abc becomes a bc; there is no merge a+bc, so the
  // piece abc is never reached by merges (Uzan et al.'s point about merges).
  const InferenceEngine engine(letters());
  REQUIRE(engine.supports(InferenceMethod::merges));
  CHECK(cut(engine, InferenceMethod::merges, "abc") == Pieces{"a", "bc"});
  CHECK(cut(engine, InferenceMethod::longest_prefix, "abc") == Pieces{"abc"});
  // ab+c applies when b is merged with a first: in "abd" there is no b+c.
  CHECK(cut(engine, InferenceMethod::merges, "abd") == Pieces{"ab", "d"});
}

TEST_CASE("likelihood is the Viterbi path over the scores", "[inference]") {
  InferenceVocabulary v = letters();
  v.merges.clear();
  // a b c -1 each, ab -3, abc -5, bc -1.5: the paths of abc score abc -5,
  // a+bc -2.5, ab+c -4, a+b+c -3, so a+bc wins.
  v.scores = {0, -1, -1, -1, -1, -1, -3, -5, -9, -9, -9, -1.5};
  const InferenceEngine engine(std::move(v));
  REQUIRE(engine.supports(InferenceMethod::likelihood));
  CHECK_FALSE(engine.supports(InferenceMethod::merges));
  CHECK(cut(engine, InferenceMethod::likelihood, "abc") == Pieces{"a", "bc"});
  CHECK_THROWS_AS(cut(engine, InferenceMethod::merges, "abc"), Error);
}

TEST_CASE("a continuation prefix separates word-initial pieces from the others", "[inference]") {
  InferenceVocabulary v;
  v.pieces = {"[UNK]", "un", "##aff", "##able", "able", "##a", "##b", "##l", "##e", "##f"};
  v.unknown = 0;
  v.continuation_prefix = "##";
  v.pieces[0] = "";
  const InferenceEngine engine(std::move(v));
  CHECK(cut(engine, InferenceMethod::longest_prefix, "unaffable") ==
        Pieces{"un", "##aff", "##able"});
  // "able" starts a word only: in the middle of one only ##able matches.
  CHECK(cut(engine, InferenceMethod::longest_suffix, "unable") == Pieces{"un", "##able"});
  CHECK(cut(engine, InferenceMethod::longest_prefix, "able") == Pieces{"able"});
  CHECK(engine.piece_length(2, 2) == 3);  // ##aff covers 3 bytes of the word
}

TEST_CASE("with BERT's rule a word with an uncovered character is one unknown token",
          "[inference]") {
  InferenceVocabulary v;
  v.pieces = {"", "un", "##a", "##b"};
  v.unknown = 0;
  v.continuation_prefix = "##";
  const InferenceEngine per_character(v);
  std::vector<TokenId> ids;
  per_character.encode(InferenceMethod::longest_prefix, "unaxb", ids);
  CHECK(ids == std::vector<TokenId>{1, 2, 0, 3});
  v.whole_word_unknown = true;
  const InferenceEngine bert(std::move(v));
  for (const auto method : {InferenceMethod::longest_prefix, InferenceMethod::fewest_tokens}) {
    ids.clear();
    std::vector<std::uint32_t> ends;
    bert.encode(method, "unaxb", ids, &ends);
    CHECK(ids == std::vector<TokenId>{0});
    CHECK(ends == std::vector<std::uint32_t>{5});
  }
}

TEST_CASE("a character without a piece falls back to byte pieces, else to the unknown token",
          "[inference]") {
  InferenceVocabulary v;
  v.pieces = {"<unk>", "a"};
  v.unknown = 0;
  const InferenceEngine unknown(v);
  std::vector<TokenId> ids;
  unknown.encode(InferenceMethod::fewest_tokens,
                 "a\xC3\xA9"
                 "a",
                 ids);  // aéa
  CHECK(ids == std::vector<TokenId>{1, 0, 1});

  for (unsigned b = 0; b < 256; ++b) {
    v.byte_pieces.push_back(static_cast<TokenId>(v.pieces.size()));
    v.pieces.push_back("<0x" + std::to_string(b) + ">");
  }
  const InferenceEngine bytes(v);
  for (const auto method : {InferenceMethod::longest_prefix, InferenceMethod::longest_suffix,
                            InferenceMethod::longest_token, InferenceMethod::fewest_tokens}) {
    CAPTURE(inference_method_name(method));
    ids.clear();
    std::vector<std::uint32_t> ends;
    bytes.encode(method, "a\xC3\xA9", ids, &ends);
    CHECK(ids == std::vector<TokenId>{1, v.byte_pieces[0xC3], v.byte_pieces[0xA9]});
    CHECK(ends == std::vector<std::uint32_t>{1, 2, 3});
  }
}

TEST_CASE("method names parse as the CLI and Python spell them", "[inference]") {
  CHECK(parse_inference_methods("longest-prefix,merges,longest-prefix") ==
        std::vector<InferenceMethod>{InferenceMethod::longest_prefix, InferenceMethod::merges});
  CHECK(parse_inference_methods("all").size() == 7);
  CHECK(std::string(inference_method_name(InferenceMethod::fewest_tokens)) == "fewest-tokens");
  try {
    (void)parse_inference_methods("greedy");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("'greedy'") && Catch::Contains("longest-suffix"));
  }
}
