// The fused byte-level encoder (framework/pretrained/src/byte_level): the preset
// pattern's hand-written matcher, the piece cache, the vocabulary table and the
// merge loop in one pass must give exactly the ids of the pipeline it replaces
// (pre-tokenizers, then the model piece by piece), for tiktoken rank files and
// for tokenizer.json byte-level BPE, on text chosen to break each part; and
// the hand-written matchers must cut hostile text exactly as ICU runs the same
// pattern.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base64.hpp"
#include "byte_level/byte_level_encoder.hpp"
#include "common/regex_spans.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/thread_caches.hpp"
#include "tokenlab/utf8.hpp"

using tokenlab::ByteLevelEncoder;
using tokenlab::PretrainedTokenizer;
using tokenlab::Regex;
using tokenlab::test::base64;
using tokenlab::test::Ids;
using tokenlab::test::Spans;
using tokenlab::test::spans_of;

namespace {

// Text that meets every part of the patterns: contractions in both cases and
// curly quotes, digit runs of every length and of the three kinds of numbers,
// white space runs before letters and at line ends, letters of each case
// category, marks, symbols, emoji, format and private-use characters, slashes
// (o200k), and pieces longer than the cache's keys and the short merge loop.
std::vector<std::string> hostile_texts() {
  std::vector<std::string> texts = {
      "Hello world",
      "the thing's THE THING'S The Thing'S",
      "I'll've we'RE don't they'D you'Ve it'M 'sup '",
      "it\u2019s \u2018quoted\u2019",
      "1 12 123 1234 12345 1234567890 1,234.5 -42",
      "\u0663\u0664\u0665\u0666 \u216b\u2167 \u00bd\u00be",
      "a   b  c d",
      "   leading",
      "trailing   ",
      "\n\n\nx",
      " \n \n y",
      "\t\tz\t",
      "\u00a0\u2003w \u3000v",
      "\u0085x\u2028y\u2029z",
      "\r\n\r\nq\r",
      "\u01c5ungla \u02b0ello \u01c4ABC",
      "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
      "e\u0301t\u00e9 \u0915\u093c\u093f \u0939\u093f\u0928\u094d\u0926\u0940",
      "\u03a9\u2248\u00e7\u221a\u222b\u02dc\u00b5\u2264\u2265\u00f7",
      "\U0001F642\U0001F44D\U0001F3FD!!",
      "zero\u200bwidth\u200djoin \ue000private",
      "a/b //c\n/// path/to/file.txt\n",
      "(x) [y] {z} <w> \"q\" ...?!",
      "https://example.org/a/very/long/path/with_many_segments?and=query",
      std::string(300, ' ') + "x",
      std::string(200, 'a'),
      std::string(150, '!') + std::string(40, '\n'),
      "Antidisestablishmentarianism supercalifragilisticexpialidocious",
      "CamelCaseWordsAndALLCAPSWords mixedUPandDown",
      // DeepSeek V3's splits: numbers cut in threes before anything else, the
      // two ranges (U+3040..U+30FF, U+4E00..U+9FA5) and what in them is no
      // letter, ASCII punctuation before ASCII letters, controls.
      "\u4fa1\u683c\u306f12345\u5186\u3001\u30b2\u30fc\u30e0\u30fb\u30bb\u30f3\u30bf\u30fc",
      "\u3099\u0301D \u309b\u30a0x \u9fa5\u9fa6\u3040\u30ff\u3100 \u2167\u2168x",
      "x.com/path 'quoted' (a)b .NET \u0001\u0002y \u00adz \u20ac5 \u00a7a",
  };
  return texts;
}

// Merges in priority order, as raw bytes: a small English-like vocabulary in
// which some tokens are reached from more than one pair.
const std::vector<std::pair<std::string, std::string>>& raw_merges() {
  static const std::vector<std::pair<std::string, std::string>> merges = {
      {"t", "h"},  {"th", "e"},  {" ", "the"}, {"i", "n"},  {"in", "g"},      {" ", "t"},
      {" t", "h"}, {"e", "r"},   {"h", "e"},   {"l", "l"},  {"he", "ll"},     {"hell", "o"},
      {" ", " "},  {"  ", "  "}, {"\n", "\n"}, {"1", "2"},  {"12", "3"},      {"'", "s"},
      {"a", "a"},  {"aa", "aa"}, {"T", "H"},   {"TH", "E"}, {" ", "in"},      {"o", "n"},
      {"a", "t"},  {"e", "s"},   {"/", "/"},   {"!", "!"},  {"\xe3", "\x81"}, {"a", "n"},
      {"an", "d"}, {" ", "and"}, {"w", "or"},  {"o", "r"},  {"or", "d"},      {"w", "ord"},
  };
  return merges;
}

// tiktoken: every byte ranked by its value, then each merge's result in merge
// order (a token reached twice keeps its first rank).
std::string rank_file() {
  std::string file;
  std::vector<std::string> seen;
  for (int b = 0; b < 256; ++b)
    file += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  int rank = 256;
  for (const auto& [a, b] : raw_merges()) {
    const std::string token = a + b;
    if (std::find(seen.begin(), seen.end(), token) != seen.end()) continue;
    seen.push_back(token);
    file += base64(token) + " " + std::to_string(rank++) + "\n";
  }
  file += base64("xyz") + " " + std::to_string(rank) + "\n";  // reached by no merge
  return file;
}

std::string json_string(std::string_view raw_bytes) {
  std::string spelled;
  for (const char c : raw_bytes)
    tokenlab::utf8::append(spelled, tokenlab::byte_level_alphabet()[static_cast<unsigned char>(c)]);
  std::string out = "\"";
  for (const char c : spelled) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

using RawMerges = std::vector<std::pair<std::string, std::string>>;

// raw_merges() and more ways to make three of its tokens, as Llama 3's file
// lists every split of a token: merges that are not one a token.
const RawMerges& raw_merges_every_split() {
  static const RawMerges merges = [] {
    RawMerges m = raw_merges();
    m.insert(m.end(), {{"t", "he"}, {" t", "he"}, {"wor", "d"}});
    return m;
  }();
  return merges;
}

// A GPT-2-alphabet tokenizer.json with these merges (each result a token, in
// the order first made), split by pattern.
std::string tokenizer_json(std::string_view pattern, bool ignore_merges,
                           const RawMerges& merges = raw_merges()) {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(1, static_cast<char>(b));
  for (const auto& [a, b] : merges)
    if (std::find(vocab.begin(), vocab.end(), a + b) == vocab.end()) vocab.push_back(a + b);
  vocab.emplace_back("xyz");
  std::string json = R"({"version":"1.0","model":{"type":"BPE","ignore_merges":)" +
                     std::string(ignore_merges ? "true" : "false") + R"(,"vocab":{)";
  for (std::size_t i = 0; i < vocab.size(); ++i)
    json += (i ? "," : "") + json_string(vocab[i]) + ":" + std::to_string(i);
  json += R"(},"merges":[)";
  for (std::size_t i = 0; i < merges.size(); ++i)
    json += std::string(i ? "," : "") + "[" + json_string(merges[i].first) + "," +
            json_string(merges[i].second) + "]";
  json += R"(]},"pre_tokenizer":{"type":"Sequence","pretokenizers":[)";
  // A key of several patterns (kDeepSeekV3Splits) is a Split for each.
  for (const std::string_view split : tokenlab::test::patterns_of(pattern)) {
    std::string escaped;
    for (const char c : split) {
      if (c == '"' || c == '\\') escaped += '\\';
      if (c == '\r' || c == '\n') {
        escaped += c == '\r' ? "\\r" : "\\n";
        continue;
      }
      escaped += c;
    }
    json += R"({"type":"Split","pattern":{"Regex":")" + escaped +
            R"("},"behavior":"Isolated","invert":false},)";
  }
  json +=
      R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]},)"
      R"("decoder":{"type":"ByteLevel"}})";
  return json;
}

// The ids of the pipeline the fused encoder stands in for: the pre-tokenizers'
// pieces, each encoded by the model.
Ids unfused(const PretrainedTokenizer& tokenizer, std::string_view text) {
  Ids ids;
  tokenizer.for_each_piece(
      text, [&](std::string_view piece, bool) { tokenizer.pipeline().model->encode(piece, ids); });
  return ids;
}

}  // namespace

TEST_CASE("fused tiktoken encoding gives the pipeline's ids on hostile text",
          "[pretrained][byte_level]") {
  const std::string encoding = GENERATE("gpt2", "cl100k_base", "o200k_base");
  CAPTURE(encoding);
  const auto tokenizer = PretrainedTokenizer::from_bytes(rank_file(), "test.tiktoken",
                                                         std::string("tiktoken:") + encoding);
  REQUIRE(tokenizer.pipeline().byte_level != nullptr);
  for (const std::string& text : hostile_texts()) {
    CAPTURE(text);
    const Ids expected = unfused(tokenizer, text);
    CHECK(tokenizer.encode(text) == expected);
    CHECK(tokenizer.encode(text) == expected);  // now from the piece cache
  }
}

TEST_CASE("a thread whose caches were prepared encodes as a thread without them",
          "[pretrained][byte_level]") {
  const auto o200k =
      PretrainedTokenizer::from_bytes(rank_file(), "test.tiktoken", "tiktoken:o200k_base");
  const auto cl100k =
      PretrainedTokenizer::from_bytes(rank_file(), "test.tiktoken", "tiktoken:cl100k_base");
  std::vector<Ids> expected_o200k, expected_cl100k;
  for (const std::string& text : hostile_texts()) {
    expected_o200k.push_back(unfused(o200k, text));
    expected_cl100k.push_back(unfused(cl100k, text));
  }
  // On a thread of its own: prepared twice (the second does nothing), then
  // the prepared cache taken by one encoder and, once that encoder's entries
  // fill it, by a second encoder, which must not find the first one's pieces.
  std::vector<Ids> got_o200k, got_cl100k, again_o200k;
  std::thread worker([&] {
    tokenlab::prepare_thread_caches();
    tokenlab::prepare_thread_caches();
    for (const std::string& text : hostile_texts()) got_o200k.push_back(o200k.encode(text));
    for (const std::string& text : hostile_texts()) got_cl100k.push_back(cl100k.encode(text));
    for (const std::string& text : hostile_texts()) again_o200k.push_back(o200k.encode(text));
  });
  worker.join();
  CHECK(got_o200k == expected_o200k);
  CHECK(got_cl100k == expected_cl100k);
  CHECK(again_o200k == expected_o200k);
}

TEST_CASE("fused tiktoken encoding takes a whole piece that is a token, then merges by rank",
          "[pretrained][byte_level]") {
  const auto o200k =
      PretrainedTokenizer::from_bytes(rank_file(), "test.tiktoken", "tiktoken:o200k_base");
  // "xyz" is a token no merge reaches: tiktoken takes a whole piece first.
  const Ids xyz = o200k.encode("xyz");
  REQUIRE(xyz.size() == 1);
  CHECK(o200k.token(xyz[0]) == "xyz");
  // " the" is one token; " thing" merges " th" (rank of " t" first), then "ing".
  CHECK(o200k.encode(" the").size() == 1);
  CHECK(o200k.encode(" thing").size() == 2);
  CHECK(o200k.decode(o200k.encode(" thing's")) == " thing's");
}

TEST_CASE("fused tokenizer.json byte-level BPE gives the pipeline's ids on hostile text",
          "[pretrained][byte_level]") {
  const auto pattern =
      GENERATE(std::string(tokenlab::kGpt2Pattern), std::string(tokenlab::kCl100kPattern),
               std::string(tokenlab::kQwen2Pattern), std::string(tokenlab::kO200kPattern),
               std::string(tokenlab::kDeepSeekV3Splits));
  const bool ignore_merges = GENERATE(false, true);
  // One merge a token in token order (GPT-4o's, Qwen 3's files) takes the ranks
  // rule with each token's split; several merges a token, HF's merge table.
  const bool every_split = GENERATE(false, true);
  CAPTURE(pattern, ignore_merges, every_split);
  const auto tokenizer = tokenlab::test::tokenizer_json(tokenizer_json(
      pattern, ignore_merges, every_split ? raw_merges_every_split() : raw_merges()));
  REQUIRE(tokenizer.pipeline().byte_level != nullptr);
  CHECK(tokenizer.pipeline().byte_level->rule() ==
        (every_split ? ByteLevelEncoder::Rule::merges : ByteLevelEncoder::Rule::token_splits));
  for (const std::string& text : hostile_texts()) {
    CAPTURE(text);
    const Ids expected = unfused(tokenizer, text);
    CHECK(tokenizer.encode(text) == expected);
    CHECK(tokenizer.encode(text) == expected);
  }
  // A token no merge reaches is taken whole only with ignore_merges, as HF does.
  CHECK(tokenizer.encode("xyz").size() == (ignore_merges ? 1u : 3u));
}

TEST_CASE("one merge a token: a pair merges only where its token's merge splits it",
          "[pretrained][byte_level]") {
  // "abc" is made by a + bc only; ab + c is no merge although both are tokens.
  // "abcd" by abc + d; "cd" comes last, so that "abcd" is also ab + cd.
  const RawMerges merges = {{"a", "b"}, {"b", "c"}, {"a", "bc"}, {"abc", "d"}, {"c", "d"}};
  const auto tokenizer =
      tokenlab::test::tokenizer_json(tokenizer_json(tokenlab::kGpt2Pattern, false, merges));
  REQUIRE(tokenizer.pipeline().byte_level != nullptr);
  REQUIRE(tokenizer.pipeline().byte_level->rule() == ByteLevelEncoder::Rule::token_splits);
  const auto id = [&](const std::string& token) {
    return *tokenizer.pipeline().tokens->find(token);
  };
  // HF: "a b" (rank 0) before "b c" (rank 1), then "ab c" is no merge.
  CHECK(tokenizer.encode("abc") == Ids{id("ab"), id("c")});
  // "ab c d": "c d" (rank 4) makes "cd", and "ab cd" is no merge either.
  CHECK(tokenizer.encode("abcd") == Ids{id("ab"), id("cd")});
  // "b c" (rank 1) before "c d", and "bc d" is no token.
  CHECK(tokenizer.encode("bcd") == Ids{id("bc"), id("d")});
  for (const std::string text : {"abc", "abcd", "bcd", "aabcc", "ab abc abcd bcd", "abcabcabc"}) {
    CAPTURE(text);
    CHECK(tokenizer.encode(text) == unfused(tokenizer, text));
  }
}

TEST_CASE("DeepSeek V3's three splits cut a text as HF's Sequence of them does",
          "[pretrained][byte_level][regex]") {
  const auto run =
      tokenlab::split_sequence_run(tokenlab::kDeepSeekV3Splits, tokenlab::UnicodeVersion::v16_0);
  REQUIRE(run != nullptr);
  const auto pieces = [&](std::string_view text) {
    // A small capacity: the runs must pick up where they stopped.
    const Spans spans = tokenlab::test::run_pieces(run, text, 4);
    REQUIRE(!spans.empty());
    REQUIRE(spans.back().second == text.size());  // no run stopped short
    std::vector<std::string> out;
    for (const auto& [start, end] : spans) out.emplace_back(text.substr(start, end - start));
    return out;
  };
  using Pieces = std::vector<std::string>;
  // The numbers first, three at a time from the run's start: "Price: ",
  // "123", "45", " yen, 日本語テキスト!". Then the run of the two ranges:
  // " yen, ", "日本語テキスト", "!". Then the words in each: the space before
  // "yen" joins it, and the space before the range's run, at its piece's end,
  // stands alone (\s+(?!\S) sees no further than the piece).
  CHECK(pieces("Price: 12345 yen, \u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8!") ==
        Pieces{"Price", ":", " ", "123", "45", " yen", ",", " ",
               "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8", "!"});
  // ASCII punctuation takes the ASCII letters after it; before others it is
  // punctuation of its own.
  CHECK(pieces("x.com it's .\u00e9") == Pieces{"x", ".com", " it", "'s", " .", "\u00e9"});
  // A kana mark (Mn, in the range) parts from an accent (Mn, outside it).
  CHECK(pieces("\u3099\u0301D") == Pieces{"\u3099", "\u0301D"});
  // A control before a space matches nothing: a piece of its own.
  CHECK(pieces("a\u0001 b") == Pieces{"a", "\u0001", " b"});
  // Ill-formed UTF-8 stops the run: the fused encoder never gets such text.
  std::size_t ends[4];
  CHECK(run("\xff", 0, ends, 4) == 0);
  CHECK(tokenlab::split_sequence_run(tokenlab::kO200kPattern, tokenlab::UnicodeVersion::v16_0) ==
        nullptr);
}

TEST_CASE("a pipeline the fused encoder does not cover keeps its own steps",
          "[pretrained][byte_level]") {
  // A pattern that is no preset, and a ByteLevel that adds a prefix space.
  CHECK(tokenlab::test::tokenizer_json(tokenizer_json(R"(\w+|\s+|[^\w\s]+)", false))
            .pipeline()
            .byte_level == nullptr);
  std::string prefixed = tokenizer_json(tokenlab::kO200kPattern, false);
  const std::string no_prefix = R"("add_prefix_space":false)";
  prefixed.replace(prefixed.find(no_prefix), no_prefix.size(), R"("add_prefix_space":true)");
  const auto tokenizer = tokenlab::test::tokenizer_json(prefixed);
  CHECK(tokenizer.pipeline().byte_level == nullptr);
  CHECK(tokenizer.encode("the") == unfused(tokenizer, "the"));
}

TEST_CASE("the hand-written preset matchers cut hostile text as ICU runs the pattern",
          "[pretrained][byte_level][regex]") {
  const auto pattern =
      GENERATE(std::string(tokenlab::kGpt2Pattern), std::string(tokenlab::kCl100kPattern),
               std::string(tokenlab::kQwen2Pattern), std::string(tokenlab::kO200kPattern));
  CAPTURE(pattern);
  const Regex preset{pattern};
  // Wrapped, the pattern is no preset: ICU matches it.
  const Regex icu{"(?:" + pattern + ")"};
  // One character of each general category (Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc
  // Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Co), the characters the
  // patterns name (apostrophes, s t d m r e v l in both cases, \r \n / space),
  // and ill-formed UTF-8 (a stray continuation byte, a cut sequence, 0xFF),
  // which the matchers leave to ICU.
  const std::vector<std::string> units = {
      "A",      "a",      "\u01c5", "\u02b0", "\u4e2d", "\u0301", "\u0903", "\u20dd", "7",
      "\u2167", "\u00bd", "_",      "-",      "(",      ")",      "\u00ab", "\u00bb", "!",
      "+",      "$",      "^",      "\u00a9", " ",      "\u2028", "\u2029", "\t",     "\u200b",
      "\ue000", "'",      "\u2019", "s",      "S",      "t",      "T",      "d",      "m",
      "r",      "e",      "v",      "l",      "L",      "\r",     "\n",     "/",      "\u00a0",
      "\u0085", "\x80",   "\xc3",   "\xff"};
  std::size_t texts = 0;
  for (const std::string& a : units)
    for (const std::string& b : units)
      for (const std::string& c : {std::string("x"), std::string(" "), std::string("'s"),
                                   std::string("\n"), std::string("12345")}) {
        for (const std::string& text : {a + b + c, c + a + b, a + " " + b + c}) {
          ++texts;
          const Spans expected = spans_of(icu, text);
          if (spans_of(preset, text) != expected) {
            CAPTURE(text);
            CHECK(spans_of(preset, text) == expected);
          }
        }
      }
  CHECK(texts == units.size() * units.size() * 15);
}
