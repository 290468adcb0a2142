// tiktoken: rank files with a named encoding's pattern and special tokens, npm
// tiktoken's encoder JSON, and the encodings' split patterns on tricky text.
// Every expected value is what tiktoken (npm tiktoken 1.0.22) gives for the same
// ranks and pattern.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "base64.hpp"
#include "common/temp_files.hpp"
#include "pretrained_support.hpp"

using tokenlab::PretrainedTokenizer;
using tokenlab::test::base64;
using tokenlab::test::Ids;
using tokenlab::test::Pieces;
using tokenlab::test::pieces;

namespace {

// Every byte ranked by its value (tiktoken needs all 256), then these tokens
// from rank 256 on: "he", "ll", "llo", "hello".
std::string tiny_rank_file() {
  std::string file;
  for (int b = 0; b < 256; ++b)
    file += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  int rank = 256;
  for (const char* token : {"he", "ll", "llo", "hello"})
    file += base64(token) + " " + std::to_string(rank++) + "\n";
  return file;
}

PretrainedTokenizer rank_file(const std::string& encoding) {
  return PretrainedTokenizer::from_bytes(tiny_rank_file(), encoding + ".tiktoken",
                                         "tiktoken:" + encoding);
}

}  // namespace

TEST_CASE("a tiktoken rank file merges bytes by the rank of the merged bytes",
          "[pretrained][tiktoken]") {
  const auto gpt2 = rank_file("gpt2");
  CHECK(gpt2.encode("hello") == Ids{259});
  CHECK(gpt2.encode("hellohello") == Ids{259, 259});
  CHECK(gpt2.encode(" hello") == Ids{32, 259});  // " h" has no rank
  CHECK(gpt2.encode("h\u00e9llo") == Ids{104, 195, 169, 258});
  CHECK(gpt2.decode(Ids{104, 195, 169, 258}) == "h\u00e9llo");
  CHECK(gpt2.decode(Ids{195}) == "\uFFFD");
  CHECK(gpt2.token(259) == "hello");
}

TEST_CASE("a rank file takes the special tokens of its encoding", "[pretrained][tiktoken]") {
  const auto gpt2 = rank_file("gpt2");
  CHECK(gpt2.encode("hello<|endoftext|>hi") == Ids{259, 50256, 104, 105});
  CHECK(gpt2.decode(Ids{50256}) == "<|endoftext|>");
  CHECK(gpt2.vocabulary_size() == 50257);
  const auto cl100k = rank_file("cl100k_base");
  CHECK(cl100k.encode("<|fim_prefix|>x<|endofprompt|>") == Ids{100258, 120, 100276});
}

TEST_CASE("special tokens are found wherever they sit among '<' that start none",
          "[pretrained][tiktoken]") {
  // Every special of cl100k_base starts with '<', so candidates are found by
  // searching for that byte alone: a '<' that starts no special, a special's
  // prefix cut short, specials back to back, at both ends and alone.
  const auto cl100k = rank_file("cl100k_base");
  CHECK(cl100k.encode("<") == Ids{60});
  CHECK(cl100k.encode("a<b") == Ids{97, 60, 98});
  CHECK(cl100k.encode("<|endoftext") == Ids{60, 124, 101, 110, 100, 111, 102, 116, 101, 120, 116});
  CHECK(cl100k.encode("<|endoftext|>") == Ids{100257});
  CHECK(cl100k.encode("<<|endoftext|><|endoftext|>hello<") == Ids{60, 100257, 100257, 259, 60});
  CHECK(cl100k.encode("<|fim_prefix|><|fim_suffix|>") == Ids{100258, 100260});
}

TEST_CASE("a tiktoken file's id-to-token table, built on first use, holds every rank's bytes",
          "[pretrained][tiktoken]") {
  // Encoding ids reads the fused encoder's byte table only; the TokenTable
  // behind decode, token() and --pieces is built from it when first asked
  // for. It must hold what the file says, gaps and specials apart.
  std::string file = tiny_rank_file();
  file += base64(std::string("\xE2\x96\x81 long token of more than twenty-three bytes")) + " 300\n";
  const auto gpt2 = PretrainedTokenizer::from_bytes(file, "gpt2.tiktoken", "tiktoken:gpt2");
  const auto& table = *gpt2.pipeline().tokens;
  CHECK(table.size() == 261);
  CHECK(table.id_limit() == 301);
  CHECK(gpt2.encode("hello") == Ids{259});
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    REQUIRE(table.token(static_cast<tokenlab::TokenId>(b)) != nullptr);
    CHECK(*table.token(static_cast<tokenlab::TokenId>(b)) == byte);
    CHECK(table.find(byte) == tokenlab::TokenId(b));
  }
  CHECK(*table.token(256) == "he");
  CHECK(*table.token(259) == "hello");
  CHECK(table.token(260) == nullptr);  // a gap
  CHECK(*table.token(300) == "\xE2\x96\x81 long token of more than twenty-three bytes");
  CHECK(table.find("llo") == tokenlab::TokenId(258));
  CHECK_FALSE(table.find("hel"));
  CHECK(gpt2.decode(Ids{256, 257, 300}) == "hell\u2581 long token of more than twenty-three bytes");
  CHECK(gpt2.encode("hello he") == Ids{259, 32, 256});
  CHECK(gpt2.token(32) == " ");
}

TEST_CASE("load() reads a rank file's encoding from its file name", "[pretrained][tiktoken]") {
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "gpt2.tiktoken", tiny_rank_file());
  const auto loaded = PretrainedTokenizer::load(dir / "gpt2.tiktoken");
  CHECK(loaded.pipeline().format == "tiktoken");
  CHECK(loaded.encode("hello<|endoftext|>") == Ids{259, 50256});
}

TEST_CASE("npm tiktoken's encoder JSON carries its pattern, special tokens and ranks",
          "[pretrained][tiktoken]") {
  // bpe_ranks: "! R" gives the next token rank R, and each token after it the next.
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += " " + base64(std::string(1, static_cast<char>(b)));
  const std::string json =
      R"json({"pat_str":"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",)json"
      R"json("special_tokens":{"<|endoftext|>":300},"bpe_ranks":"! 0)json" +
      bytes + "\\n! 1000 " + base64("he") + " " + base64("ll") + " " + base64("llo") + " " +
      base64("hello") + R"("})";
  const auto encoder = PretrainedTokenizer::from_bytes(json, "gpt2.json");  // format detected
  CHECK(encoder.pipeline().format == "tiktoken");
  CHECK(encoder.encode("hello<|endoftext|>") == Ids{1003, 300});
  CHECK(encoder.encode("hell") == Ids{1000, 1001});
  CHECK(encoder.decode(Ids{1003, 300}) == "hello<|endoftext|>");
}

// The pieces each encoding's pattern cuts (what tiktoken merges within).
TEST_CASE("the encodings' patterns split tricky text as tiktoken does",
          "[pretrained][tiktoken][regex]") {
  const auto gpt2 = rank_file("gpt2");
  const auto cl100k = rank_file("cl100k_base");
  const auto o200k = rank_file("o200k_base");

  SECTION("contractions: GPT-2's are lower case only, cl100k's (?i:...) any case") {
    const std::string text = "DON'T you're I'M He'LL";
    CHECK(pieces(gpt2, text) ==
          Pieces{"DON", "'", "T", " you", "'re", " I", "'", "M", " He", "'", "LL"});
    CHECK(pieces(cl100k, text) == Pieces{"DON", "'T", " you", "'re", " I", "'M", " He", "'LL"});
    CHECK(pieces(o200k, text) == Pieces{"DON'T", " you're", " I'M", " He'LL"});
  }
  SECTION("\\s+(?!\\S) leaves the last space of a run to the next word") {
    for (const auto* t : {&gpt2, &cl100k, &o200k}) {
      CHECK(pieces(*t, "a   b") == Pieces{"a", "  ", " b"});
      CHECK(pieces(*t, "a   b ") == Pieces{"a", "  ", " b", " "});
    }
  }
  SECTION("digits: GPT-2 keeps a run, cl100k and o200k cut groups of three") {
    const std::string text = "1234567 12 3.14159";
    CHECK(pieces(gpt2, text) == Pieces{"1234567", " 12", " 3", ".", "14159"});
    const Pieces groups{"123", "456", "7", " ", "12", " ", "3", ".", "141", "59"};
    CHECK(pieces(cl100k, text) == groups);
    CHECK(pieces(o200k, text) == groups);
  }
  SECTION("U+000B and U+0085 are white space (\\s is Unicode White_Space)") {
    const std::string text = "x\v\vy x\u0085\u0085y";
    CHECK(pieces(gpt2, text) == Pieces{"x", "\v", "\v", "y", " x", "\u0085", "\u0085", "y"});
    CHECK(pieces(cl100k, text) == Pieces{"x", "\v", "\vy", " x", "\u0085", "\u0085y"});
    CHECK(pieces(o200k, text) == Pieces{"x", "\v", "\vy", " x", "\u0085", "\u0085y"});
    CHECK(pieces(gpt2, "a\u00a0\u00a0b") == Pieces{"a", "\u00a0", "\u00a0", "b"});
    CHECK(pieces(cl100k, "a\u00a0\u00a0b") == Pieces{"a", "\u00a0", "\u00a0b"});
  }
  SECTION("line breaks") {
    CHECK(pieces(gpt2, "line1\r\n\n  next") == Pieces{"line", "1", "\r\n\n ", " next"});
    CHECK(pieces(cl100k, "line1\r\n\n  next") == Pieces{"line", "1", "\r\n\n", " ", " next"});
  }
  SECTION("o200k splits at case changes inside a word") {
    CHECK(pieces(cl100k, "HelloWorld's CamelCase") == Pieces{"HelloWorld", "'s", " CamelCase"});
    CHECK(pieces(o200k, "HelloWorld's CamelCase") == Pieces{"Hello", "World's", " Camel", "Case"});
  }
  SECTION("letters of any script") {
    for (const auto* t : {&gpt2, &cl100k, &o200k})
      CHECK(pieces(*t, "\u00e9t\u00e9 \u4e2d\u6587 !!?") ==
            Pieces{"\u00e9t\u00e9", " \u4e2d\u6587", " !!?"});
  }
}
