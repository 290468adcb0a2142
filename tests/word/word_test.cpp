// The word baseline, as a specification: each word is one token if it is among the
// most frequent training words, else the unknown token.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word/word_model.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::TokenId;
using tokenlab::TrainOptions;
using tokenlab::WordCounts;
using tokenlab::word::WordSegmenter;

namespace {

const std::string kMarker = tokenlab::kBoundaryMarker;

// Genesis 1:1-2 (World English Bible), lowercased and pre-tokenized: "▁the" 5,
// "▁god" 2, "▁and" 2, "▁earth" 2, "▁was" 2, then 10 words seen once.
WordCounts genesis_counts() {
  WordCounts counts;
  for (const char* word :
       {"in",       "the",   "beginning", "god",   "created", "the",      "heavens", "and",
        "the",      "earth", "the",       "earth", "was",     "formless", "and",     "empty",
        "darkness", "was",   "on",        "the",   "surface", "of",       "god"})
    counts.add(kMarker + word);
  return counts;
}

TrainOptions options(std::size_t vocab_size) {
  TrainOptions o;
  o.vocab_size = vocab_size;
  o.threads = 1;
  return o;
}

std::vector<std::string> pieces_of(const WordSegmenter& s) {
  std::vector<std::string> pieces;
  for (TokenId id = 0; id < s.vocabulary().size(); ++id) pieces.push_back(s.vocabulary().piece(id));
  return pieces;
}

std::vector<TokenId> encode(const WordSegmenter& s, std::string_view word) {
  std::vector<TokenId> ids;
  s.encode(word, ids);
  return ids;
}

std::string saved(const WordSegmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

}  // namespace

TEST_CASE("the vocabulary is <unk>, then the words by descending count, ties by first occurrence",
          "[word][train]") {
  WordSegmenter s;
  s.train(genesis_counts(), options(6), nullptr);
  CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", kMarker + "the", kMarker + "god",
                                                 kMarker + "and", kMarker + "earth",
                                                 kMarker + "was"});
  CHECK(s.vocabulary().unknown_id() == TokenId{0});
}

TEST_CASE("vocab_size keeps only the most frequent words, special tokens included",
          "[word][train]") {
  WordSegmenter s;
  s.train(genesis_counts(), options(3), nullptr);
  CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", kMarker + "the", kMarker + "god"});
  SECTION("a size the corpus cannot reach gives every distinct word, no more") {
    s.train(genesis_counts(), options(1000), nullptr);
    CHECK(s.vocabulary().size() == 1 + 15);
  }
}

TEST_CASE("min_frequency drops words seen fewer times", "[word][train]") {
  WordSegmenter s;
  TrainOptions o = options(1000);
  o.min_frequency = 2;
  s.train(genesis_counts(), o, nullptr);
  CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", kMarker + "the", kMarker + "god",
                                                 kMarker + "and", kMarker + "earth",
                                                 kMarker + "was"});
}

TEST_CASE("a known word is one token, any other word one <unk>", "[word][encode]") {
  WordSegmenter s;
  s.train(genesis_counts(), options(6), nullptr);
  const auto the = *s.vocabulary().find(kMarker + "the");
  const auto unk = *s.vocabulary().unknown_id();
  CHECK(encode(s, kMarker + "the") == std::vector<TokenId>{the});
  CHECK(encode(s, kMarker + "heavens") == std::vector<TokenId>{unk});  // seen, not kept
  CHECK(encode(s, kMarker + "The") == std::vector<TokenId>{unk});      // case matters
  CHECK(encode(s, "the") == std::vector<TokenId>{unk});                // the marker too
  CHECK(encode(s, "").empty());
  SECTION("the special token's spelling is text, not the special token") {
    CHECK(encode(s, "<unk>") == std::vector<TokenId>{unk});
    CHECK(s.decode(encode(s, "<unk>")) == "\u2047");
  }
}

TEST_CASE("decode(encode(w)) == w for every kept word, and other words decode to the unknown sign",
          "[word][encode]") {
  WordSegmenter s;
  s.train(genesis_counts(), options(1000), nullptr);
  std::vector<TokenId> ids;
  std::string text;
  const WordCounts counts = genesis_counts();
  for (const auto& entry : counts.entries()) {
    s.encode(entry.word, ids);  // appends
    text += entry.word;
  }
  CHECK(ids.size() == 15);
  CHECK(s.decode(ids) == text);
  CHECK(s.decode(encode(s, kMarker + "Zürich")) == "\u2047");
}

TEST_CASE("save then load restores the vocabulary", "[word][model]") {
  WordSegmenter trained;
  trained.train(genesis_counts(), options(6), nullptr);
  std::istringstream in(saved(trained));
  WordSegmenter loaded;
  loaded.load(in);
  CHECK(pieces_of(loaded) == pieces_of(trained));
  CHECK(loaded.vocabulary().unknown_id() == trained.vocabulary().unknown_id());
  CHECK(saved(loaded) == saved(trained));
  CHECK(encode(loaded, kMarker + "earth") == encode(trained, kMarker + "earth"));
}

TEST_CASE("load refuses garbage and truncated models, keeping the model", "[word][model]") {
  WordSegmenter s;
  s.train(genesis_counts(), options(6), nullptr);
  const auto before = pieces_of(s);
  std::istringstream garbage("this is not a model");
  CHECK_THROWS_AS(s.load(garbage), tokenlab::Error);
  std::string truncated = saved(s);
  truncated.resize(truncated.size() - 3);
  std::istringstream short_input(truncated);
  CHECK_THROWS_AS(s.load(short_input), tokenlab::Error);
  CHECK(pieces_of(s) == before);
}

TEST_CASE("custom special tokens come first and are never produced by text", "[word][special]") {
  WordSegmenter s;
  TrainOptions o = options(5);
  o.special_tokens = std::vector<std::string>{"<pad>", "<unk>", kMarker + "the"};
  s.train(genesis_counts(), o, nullptr);
  CHECK(pieces_of(s) == std::vector<std::string>{"<pad>", "<unk>", kMarker + "the", kMarker + "god",
                                                 kMarker + "and"});
  CHECK(s.vocabulary().unknown_id() == TokenId{1});
  // "▁the" is now a special token: the text "▁the" is unknown, not that token.
  CHECK(encode(s, kMarker + "the") == std::vector<TokenId>{1});
}

TEST_CASE("bad options are errors that name them", "[word][options]") {
  WordSegmenter s;
  TrainOptions o = options(100);
  SECTION("the word segmenter has no options of its own") {
    o.extra["units"] = "bytes";
    CHECK_THROWS_WITH(s.train(genesis_counts(), o, nullptr), Catch::Contains("units"));
  }
  SECTION("a vocabulary too small for <unk> and one word") {
    o.vocab_size = 1;
    CHECK_THROWS_AS(s.train(genesis_counts(), o, nullptr), tokenlab::Error);
  }
}
