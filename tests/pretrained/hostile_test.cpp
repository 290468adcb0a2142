// Hostile tokenizer files, second round (issue 27): each case once crashed the
// reader, made it claim gigabytes, ran for minutes, or lost text in silence.
// Every one now loads and encodes correctly or fails with an Error saying why.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/temp_files.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/json_nesting.hpp"
#include "tokenlab/types.hpp"

using Catch::Matchers::Contains;
using tokenlab::PretrainedTokenizer;
using tokenlab::test::error_of;
using tokenlab::test::tokenizer_json;

namespace {

const std::string kWordLevel =
    R"("model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1,"b":2},"unk_token":"[UNK]"})";

std::string repeated(std::string_view unit, std::size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += unit;
  return out;
}

}  // namespace

TEST_CASE("nesting is measured outside strings and refused past the limit",
          "[pretrained][hostile]") {
  using tokenlab::find_json_nesting_over;
  CHECK(find_json_nesting_over(R"({"a":[1,{"b":[]}]})", 4) == std::string_view::npos);
  CHECK(find_json_nesting_over(R"({"a":[1,{"b":[]}]})", 3) == 13);
  // Brackets in strings, escaped quotes among them, are text.
  CHECK(find_json_nesting_over(R"({"a":"[[[[\"[[[["})", 1) == std::string_view::npos);
  CHECK(find_json_nesting_over(repeated("[", 200000), tokenlab::kMaxJsonNesting) ==
        tokenlab::kMaxJsonNesting);
}

TEST_CASE("200,000 nested brackets are refused, not a stack overflow", "[pretrained][hostile]") {
  // Was SIGSEGV in inspect, encode -m, import and lab --tokenizer.
  const std::string deep = R"({"model":)" + repeated("[", 200000);
  CHECK_THAT(error_of([&] { (void)tokenizer_json(deep); }),
             Contains("tokenizer.json: JSON nests deeper than 128 levels (at byte"));
  // The tokenizer.json reader counts levels while it parses; it stops at the
  // byte the scan names, objects and arrays alike, in a list it streams too.
  // (Being a parse, it names a syntax error that comes first instead.)
  for (const std::string& text :
       {deep, R"({"model":{"vocab":{"a":)" + repeated("{\"b\":", 300) + "1",
        R"({"model":{"merges":[)" + repeated("[", 300),
        R"({"normalizer":{"x":"[[[[","y":)" + repeated("[{\"a\":", 200)}) {
    const std::size_t at = tokenlab::find_json_nesting_over(text, tokenlab::kMaxJsonNesting);
    REQUIRE(at != std::string_view::npos);
    CHECK_THAT(error_of([&] { (void)tokenizer_json(text); }),
               Contains("JSON nests deeper than 128 levels (at byte " + std::to_string(at) + ")"));
  }
  CHECK_THAT(error_of([&] {
               (void)PretrainedTokenizer::from_bytes(R"({"pat_str":)" + repeated("{", 200000),
                                                     "enc.json", "tiktoken");
             }),
             Contains("enc.json: JSON nests deeper than 128 levels"));
}

TEST_CASE("10,000 nested Sequence normalizers are refused at once", "[pretrained][hostile]") {
  // Each level copied its whole path: 10,000 levels took 1.95 GB.
  std::string normalizer;
  for (int i = 0; i < 10000; ++i) normalizer += R"({"type":"Sequence","normalizers":[)";
  normalizer += R"({"type":"Lowercase"})";
  for (int i = 0; i < 10000; ++i) normalizer += "]}";
  CHECK_THAT(error_of([&] {
               (void)tokenizer_json("{" + kWordLevel + R"(,"normalizer":)" + normalizer + "}");
             }),
             Contains("JSON nests deeper than 128 levels"));
  // The same at a depth the readers take: loads, and an error deep inside names
  // its full path (kept lazily, spelled out only for the message).
  std::string nested;
  for (int i = 0; i < 40; ++i) nested += R"({"type":"Sequence","normalizers":[)";
  nested += R"({"type":"Lowercase"})";
  for (int i = 0; i < 40; ++i) nested += "]}";
  const auto ok = tokenizer_json("{" + kWordLevel + R"(,"normalizer":)" + nested + "}");
  CHECK(ok.encode("A") == std::vector<tokenlab::TokenId>{1});
  std::string bad = nested;
  bad.replace(bad.find("Lowercase"), 9, "Bogus");
  const std::string message =
      error_of([&] { (void)tokenizer_json("{" + kWordLevel + R"(,"normalizer":)" + bad + "}"); });
  CHECK_THAT(message, Contains("tokenizer.json: normalizer" + repeated(".normalizers[0]", 40) +
                               ".type: tokenlab does not implement the normalizer \"Bogus\""));
}

TEST_CASE("a member given twice is refused wherever it is", "[pretrained][hostile]") {
  // {"model": A, "model": B} silently used A; serde takes the last.
  CHECK_THAT(error_of([&] { (void)tokenizer_json("{" + kWordLevel + "," + kWordLevel + "}"); }),
             Contains("tokenizer.json: the document: the member \"model\" appears more than once"));
  CHECK_THAT(
      error_of([&] {
        (void)tokenizer_json(
            R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"[UNK]","unk_token":"a"}})");
      }),
      Contains("tokenizer.json: model: the member \"unk_token\" appears more than once"));
  CHECK_THAT(
      error_of([&] {
        (void)tokenizer_json("{" + kWordLevel +
                             R"(,"pre_tokenizer":{"type":"Sequence","pretokenizers":[)"
                             R"({"type":"Whitespace"},{"type":"Digits","type":"Whitespace"}]}})");
      }),
      Contains("tokenizer.json: pre_tokenizer.pretokenizers[1]: the member \"type\" "
               "appears more than once"));
}

TEST_CASE("a catastrophic Split pattern fails with a time-out, not hours of work",
          "[pretrained][hostile][regex]") {
  const auto tokenizer =
      tokenizer_json("{" + kWordLevel +
                     R"(,"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(a+)+$"},)"
                     R"("behavior":"Isolated","invert":false}})");
  CHECK(tokenizer.encode("baa").size() == 2);  // short text: "b", "aa" (unknown)
  CHECK_THAT(error_of([&] { (void)tokenizer.encode(std::string(30, 'a') + "!"); }),
             Contains("regular expression /(a+)+$/: the match took longer than tokenlab's limit") &&
                 Contains("U_REGEX_TIME_OUT"));
}

TEST_CASE("a regex that runs out of backtracking memory is an error, never lost text",
          "[pretrained][hostile][regex]") {
  // The tiktoken JSON of the report: a 1 MB line of a and b encoded to nothing.
  // npm tiktoken's bpe_ranks: "! 0" then each token's base64, ranks counting up.
  std::string ranks = "! 0";
  for (int b = 0; b < 256; ++b) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    ranks += std::string{' ', kAlphabet[b >> 2], kAlphabet[(b & 3) << 4], '=', '='};
  }
  const auto encoder = PretrainedTokenizer::from_bytes(
      R"({"pat_str":"(?:a|b)+| ?[^ab\\s]+|\\s+","special_tokens":{},"bpe_ranks":")" + ranks +
          R"("})",
      "enc.json", "tiktoken");
  CHECK(encoder.encode("abba cd").size() == 7);
  std::string line;
  for (int i = 0; i < 500000; ++i) line += "ab";
  CHECK_THAT(error_of([&] { (void)encoder.encode(line); }),
             Contains("backtracking memory") && Contains("U_REGEX_STACK_OVERFLOW"));
  // A Split with behavior Removed kept text on long input that it removed on short.
  const auto removing =
      tokenizer_json("{" + kWordLevel +
                     R"(,"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?:a|b)+"},)"
                     R"("behavior":"Removed","invert":false}})");
  CHECK(removing.encode("ab ab").size() == 1);  // only the space is left: [UNK]
  CHECK_THAT(error_of([&] { (void)removing.encode(line); }), Contains("U_REGEX_STACK_OVERFLOW"));
}

TEST_CASE("WordPiece with a huge max_input_chars_per_word is linear in the word",
          "[pretrained][hostile][wordpiece]") {
  // 10^18 in the file: 4,000 characters took 3 s, 200,000 did not finish in 11 minutes.
  const auto wordpiece = tokenizer_json(
      R"({"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",)"
      R"("max_input_chars_per_word":1000000000000000000,)"
      R"("vocab":{"[UNK]":0,"a":1,"ab":2,"##a":3,"##b":4,"##ab":5,"##abc":6,"c":7}}})");
  CHECK(wordpiece.encode("abab") == std::vector<tokenlab::TokenId>{2, 5});
  CHECK(wordpiece.encode("ababc") == std::vector<tokenlab::TokenId>{2, 6});
  CHECK(wordpiece.encode("abca") == std::vector<tokenlab::TokenId>{0});  // no ##c
  CHECK(wordpiece.encode("abd") == std::vector<tokenlab::TokenId>{0});   // d: unknown word
  std::string word;
  for (int i = 0; i < 100000; ++i) word += "ab";
  const auto ids = wordpiece.encode(word);
  REQUIRE(ids.size() == 100000);
  CHECK(ids.front() == 2);
  CHECK(ids.back() == 5);
}

TEST_CASE("a SentencePiece model with a NaN score is refused, naming the piece",
          "[pretrained][hostile][sentencepiece]") {
  std::string model = tokenlab::test::read_bytes(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) /
                                                 "pretrained" / "bpe.model");
  // ModelProto field 1 (pieces) is first: 0x0A len { 0x0A len piece, 0x15 score }.
  REQUIRE(model.size() > 16);
  REQUIRE(model[0] == '\x0A');
  std::size_t at = 2;  // past the tag and a one-byte length
  REQUIRE(model[at] == '\x0A');
  at += 2 + static_cast<unsigned char>(model[at + 1]);
  REQUIRE(model[at] == '\x15');
  const float nan = std::nanf("");
  std::memcpy(model.data() + at + 1, &nan, sizeof nan);
  CHECK_THAT(
      error_of([&] { (void)PretrainedTokenizer::from_bytes(model, "nan.model", "sentencepiece"); }),
      Contains("nan.model: pieces[0]: the piece") && Contains("has the score NaN"));
}

TEST_CASE("n-best is clamped to SentencePiece's 1024 and its search is bounded",
          "[pretrained][hostile][sentencepiece]") {
  const auto spm = PretrainedTokenizer::from_bytes(
      tokenlab::test::read_bytes(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) / "pretrained" /
                                 "unigram.model"),
      "unigram.model", "sentencepiece");
  std::size_t listed = 0;
  spm.for_each_nbest("the", 100000, [&](std::string_view, const auto& c) { listed += c.size(); });
  CHECK(listed > 0);
  CHECK(listed <= tokenlab::kMaxNBest);
  // 'the' x 1000 at k = 100,000 took 5 GB: now an Error once the search passes its
  // bound, or an answer within it.
  const std::string long_text = repeated("the", 1000);
  std::string message;
  try {
    spm.for_each_nbest(long_text, 100000, [&](std::string_view, const auto& c) {
      CHECK(c.size() <= tokenlab::kMaxNBest);
    });
  } catch (const tokenlab::Error& e) {
    message = e.what();
  }
  if (!message.empty()) CHECK_THAT(message, Contains("search states"));
}
