// The character baseline, as a specification: one token per code point (or per
// grapheme cluster), the most frequent units kept up to vocab_size and
// character_coverage, everything else the unknown token.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/character/character_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::TokenId;
using tokenlab::TrainOptions;
using tokenlab::WordCounts;
using tokenlab::character::CharacterSegmenter;
using tokenlab::character::split_units;
using tokenlab::character::UnitKind;

namespace {

const std::string kMarker = tokenlab::kBoundaryMarker;

// "▁the cat sat on the mat": the marker 6, t 5, a 3, h 2, e 2, c, s, o, n, m 1 each.
WordCounts cat_counts() {
  WordCounts counts;
  for (const char* word : {"the", "cat", "sat", "on", "the", "mat"}) counts.add(kMarker + word);
  return counts;
}

TrainOptions options(std::size_t vocab_size, double coverage = 1.0) {
  TrainOptions o;
  o.vocab_size = vocab_size;
  o.character_coverage = coverage;
  o.threads = 1;
  return o;
}

template <class It>
std::vector<std::string> sorted(It begin, It end) {
  std::vector<std::string> v(begin, end);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> sorted_list(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> pieces_of(const CharacterSegmenter& s) {
  std::vector<std::string> pieces;
  for (TokenId id = 0; id < s.vocabulary().size(); ++id) pieces.push_back(s.vocabulary().piece(id));
  return pieces;
}

std::vector<std::string> encode_pieces(const CharacterSegmenter& s, std::string_view word) {
  std::vector<TokenId> ids;
  s.encode(word, ids);
  std::vector<std::string> pieces;
  for (const TokenId id : ids) pieces.push_back(s.vocabulary().piece(id));
  return pieces;
}

std::string round_trip(const CharacterSegmenter& s, std::string_view word) {
  std::vector<TokenId> ids;
  s.encode(word, ids);
  return s.decode(ids);
}

std::string saved(const CharacterSegmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

}  // namespace

TEST_CASE("the vocabulary is <unk>, then the units by descending count", "[character][train]") {
  CharacterSegmenter s;
  s.train(cat_counts(), options(100), nullptr);
  const auto pieces = pieces_of(s);
  REQUIRE(pieces.size() == 11);
  CHECK(std::vector<std::string>(pieces.begin(), pieces.begin() + 4) ==
        std::vector<std::string>{"<unk>", kMarker, "t", "a"});
  // The order among equal counts is the alphabet's tie-break, not specified here.
  CHECK(sorted(pieces.begin() + 4, pieces.begin() + 6) == std::vector<std::string>{"e", "h"});
  CHECK(sorted(pieces.begin() + 6, pieces.end()) ==
        std::vector<std::string>{"c", "m", "n", "o", "s"});
  CHECK(s.vocabulary().unknown_id() == TokenId{0});
  CHECK(s.vocabulary().special_count() == 1);
}

TEST_CASE("vocab_size keeps only the most frequent units, special tokens included",
          "[character][train]") {
  CharacterSegmenter s;
  s.train(cat_counts(), options(4), nullptr);
  CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", kMarker, "t", "a"});
  CHECK(encode_pieces(s, kMarker + "that") ==
        std::vector<std::string>{kMarker, "t", "<unk>", "a", "t"});
}

TEST_CASE("min_frequency drops units seen fewer times", "[character][train]") {
  CharacterSegmenter s;
  TrainOptions o = options(100);
  o.min_frequency = 2;
  s.train(cat_counts(), o, nullptr);
  const auto pieces = pieces_of(s);
  CHECK(sorted(pieces.begin(), pieces.end()) ==
        sorted_list({"<unk>", kMarker, "t", "a", "h", "e"}));
}

TEST_CASE("character_coverage stops once the kept units cover that share of occurrences",
          "[character][train]") {
  // 100 occurrences: a 60, b 30, c 9, d 1.
  WordCounts counts;
  counts.add("a", 60);
  counts.add("b", 30);
  counts.add("c", 9);
  counts.add("d", 1);
  CharacterSegmenter s;
  SECTION("0.9 is reached by a and b") {
    s.train(counts, options(100, 0.9), nullptr);
    CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", "a", "b"});
  }
  SECTION("0.95 needs c as well") {
    s.train(counts, options(100, 0.95), nullptr);
    CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", "a", "b", "c"});
  }
  SECTION("1.0 keeps every unit, even one seen once") {
    s.train(counts, options(100, 1.0), nullptr);
    CHECK(pieces_of(s) == std::vector<std::string>{"<unk>", "a", "b", "c", "d"});
  }
}

TEST_CASE("a unit outside the vocabulary is one <unk>, whatever its length in bytes",
          "[character][encode]") {
  WordCounts counts;
  counts.add(kMarker + "cafe", 3);
  CharacterSegmenter s;
  s.train(counts, options(100), nullptr);
  // é (2 bytes) and 🙂 (4 bytes) were never seen.
  CHECK(encode_pieces(s, kMarker + "café🙂") ==
        std::vector<std::string>{kMarker, "c", "a", "f", "<unk>", "<unk>"});
  CHECK(round_trip(s, kMarker + "café") == kMarker + "caf\u2047");
}

TEST_CASE("decode(encode(w)) == w for every word made of known units", "[character][encode]") {
  WordCounts counts;
  for (const char* word : {"naïve", "Zürich", "Ελλάδα", "हिन्दी", "日本語", "🙂"})
    counts.add(kMarker + word, 2);
  CharacterSegmenter s;
  s.train(counts, options(1000), nullptr);
  for (const auto& entry : counts.entries()) {
    CAPTURE(entry.word);
    CHECK(round_trip(s, entry.word) == entry.word);
  }
  CHECK(round_trip(s, kMarker + "日本") == kMarker + "日本");  // unseen word, known units
  std::vector<TokenId> ids;
  s.encode("", ids);
  CHECK(ids.empty());
}

TEST_CASE("encode appends to its output", "[character][encode]") {
  CharacterSegmenter s;
  s.train(cat_counts(), options(100), nullptr);
  std::vector<TokenId> ids;
  s.encode(kMarker + "the", ids);
  s.encode(kMarker + "cat", ids);
  CHECK(ids.size() == 8);
  CHECK(s.decode(ids) == kMarker + "the" + kMarker + "cat");
}

TEST_CASE("units=graphemes keeps a user-perceived character whole", "[character][graphemes]") {
  // e + U+0301 (combining acute) and the flag 🇫🇷 (two regional indicators) are one
  // grapheme cluster each, but two code points each.
  const std::string e_acute = "e\u0301";
  const std::string flag = "\U0001F1EB\U0001F1F7";
  const std::string both = e_acute + flag;
  std::vector<std::string_view> units;  // views into both
  split_units(both, UnitKind::code_points, units);
  CHECK(units.size() == 4);
  split_units(both, UnitKind::graphemes, units);
  CHECK(units == std::vector<std::string_view>{e_acute, flag});

  WordCounts counts;
  counts.add(kMarker + "caf" + e_acute, 3);
  counts.add(kMarker + flag, 2);
  CharacterSegmenter s;
  TrainOptions o = options(100);
  o.extra["units"] = "graphemes";
  s.train(counts, o, nullptr);
  CHECK(s.unit_kind() == UnitKind::graphemes);
  CHECK(s.vocabulary().contains(e_acute));
  CHECK(s.vocabulary().contains(flag));
  CHECK_FALSE(s.vocabulary().contains("\u0301"));
  CHECK(encode_pieces(s, kMarker + flag + "caf" + e_acute) ==
        std::vector<std::string>{kMarker, flag, "c", "a", "f", e_acute});
  CHECK(round_trip(s, kMarker + "caf" + e_acute) == kMarker + "caf" + e_acute);
}

TEST_CASE("invalid UTF-8 is one unit per bad byte and never loops", "[character][encode]") {
  std::vector<std::string_view> units;
  split_units("a\xff\xc3", UnitKind::graphemes, units);
  CHECK(units == std::vector<std::string_view>{"a", "\xff", "\xc3"});
  CharacterSegmenter s;
  s.train(cat_counts(), options(100), nullptr);
  std::vector<TokenId> ids;
  s.encode("t\xff\xc3", ids);
  CHECK(ids.size() == 3);
}

TEST_CASE("save then load restores the vocabulary and the unit kind", "[character][model]") {
  CharacterSegmenter trained;
  TrainOptions o = options(100);
  o.extra["units"] = "graphemes";
  trained.train(cat_counts(), o, nullptr);
  std::istringstream in(saved(trained));
  CharacterSegmenter loaded;
  loaded.load(in);
  CHECK(pieces_of(loaded) == pieces_of(trained));
  CHECK(loaded.unit_kind() == UnitKind::graphemes);
  CHECK(loaded.vocabulary().unknown_id() == trained.vocabulary().unknown_id());
  CHECK(saved(loaded) == saved(trained));
  CHECK(encode_pieces(loaded, kMarker + "chat") == encode_pieces(trained, kMarker + "chat"));
}

TEST_CASE("load refuses another plugin's payload and garbage, keeping the model",
          "[character][model]") {
  CharacterSegmenter s;
  s.train(cat_counts(), options(100), nullptr);
  const auto before = pieces_of(s);
  std::istringstream garbage("this is not a model");
  CHECK_THROWS_AS(s.load(garbage), tokenlab::Error);
  std::string truncated = saved(s);
  truncated.resize(truncated.size() / 2);
  std::istringstream half(truncated);
  CHECK_THROWS_AS(s.load(half), tokenlab::Error);
  CHECK(pieces_of(s) == before);
}

TEST_CASE("training is deterministic and independent of threads", "[character][train]") {
  CharacterSegmenter one;
  CharacterSegmenter four;
  TrainOptions o = options(100, 0.9995);
  one.train(cat_counts(), o, nullptr);
  o.threads = 4;
  four.train(cat_counts(), o, nullptr);
  CHECK(saved(one) == saved(four));
}

TEST_CASE("bad options are errors that name them", "[character][options]") {
  CharacterSegmenter s;
  TrainOptions o = options(100);
  SECTION("an unknown key") {
    o.extra["unit"] = "graphemes";
    CHECK_THROWS_WITH(s.train(cat_counts(), o, nullptr),
                      Catch::Contains("unit") && Catch::Contains("valid"));
  }
  SECTION("an unknown value of units") {
    o.extra["units"] = "bytes";
    CHECK_THROWS_WITH(s.train(cat_counts(), o, nullptr), Catch::Contains("bytes"));
  }
  SECTION("a vocabulary too small for <unk> and one unit") {
    o.vocab_size = 1;
    CHECK_THROWS_AS(s.train(cat_counts(), o, nullptr), tokenlab::Error);
  }
}

TEST_CASE("custom special tokens come first and are never produced by text",
          "[character][special]") {
  // Special tokens are never matched in text: the character is unknown instead
  // (training cannot give it an id of its own, the special token holds its
  // spelling), so compare counts it, and decoding shows it as unknown.
  CharacterSegmenter s;
  TrainOptions o = options(100);
  o.special_tokens = std::vector<std::string>{"<unk>", "|"};
  WordCounts counts = cat_counts();
  counts.add(kMarker + "a|b", 1);
  s.train(counts, o, nullptr);
  CHECK(s.vocabulary().piece(1) == "|");
  std::vector<TokenId> ids;
  s.encode("|", ids);
  REQUIRE(ids.size() == 1);
  CHECK(ids[0] == *s.vocabulary().unknown_id());
}
