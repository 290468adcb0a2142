// The BPE segmenter: units, unknown characters, byte fallback, byte-level round
// trips, dropout, save/load and option validation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bpe_test_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/error.hpp"

using namespace tokenlab;
using namespace tokenlab::bpe;
using namespace tokenlab::bpe::test;
using Catch::Matchers::Contains;

namespace {

std::string saved(const BpeSegmenter& bpe) {
  std::ostringstream out;
  bpe.save(out);
  return out.str();
}

std::vector<TokenId> encode(const BpeSegmenter& bpe, std::string_view word) {
  std::vector<TokenId> ids;
  bpe.encode(word, ids);
  return ids;
}

std::string random_bytes(std::mt19937_64& rng, std::size_t max_length) {
  std::string s(1 + rng() % max_length, '\0');
  for (char& c : s) c = static_cast<char>(rng() % 256);
  return s;
}

}  // namespace

TEST_CASE("The segmenter advertises its name and capabilities", "[bpe]") {
  BpeSegmenter bpe;
  CHECK(bpe.name() == "bpe");
  CHECK((bpe.capabilities() & kCapabilitySampling) != 0);
  CHECK((bpe.capabilities() & kCapabilityTrace) != 0);
  CHECK((bpe.capabilities() & kCapabilityNBest) == 0);
}

TEST_CASE("Default character BPE reserves <unk> and encodes unseen characters with it", "[bpe]") {
  BpeSegmenter bpe;
  TrainOptions options;
  options.vocab_size = 200;
  bpe.train(fixture_counts(), options, nullptr);
  REQUIRE(bpe.vocabulary().unknown_id() == TokenId{0});
  CHECK(bpe.vocabulary().piece(0) == "<unk>");
  CHECK(bpe.vocabulary().size() == 200);

  const auto ids = encode(bpe, kMarker + "the\xE2\x82\xAC");  // the euro sign is unseen
  REQUIRE(ids.size() >= 2);
  CHECK(ids.back() == 0);
  CHECK(bpe.decode(ids) == kMarker + "the\xE2\x81\x87");  // <unk> decodes to U+2047
  CHECK(encode(bpe, "").empty());
}

TEST_CASE("character_coverage drops rare characters from the alphabet", "[bpe]") {
  WordCounts counts;
  counts.add("aaaa", 1000);
  counts.add("bq", 1);
  TrainOptions options;
  options.vocab_size = 10;
  options.character_coverage = 0.999;
  SECTION("to <unk> without byte fallback") {
    BpeSegmenter bpe;
    bpe.train(counts, options, nullptr);
    CHECK_FALSE(bpe.vocabulary().contains("q"));
    CHECK_FALSE(bpe.vocabulary().contains("b"));
    CHECK(encode(bpe, "q") == std::vector<TokenId>{0});
  }
  SECTION("to <0xNN> byte tokens with byte fallback, losslessly") {
    options.vocab_size = 300;
    options.extra["byte_fallback"] = "true";
    BpeSegmenter bpe;
    bpe.train(counts, options, nullptr);
    CHECK(bpe.vocabulary().contains("<0x71>"));
    const auto ids = encode(bpe, "aq\xC3\xA9");
    REQUIRE(ids.size() == 4);
    CHECK(bpe.vocabulary().piece(ids[1]) == "<0x71>");
    CHECK(bpe.vocabulary().piece(ids[2]) == "<0xC3>");
    CHECK(bpe.vocabulary().piece(ids[3]) == "<0xA9>");
    CHECK(bpe.decode(ids) == "aq\xC3\xA9");
  }
}

TEST_CASE("Byte fallback makes character BPE lossless on arbitrary bytes", "[bpe]") {
  TrainOptions options;
  options.vocab_size = 400;
  options.extra["byte_fallback"] = "true";
  BpeSegmenter bpe;
  bpe.train(fixture_counts(), options, nullptr);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300; ++i) {
    const std::string word = random_bytes(rng, 24);
    CAPTURE(word);
    const auto ids = encode(bpe, word);
    CHECK(std::find(ids.begin(), ids.end(), TokenId{0}) == ids.end());
    CHECK(bpe.decode(ids) == word);
  }
}

TEST_CASE("Byte-level BPE has 256 base tokens and round-trips any bytes", "[bpe][bytes]") {
  TrainOptions options;
  options.vocab_size = 256 + 200;
  options.extra["units"] = "bytes";
  WordCounts counts = fixture_counts();
  std::mt19937_64 rng(11);
  for (int i = 0; i < 50; ++i)
    counts.add(random_bytes(rng, 12), 1 + rng() % 3);  // invalid UTF-8 too
  BpeSegmenter bpe;
  bpe.train(counts, options, nullptr);
  CHECK(bpe.vocabulary().size() == 456);
  CHECK(bpe.vocabulary().special_count() == 0);
  CHECK_FALSE(bpe.vocabulary().unknown_id().has_value());
  CHECK(bpe.units() == Units::kBytes);

  SECTION("arbitrary byte strings, including invalid UTF-8, decode to themselves") {
    for (int i = 0; i < 500; ++i) {
      const std::string word = random_bytes(rng, 40);
      CHECK(bpe.decode(encode(bpe, word)) == word);
    }
    const std::string nul("a\0b", 3);
    CHECK(bpe.decode(encode(bpe, nul)) == nul);
  }
  SECTION("learned pieces shorten frequent words") {
    CHECK(encode(bpe, kMarker + "the").size() < (kMarker + "the").size());
  }
  SECTION("display_piece shows bytes with GPT-2's printable map") {
    const TokenId space = *bpe.vocabulary().find(" ");
    CHECK(bpe.display_piece(space) == "\xC4\xA0");  // U+0120 'Ġ'
    CHECK(bpe.display_piece(*bpe.vocabulary().find("A")) == "A");
    CHECK(bpe.display_piece(*bpe.vocabulary().find(std::string(1, '\0'))) == "\xC4\x80");  // U+0100
    CHECK(bpe.display_piece(*bpe.vocabulary().find(std::string(1, '\xAD'))) ==
          "\xC5\x83");  // U+0143
    CHECK(bytes_display("\xE2\x96\x81") ==
          "\xC3\xA2\xC4\xB8\xC4\xA3");  // "âĸģ", the marker as GPT-2 shows it
  }
}

TEST_CASE("The GPT-2 byte map is a bijection onto printable characters", "[bpe][bytes]") {
  std::vector<std::string> seen;
  for (unsigned b = 0; b < 256; ++b) seen.push_back(byte_display(static_cast<std::uint8_t>(b)));
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  CHECK(byte_display(' ') == "\xC4\xA0");
  CHECK(byte_display('\n') == "\xC4\x8A");  // U+010A 'Ċ'
  CHECK(byte_display('!') == "!");
}

TEST_CASE("BPE-dropout samples segmentations of the same text", "[bpe][sampling]") {
  TrainOptions options;
  options.vocab_size = 300;
  BpeSegmenter bpe;
  bpe.train(fixture_counts(), options, nullptr);
  const std::vector<std::string> words = {kMarker + "the", kMarker + "tokenizers",
                                          kMarker + "lowest", kMarker + "encoding",
                                          kMarker + "sequences"};
  SamplingOptions sampling;

  SECTION("dropout 0 is plain encoding") {
    sampling.dropout = 0.0;
    std::uint64_t state = 5;
    for (const auto& w : words) {
      std::vector<TokenId> ids;
      bpe.encode_sampled(w, sampling, state, ids);
      CHECK(ids == encode(bpe, w));
    }
  }
  SECTION("dropout 1 leaves the base units") {
    sampling.dropout = 1.0;
    std::uint64_t state = 5;
    std::vector<TokenId> ids;
    bpe.encode_sampled(kMarker + "the", sampling, state, ids);
    CHECK(ids.size() == 4);
  }
  SECTION("intermediate dropout decodes losslessly, varies, and repeats with the seed") {
    sampling.dropout = 0.3;
    std::uint64_t state_a = 17;
    std::uint64_t state_b = 17;
    bool varied = false;
    for (int round = 0; round < 50; ++round)
      for (const auto& w : words) {
        std::vector<TokenId> a;
        std::vector<TokenId> b;
        bpe.encode_sampled(w, sampling, state_a, a);
        bpe.encode_sampled(w, sampling, state_b, b);
        CHECK(a == b);
        CHECK(bpe.decode(a) == w);
        varied = varied || a != encode(bpe, w);
      }
    CHECK(varied);
  }
  SECTION("a negative dropout means the model's default") {
    TrainOptions with_default = options;
    with_default.extra["dropout"] = "1";
    BpeSegmenter always;
    always.train(fixture_counts(), with_default, nullptr);
    CHECK(always.default_dropout() == 1.0);
    sampling.dropout = -1.0;
    std::uint64_t state = 1;
    std::vector<TokenId> ids;
    always.encode_sampled(kMarker + "the", sampling, state, ids);
    CHECK(ids.size() == 4);
  }
  SECTION("a dropout above 1 is rejected") {
    sampling.dropout = 1.5;
    std::uint64_t state = 1;
    std::vector<TokenId> ids;
    CHECK_THROWS_AS(bpe.encode_sampled(kMarker + "the", sampling, state, ids), Error);
  }
}

TEST_CASE("Save then load gives an identical model", "[bpe][io]") {
  const std::string units = GENERATE(as<std::string>{}, "chars", "bytes");
  const bool fallback = GENERATE(false, true);
  if (units == "bytes" && fallback) return;  // not a valid combination
  CAPTURE(units, fallback);
  TrainOptions options;
  options.vocab_size = units == "bytes" ? 400 : fallback ? 400 : 150;
  options.extra["units"] = units;
  options.extra["byte_fallback"] = fallback ? "true" : "false";
  options.extra["tie_break"] = "hf";
  BpeSegmenter bpe;
  bpe.train(fixture_counts(), options, nullptr);
  const std::string bytes = saved(bpe);

  BpeSegmenter loaded;
  std::istringstream in(bytes);
  loaded.load(in);
  CHECK(saved(loaded) == bytes);
  CHECK(loaded.vocabulary().pieces() == bpe.vocabulary().pieces());
  CHECK(loaded.merges() == bpe.merges());
  CHECK(loaded.tie_break() == TieBreak::kSmallerIds);
  CHECK(loaded.byte_fallback() == fallback);
  const WordCounts corpus = fixture_counts();
  for (const auto& e : corpus.entries()) CHECK(encode(loaded, e.word) == encode(bpe, e.word));
  CHECK(encode(loaded, "\xFF\xFE" + kMarker + "zq") == encode(bpe, "\xFF\xFE" + kMarker + "zq"));
}

TEST_CASE("Loading garbage throws Error and keeps the old model", "[bpe][io]") {
  BpeSegmenter bpe;
  TrainOptions options;
  options.vocab_size = 120;
  bpe.train(fixture_counts(), options, nullptr);
  const std::string good = saved(bpe);
  const auto before = encode(bpe, kMarker + "the");

  SECTION("empty input") {
    std::istringstream in("");
    CHECK_THROWS_AS(bpe.load(in), Error);
  }
  SECTION("truncated input") {
    for (const std::size_t keep : {std::size_t{3}, good.size() / 2, good.size() - 1}) {
      std::istringstream in(good.substr(0, keep));
      CHECK_THROWS_AS(bpe.load(in), Error);
    }
  }
  SECTION("random bytes") {
    std::mt19937_64 rng(9);
    for (int i = 0; i < 20; ++i) {
      std::string junk = good;
      for (int k = 0; k < 8; ++k) junk[rng() % junk.size()] = static_cast<char>(rng());
      std::istringstream in(junk);
      try {
        bpe.load(in);  // a flip inside a piece's text can still be a valid model
      } catch (const Error&) {
      }
    }
    std::istringstream in(good);
    bpe.load(in);
  }
  CHECK(encode(bpe, kMarker + "the") == before);
}

TEST_CASE("Concurrent encoding equals serial encoding", "[bpe][threads]") {
  TrainOptions options;
  options.vocab_size = 250;
  BpeSegmenter bpe;
  bpe.train(fixture_counts(), options, nullptr);
  std::vector<std::string> words;
  const WordCounts corpus = fixture_counts();
  for (const auto& e : corpus.entries()) words.push_back(e.word);
  words.push_back(kMarker + std::string(5000, 'e'));  // longer than the cache takes
  std::vector<std::vector<TokenId>> serial;
  for (const auto& w : words) serial.push_back(encode(bpe, w));
  std::vector<std::thread> pool;
  std::vector<int> ok(4, 1);
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      for (int round = 0; round < 30; ++round)
        for (std::size_t i = 0; i < words.size(); ++i)
          if (encode(bpe, words[i]) != serial[i]) ok[static_cast<std::size_t>(t)] = 0;
    });
  for (auto& th : pool) th.join();
  CHECK(ok == std::vector<int>(4, 1));
}

TEST_CASE("Two models used alternately on one thread never share cached encodings", "[bpe]") {
  TrainOptions small;
  small.vocab_size = 60;
  TrainOptions large;
  large.vocab_size = 250;
  BpeSegmenter a;
  BpeSegmenter b;
  a.train(fixture_counts(), small, nullptr);
  b.train(fixture_counts(), large, nullptr);
  // A word the two models segment differently.
  std::string word;
  const WordCounts corpus = fixture_counts();
  for (const auto& e : corpus.entries())
    if (word.empty() && encode(a, e.word) != encode(b, e.word)) word = e.word;
  REQUIRE_FALSE(word.empty());
  const auto ea = encode(a, word);
  const auto eb = encode(b, word);
  for (int i = 0; i < 3; ++i) {
    CHECK(encode(a, word) == ea);
    CHECK(encode(b, word) == eb);
  }
  a.train(fixture_counts(), large, nullptr);  // retraining must invalidate a's cache
  CHECK(encode(a, word) == eb);
}

TEST_CASE("Bad options are rejected with a helpful message", "[bpe][options]") {
  BpeSegmenter bpe;
  TrainOptions options;
  options.vocab_size = 100;
  SECTION("an unknown key lists the valid ones") {
    options.extra["merges"] = "10";
    CHECK_THROWS_WITH(bpe.train(fixture_counts(), options, nullptr),
                      Contains("merges") && Contains("units") && Contains("tie_break"));
  }
  SECTION("bad values") {
    const auto [key, value] = GENERATE(table<std::string, std::string>({
        {"units", "words"},
        {"byte_fallback", "maybe"},
        {"tie_break", "random"},
        {"dropout", "1.5"},
        {"max_token_length", "-1"},
    }));
    CAPTURE(key, value);
    options.extra[key] = value;
    CHECK_THROWS_AS(bpe.train(fixture_counts(), options, nullptr), Error);
  }
  SECTION("byte fallback with byte units") {
    options.vocab_size = 300;
    options.extra["units"] = "bytes";
    options.extra["byte_fallback"] = "true";
    CHECK_THROWS_WITH(bpe.train(fixture_counts(), options, nullptr), Contains("byte_fallback"));
  }
  SECTION("a character coverage outside (0, 1]") {
    options.character_coverage = 0.0;
    CHECK_THROWS_AS(bpe.train(fixture_counts(), options, nullptr), Error);
  }
}

TEST_CASE("Special tokens come first and are never produced from text", "[bpe]") {
  WordCounts counts;
  counts.add("<unk>", 50);
  counts.add("<s>", 50);
  TrainOptions options;
  options.special_tokens = std::vector<std::string>{"<s>", "<unk>", "</s>"};
  options.vocab_size = 100;
  BpeSegmenter bpe;
  bpe.train(counts, options, nullptr);
  CHECK(bpe.vocabulary().special_count() == 3);
  CHECK(bpe.vocabulary().piece(0) == "<s>");
  CHECK(bpe.vocabulary().unknown_id() == TokenId{1});
  for (const TokenId id : encode(bpe, "<unk>")) CHECK_FALSE(bpe.vocabulary().is_special(id));
  CHECK(bpe.decode(encode(bpe, "<s>")) == "<s>");
}

TEST_CASE("By default BPE adds byte pieces when the vocabulary has room, so nothing is unknown",
          "[bpe][byte-fallback]") {
  TrainOptions options;
  options.vocab_size = 400;
  SECTION("room for specials + 256 bytes + alphabet: byte fallback is on") {
    BpeSegmenter bpe;
    bpe.train(fixture_counts(), options, nullptr);
    CHECK(bpe.byte_fallback());
    CHECK(bpe.vocabulary().size() == 400);
    // SentencePiece's layout: <unk>, then <0x00>..<0xFF>, then the alphabet.
    CHECK(bpe.vocabulary().piece(1) == "<0x00>");
    CHECK(bpe.vocabulary().piece(256) == "<0xFF>");
    const auto ids = encode(bpe, "~\xE2\x80\x94");  // "~—": never seen in training
    CHECK(std::find(ids.begin(), ids.end(), TokenId{0}) == ids.end());
    CHECK(bpe.decode(ids) == "~\xE2\x80\x94");
  }
  SECTION("a vocabulary too small for the byte pieces keeps the plain alphabet, and says so") {
    options.vocab_size = 100;
    BpeSegmenter bpe;
    Recorder recorder;
    bpe.train(fixture_counts(), options, &recorder);
    CHECK_FALSE(bpe.byte_fallback());
    CHECK_FALSE(bpe.vocabulary().contains("<0x41>"));
    const bool said = std::any_of(
        recorder.messages.begin(), recorder.messages.end(),
        [](const std::string& m) { return m.find("byte_fallback off") != std::string::npos; });
    CHECK(said);
  }
  SECTION("a step-limited run (a trace) keeps the plain alphabet") {
    options.max_steps = 3;
    BpeSegmenter bpe;
    bpe.train(fixture_counts(), options, nullptr);
    CHECK_FALSE(bpe.byte_fallback());
  }
  SECTION("byte_fallback=false is SentencePiece's default: unseen characters are <unk>") {
    options.extra["byte_fallback"] = "false";
    BpeSegmenter bpe;
    bpe.train(fixture_counts(), options, nullptr);
    CHECK_FALSE(bpe.byte_fallback());
    CHECK(encode(bpe, "~") == std::vector<TokenId>{0});
  }
}

TEST_CASE("BPE never exceeds vocab_size, even when the alphabet alone is larger", "[bpe]") {
  WordCounts counts;
  counts.add("abcdefghij", 3);
  counts.add("aab", 5);  // a and b are the most frequent characters
  TrainOptions options;
  options.vocab_size = 3;  // <unk> and two characters
  BpeSegmenter bpe;
  Recorder recorder;
  bpe.train(counts, options, &recorder);
  CHECK(bpe.vocabulary().size() == 3);
  CHECK(bpe.vocabulary().contains("a"));
  CHECK(bpe.vocabulary().contains("b"));
  const bool said =
      std::any_of(recorder.messages.begin(), recorder.messages.end(), [](const std::string& m) {
        return m.find("needs at least 11 entries") != std::string::npos;
      });
  CHECK(said);
  SECTION("byte-level BPE cannot fit its 256 bytes: an error, not a larger vocabulary") {
    options.extra["units"] = "bytes";
    CHECK_THROWS_AS(bpe.train(counts, options, nullptr), Error);
  }
}
