// tokenlab lab's API (lab_api.hpp) as a function: every endpoint, and every bad
// request getting a clear status and message.
#include <rapidjson/document.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "lab/bpe_walkthrough.hpp"
#include "lab_support.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

using namespace tokenlab;
using namespace tokenlab::lab;

namespace {

Response get(const std::string& target) {
  return test::fixture_api().handle({"GET", target, ""});
}
Response post(const std::string& target, const std::string& body) {
  return test::fixture_api().handle({"POST", target, body});
}

rapidjson::Document json(const Response& r) {
  rapidjson::Document d;
  d.Parse(r.body.c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

std::string error_of(const Response& r) {
  const auto d = json(r);
  REQUIRE(d.HasMember("error"));
  return d["error"].GetString();
}

}  // namespace

TEST_CASE("lab: the page and its files are served from the binary, nothing else", "[lab]") {
  const Response page = get("/");
  CHECK(page.status == 200);
  CHECK(page.content_type.starts_with("text/html"));
  CHECK_THAT(page.body, Catch::Contains("BPE by hand") && Catch::Contains("/lab.js"));
  CHECK(get("/lab.js").content_type.starts_with("text/javascript"));
  CHECK(get("/lab.css").status == 200);
  // No path reaches the disk.
  for (const char* path : {"/../etc/passwd", "/etc/passwd", "/assets/lab.js", "/index.htm"}) {
    INFO(path);
    CHECK(get(path).status == 404);
  }
  CHECK(test::fixture_api().handle({"POST", "/", ""}).status == 405);
}

TEST_CASE("lab: /api/tokenizers lists the loaded tokenizers and the opening texts", "[lab]") {
  const auto d = json(get("/api/tokenizers"));
  REQUIRE(d["tokenizers"].Size() == 5);
  CHECK(std::string(d["tokenizers"][2]["name"].GetString()) == "bpe");
  CHECK(d["tokenizers"][2]["vocab_size"].GetUint64() == 400);
  CHECK(d["tokenizers"][2]["sampling"].GetBool());
  CHECK_FALSE(d["tokenizers"][0]["sampling"].GetBool());  // character
  // The page opens on English, what the fixture's models were trained on; the
  // other languages are section 7's, English first.
  REQUIRE(d["opening_texts"].Size() == 1);
  REQUIRE(d["multilingual_texts"].Size() == 2);
  CHECK(std::string(d["multilingual_texts"][0]["language"].GetString()) == "English");
  CHECK(std::string(d["multilingual_texts"][1]["language"].GetString()) == "Hindi");
  REQUIRE(d["fonts"].Size() == 1);
  CHECK(std::string(d["fonts"][0].GetString()) == "Test-Regular.ttf");
}

TEST_CASE("lab: the fonts the lab was given are served, no others", "[lab]") {
  const Response font = get("/fonts/Test-Regular.ttf");
  CHECK(font.status == 200);
  CHECK(font.content_type == "font/ttf");
  CHECK(font.body == "not really a font");
  const Response missing = get("/fonts/NotoSansDevanagari-Regular.ttf");
  CHECK(missing.status == 404);
  CHECK_THAT(error_of(missing), Catch::Contains("fonts-noto-core"));
  CHECK(get("/fonts/../lab.js").status == 404);
}

TEST_CASE("lab: partial UTF-8 has one notation, <0xNN>, for real tokenizers and tokenlab's",
          "[lab]") {
  // A tiktoken vocabulary of the 256 bytes and one merge, E0 A4: the first two
  // bytes of ब (E0 A4 AC), a token that ends inside a character.
  const auto base64 = [](const std::string& bytes) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
      std::uint32_t n = static_cast<std::uint8_t>(bytes[i]) << 16;
      if (i + 1 < bytes.size()) n |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
      if (i + 2 < bytes.size()) n |= static_cast<std::uint8_t>(bytes[i + 2]);
      out += kAlphabet[(n >> 18) & 63];
      out += kAlphabet[(n >> 12) & 63];
      out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
      out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
    }
    return out;
  };
  std::string ranks;
  for (int b = 0; b < 256; ++b)
    ranks += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  ranks += base64("\xE0\xA4") + " 256\n";
  auto real = std::make_shared<const PretrainedTokenizer>(
      PretrainedTokenizer::from_bytes(ranks, "tiny.tiktoken", "tiktoken:gpt2"));
  const LabTokenizer tiny("tiny", real);
  const Chips chips = tiny.chips("aब");
  REQUIRE(chips.tokens.size() == 3);
  CHECK(chips.tokens[0].text == "a");
  CHECK_FALSE(chips.tokens[0].byte_fallback);
  CHECK(chips.tokens[1].text == "<0xE0><0xA4>");
  CHECK(chips.tokens[1].byte_fallback);
  CHECK(chips.tokens[2].text == "<0xAC>");
  CHECK(chips.tokens[2].byte_fallback);
  // `tokenlab encode --pieces` keeps its own notation.
  CHECK(real->display_piece(chips.tokens[1].id) == "\\xE0\\xA4");
}

TEST_CASE("lab: /api/encode gives each tokenizer's chips, the ids `tokenlab encode` gives",
          "[lab]") {
  const std::string text = "The river flows north, past the old mill.\nA second line.";
  const auto d = json(post(
      "/api/encode", R"({"text": "The river flows north, past the old mill.\nA second line."})"));
  REQUIRE(d["results"].Size() == 5);
  for (const auto& result : d["results"].GetArray()) {
    const std::string name = result["name"].GetString();
    INFO(name);
    // The same training as the catalog's, encoded line by line as `tokenlab encode` does.
    const auto model = test::trained_on_fixture(name, 400);
    std::vector<TokenId> expected;
    model->encode("The river flows north, past the old mill.", expected);
    model->encode("A second line.", expected);
    std::vector<TokenId> ids;
    std::uint64_t last_word = 0;
    for (const auto& token : result["tokens"].GetArray()) {
      ids.push_back(token[0].GetUint());
      CHECK(token[2].GetUint64() >= last_word);  // words in order
      last_word = token[2].GetUint64();
    }
    CHECK(ids == expected);
    CHECK(result["token_count"].GetUint64() == ids.size());
    CHECK(result["characters"].GetUint64() == text.size() - 1);  // ASCII, no line break
  }
  SECTION("a chosen subset, and the unknown token flagged") {
    const auto w = json(post("/api/encode", R"({"text": "zyzzyva", "tokenizers": ["word"]})"));
    REQUIRE(w["results"].Size() == 1);
    const auto& token = w["results"][0]["tokens"][0];
    CHECK(std::string(token[1].GetString()) == "<unk>");
    CHECK((token[3].GetUint() & 1U) == 1U);
    CHECK(w["results"][0]["unknown"].GetUint64() == 1);
  }
}

TEST_CASE("lab: /api/bpe steps the textbook example exactly as tokenlab trace", "[lab]") {
  const auto d = json(post("/api/bpe", R"({"words": "low:5 lower:2 newest:6 widest:3 wider:2",
                                           "merges": 8, "encode": "lowest"})"));
  CHECK(d["start_tokens"].GetUint64() == 107);
  CHECK(d["start_symbols"].GetUint64() == 11);
  REQUIRE(d["steps"].Size() == 8);
  // ALGORITHMS.md's table: pair, count, tokens after, vocabulary.
  const struct {
    const char* left;
    const char* right;
    unsigned count, tokens, vocabulary;
  } textbook[] = {{"e", "s", 9, 98, 12},  {"es", "t", 9, 89, 13},       {"est", "</w>", 9, 80, 14},
                  {"l", "o", 7, 73, 15},  {"lo", "w", 7, 66, 16},       {"n", "e", 6, 60, 17},
                  {"ne", "w", 6, 54, 18}, {"new", "est</w>", 6, 48, 19}};
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& step = d["steps"][static_cast<rapidjson::SizeType>(i)];
    INFO("step " << i + 1);
    CHECK(std::string(step["merged"]["left"].GetString()) == textbook[i].left);
    CHECK(std::string(step["merged"]["right"].GetString()) == textbook[i].right);
    CHECK(step["merged"]["count"].GetUint() == textbook[i].count);
    CHECK(step["tokens"].GetUint() == textbook[i].tokens);
    CHECK(step["vocabulary"].GetUint() == textbook[i].vocabulary);
    // The chosen pair is the first of those tied at the top count.
    CHECK(std::string(step["tied"][0]["left"].GetString()) == textbook[i].left);
    CHECK(step["tied"][0]["count"].GetUint() == textbook[i].count);
  }
  // Step 1 ties e+s with s+t and t+</w> (9 each: newest 6 + widest 3); e+s is seen first.
  CHECK(d["steps"][0]["tied"].Size() == 3);
  // The pairs are ranked as BPE ranks them: by count, then where first seen
  // (word, then symbol), so the first row is the pair merged next.
  const auto& pairs = d["steps"][0]["pairs"];
  REQUIRE(pairs.Size() >= 4);
  const struct {
    const char* left;
    const char* right;
    unsigned count;
    const char* word;
    unsigned position;
  } ranked[] = {{"e", "s", 9, "newest", 4},
                {"s", "t", 9, "newest", 5},
                {"t", "</w>", 9, "newest", 6},
                {"w", "e", 8, "lower", 3}};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& p = pairs[static_cast<rapidjson::SizeType>(i)];
    INFO("row " << i + 1);
    CHECK(std::string(p["left"].GetString()) == ranked[i].left);
    CHECK(std::string(p["right"].GetString()) == ranked[i].right);
    CHECK(p["count"].GetUint() == ranked[i].count);
    CHECK(std::string(p["first_word"].GetString()) == ranked[i].word);
    CHECK(p["first_position"].GetUint() == ranked[i].position);
  }
  const auto& last = d["steps"][7]["encoded"];
  REQUIRE(last.Size() == 2);
  CHECK(std::string(last[0].GetString()) == "low");
  CHECK(std::string(last[1].GetString()) == "est</w>");
}

TEST_CASE("lab: /api/sweep and /api/sample", "[lab]") {
  const auto sweep = json(get("/api/sweep"));
  CHECK(std::string(sweep["status"].GetString()) == "ready");
  CHECK(sweep["points"].Size() == 2);
  const auto samples =
      json(post("/api/sample", R"({"tokenizer": "unigram", "word": "tokenization", "count": 20})"));
  REQUIRE(samples["samples"].Size() == 20);
  std::set<std::string> distinct;
  for (const auto& s : samples["samples"].GetArray()) {
    std::string joined;
    for (const auto& piece : s.GetArray()) joined += std::string(piece.GetString()) + "|";
    distinct.insert(joined);
  }
  CHECK(distinct.size() > 1);  // sampling varies
  // The same seed, the same draws.
  CHECK(post("/api/sample", R"({"tokenizer": "bpe", "word": "lower", "seed": 7})").body ==
        post("/api/sample", R"({"tokenizer": "bpe", "word": "lower", "seed": 7})").body);
}

TEST_CASE("lab: bad requests get a clear status and message", "[lab]") {
  const auto check = [](const Response& r, int status, const std::string& message) {
    CHECK(r.status == status);
    CHECK_THAT(error_of(r), Catch::Contains(message));
  };
  check(post("/api/encode", "{not json"), 400, "not JSON");
  check(post("/api/encode", "[1, 2]"), 400, "JSON object");
  check(post("/api/encode", R"({"txt": "a"})"), 400, "'text' is missing");
  check(post("/api/encode", R"({"text": 42})"), 400, "'text' must be a string");
  check(post("/api/encode", R"({"text": "a", "tokenizers": ["gpt9"]})"), 404,
        "no tokenizer is named 'gpt9'");
  check(post("/api/encode", "{\"text\": \"\xff\xfe\"}"), 400, "");
  check(post("/api/encode", R"({"text": ")" + std::string(kMaxTextBytes + 1, 'a') + "\"}"), 413,
        "the lab takes");
  check(post("/api/encode", std::string(kMaxBodyBytes + 1, ' ')), 413, "request body");
  check(post("/api/bpe", R"({"words": "low:x"})"), 400, "must be a number");
  check(post("/api/bpe", R"({"words": "low:5", "merges": 100000})"), 400, "from 0 to 500");
  check(post("/api/sample", R"({"tokenizer": "character", "word": "abc"})"), 400, "cannot sample");
  check(post("/api/sample", R"({"tokenizer": "unigram", "word": "two words"})"), 400, "one word");
  check(get("/api/encode"), 405, "takes POST");
  check(post("/api/tokenizers", "{}"), 405, "takes GET");
  check(get("/api/nothing"), 404, "no endpoint");
}

TEST_CASE("lab: a deeply nested request body is refused before it is parsed", "[lab]") {
  // Issue 27, 1: 120,000 `[` overflowed the stack of rapidjson's recursive Parse.
  for (const char* target : {"/api/encode", "/api/bpe", "/api/sample"}) {
    INFO(target);
    const Response r = post(target, std::string(120000, '['));
    CHECK(r.status == 400);
    CHECK_THAT(error_of(r), Catch::Contains("the request body: JSON nests deeper than 32"));
  }
  // Up to the limit the body is parsed (and refused for what it is).
  CHECK_THAT(error_of(post("/api/encode", std::string(32, '[') + std::string(32, ']'))),
             Catch::Contains("JSON object"));
  // Brackets inside strings are text.
  CHECK(post("/api/encode", R"({"text": ")" + std::string(1000, '[') + R"("})").status == 200);
}

TEST_CASE("lab: /api/encode deduplicates names and refuses more than there are tokenizers",
          "[lab]") {
  // Issue 27, 6: 15,000 copies of one name in a 245 KB body grew to 3.7 GB.
  std::string names;
  for (int i = 0; i < 15000; ++i) names += std::string(i ? ", " : "") + "\"bpe\"";
  const Response many = post("/api/encode", R"({"text": "the", "tokenizers": [)" + names + "]}");
  CHECK(many.status == 413);
  CHECK_THAT(error_of(many), Catch::Contains("15000 tokenizer names, but the lab has 5"));
  const auto d =
      json(post("/api/encode", R"({"text": "the", "tokenizers": ["bpe", "word", "bpe", "bpe"]})"));
  REQUIRE(d["results"].Size() == 2);
  CHECK(std::string(d["results"][0]["name"].GetString()) == "bpe");
  CHECK(std::string(d["results"][1]["name"].GetString()) == "word");
}

TEST_CASE("lab: /api/bpe caps its fields and lists the most frequent pairs of each step", "[lab]") {
  SECTION("encode is one word of at most 256 bytes") {
    // Issue 27, 6: a 248 KB `encode` grew to 3.45 GB.
    const Response r =
        post("/api/bpe", R"({"words": "low:5", "encode": ")" + std::string(248000, 'a') + "\"}");
    CHECK(r.status == 413);
    CHECK_THAT(error_of(r), Catch::Contains("over 256 bytes"));
    CHECK(post("/api/bpe", R"({"words": "low:5", "encode": ")" + std::string(256, 'a') + "\"}")
              .status == 200);
  }
  SECTION("200 random 38-letter words and 500 merges") {
    // Issue 27, 6: 7.8 KB of request gave 82.6 MB of answer.
    std::mt19937 random(27);
    std::string words;
    for (int i = 0; i < 200; ++i) {
      for (int j = 0; j < 38; ++j) words += static_cast<char>('a' + random() % 26);
      words += ' ';
    }
    const Response r =
        post("/api/bpe", R"({"words": ")" + words + R"(", "merges": 500, "encode": "lowest"})");
    REQUIRE(r.status == 200);
    CHECK(r.body.size() < 4 * 1024 * 1024);
    const auto d = json(r);
    CHECK(d["pairs_shown"].GetUint64() == kMaxPairsShown);
    REQUIRE(d["steps"].Size() == 500);
    CHECK(d["steps"][0]["pairs_total"].GetUint64() > 600);  // of 26 * 26 + 26
    for (const auto& step : d["steps"].GetArray()) {
      REQUIRE(step["pairs"].Size() <= kMaxPairsShown);
      REQUIRE(step["tied"].Size() <= kMaxPairsShown);
      REQUIRE(step["pairs_total"].GetUint64() >= step["pairs"].Size());
      REQUIRE(step["tied_total"].GetUint64() >= step["tied"].Size());
      // The pair merged is listed, first of the tied, and the listed counts
      // are the top ones: none above the merged pair's.
      REQUIRE(std::string(step["tied"][0]["left"].GetString()) ==
              step["merged"]["left"].GetString());
      for (const auto& p : step["pairs"].GetArray())
        REQUIRE(p["count"].GetUint64() <= step["merged"]["count"].GetUint64());
      // Ranked: the first row is the pair merged, and counts never rise.
      REQUIRE(std::string(step["pairs"][0]["left"].GetString()) ==
              step["merged"]["left"].GetString());
      REQUIRE(std::string(step["pairs"][0]["right"].GetString()) ==
              step["merged"]["right"].GetString());
      for (rapidjson::SizeType i = 1; i < step["pairs"].Size(); ++i)
        REQUIRE(step["pairs"][i]["count"].GetUint64() <= step["pairs"][i - 1]["count"].GetUint64());
    }
    // Late steps tie thousands of pairs at count 1.
    CHECK(d["steps"][499]["tied_total"].GetUint64() > kMaxPairsShown);
  }
  SECTION("the textbook example is listed whole") {
    const auto d = json(post("/api/bpe", R"({"merges": 8})"));
    for (const auto& step : d["steps"].GetArray()) {
      CHECK(step["pairs"].Size() == step["pairs_total"].GetUint64());
      CHECK(step["tied"].Size() == step["tied_total"].GetUint64());
    }
    CHECK(d["steps"][0]["tied_total"].GetUint64() == 3);
  }
}

TEST_CASE("lab: a request past its deadline is 503, and so is an answer over the size limit",
          "[lab]") {
  // Issue 27, 6 and 8: work and answers without bound.
  const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  for (const auto& [target, body] :
       {std::pair<std::string, std::string>{"/api/encode", R"({"text": "the old mill"})"},
        {"/api/bpe", R"({"merges": 8})"}}) {
    INFO(target);
    const Response r = test::fixture_api().handle({"POST", target, body, past});
    CHECK(r.status == 503);
    CHECK_THAT(error_of(r), Catch::Contains("took too long"));
  }
  // The page's files and the list do not wait for anything.
  CHECK(test::fixture_api().handle({"GET", "/api/tokenizers", "", past}).status == 200);

  const LabApi small(test::fixture_catalog(), test::lab_plugins(), test::fixture_sweep(), {}, 4096);
  CHECK(small.handle({"POST", "/api/encode", R"({"text": "the old mill"})"}).status == 200);
  const Response big = small.handle(
      {"POST", "/api/encode", R"({"text": ")" + std::string(2000, 'x') + " the old mill\"}"});
  CHECK(big.status == 413);
  CHECK_THAT(error_of(big), Catch::Contains("the answer would be over 4096 bytes"));
}

TEST_CASE("lab: where each request runs", "[lab]") {
  CHECK(LabApi::cost({"GET", "/", ""}) == Cost::instant);
  CHECK(LabApi::cost({"GET", "/api/tokenizers", ""}) == Cost::instant);
  CHECK(LabApi::cost({"GET", "/api/encode", ""}) == Cost::instant);  // 405 at once
  CHECK(LabApi::cost({"POST", "/api/encode?x=1", ""}) == Cost::work);
  CHECK(LabApi::cost({"POST", "/api/sample", ""}) == Cost::work);
  CHECK(LabApi::cost({"POST", "/api/bpe", ""}) == Cost::walkthrough);
}
