// Morphological alignment: reading gold segmentations, finding a tokenizer's
// boundaries on a word's characters, and the scores, each on a case small
// enough to work out by hand.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/morphology.hpp"
#include "tokenlab/utf8.hpp"

using namespace tokenlab;

namespace {

// A tokenizer given as a table word -> pieces. decode concatenates the pieces,
// turns "▁" into a space and "Ġ" into a space as real decoders do, and writes
// bytes that are not whole UTF-8 characters as U+FFFD, as Hugging Face's
// byte-level decoder does.
class TableEncoder final : public TextEncoder {
 public:
  explicit TableEncoder(std::map<std::string, std::vector<std::string>> table)
      : table_(std::move(table)) {
    for (const auto& [word, pieces] : table_)
      for (const auto& p : pieces) pieces_.push_back(p);
  }
  void encode(std::string_view text, std::vector<TokenId>& out) const override {
    const auto& pieces = table_.at(std::string(text));
    std::size_t from = 0;
    for (const auto& [word, ps] : table_) {
      if (word == text) break;
      from += ps.size();
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) out.push_back(static_cast<TokenId>(from + i));
  }
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    std::string text;
    for (const TokenId id : ids) text += pieces_.at(id);
    for (const std::string marker : {"\xE2\x96\x81", "\xC4\xA0"})
      for (std::size_t at; (at = text.find(marker)) != std::string::npos;)
        text.replace(at, marker.size(), " ");
    return utf8::replace_invalid(text);
  }
  [[nodiscard]] std::size_t vocabulary_size() const override { return pieces_.size(); }
  [[nodiscard]] std::string display_piece(TokenId id) const override { return pieces_.at(id); }
  [[nodiscard]] std::optional<TokenId> unknown_id() const override { return std::nullopt; }
  [[nodiscard]] std::vector<TokenId> byte_fallback_ids() const override { return {}; }

 private:
  std::map<std::string, std::vector<std::string>> table_;
  std::vector<std::string> pieces_;
};

using Offsets = std::vector<std::size_t>;

}  // namespace

TEST_CASE("plain gold: word, tab, surface morphs; boundaries in characters", "[morphology]") {
  const GoldSet gold = parse_gold_segmentations(
      "# a comment\n"
      "unhappily\tun happi ly\n"
      "cats\tcat s, cats\n"    // the first analysis counts
      "naïvely\tnaïve ly\r\n"  // boundaries count characters, not bytes
      "dogs\tdog x\n"          // does not spell the word: skipped
      "\n",
      "gold.tsv");
  CHECK(gold.format == "plain");
  REQUIRE(gold.words.size() == 3);
  CHECK(gold.words[0].boundaries == Offsets{2, 7});
  CHECK(gold.words[0].morphemes == 3);
  CHECK(gold.words[1].boundaries == Offsets{3});
  CHECK(gold.words[2].boundaries == Offsets{5});
  CHECK(gold.skipped == 1);
  CHECK_THAT(gold.first_skipped, Catch::StartsWith("gold.tsv:5:"));
}

TEST_CASE("MorphScore's CSV: full_word, pt1, rest by header, quotes allowed", "[morphology]") {
  const GoldSet gold = parse_gold_segmentations(
      ",full_word,pt1,rest\n"
      "0,lighted,light,ed\n"
      "1,\"Don't,s\",\"Don't,\",s\n"
      "2,known,kno,wn,extra\n",
      "english_morph_data.csv");
  CHECK(gold.format == "morphscore-csv");
  REQUIRE(gold.words.size() == 3);
  CHECK(gold.words[0].boundaries == Offsets{5});
  CHECK(gold.words[0].split_point_only);
  CHECK(gold.words[1].word == "Don't,s");
  CHECK(gold.words[1].boundaries == Offsets{6});
  CHECK_THROWS_WITH(parse_gold_segmentations(",word,pt1,rest\n0,a,a,\n", "x.csv"),
                    Catch::Contains("x.csv") && Catch::Contains("no gold segmentation"));
}

TEST_CASE("boundaries are found on the word's characters whatever the markers", "[morphology]") {
  const TableEncoder encoder({
      {"unhappily", {"\xE2\x96\x81un", "happi", "ly"}},  // SentencePiece's ▁
      {" cats",
       {"\xC4\xA0"
        "cat",
        "s"}},                                         // GPT-2's Ġ, after a space
      {"caf\xC3\xA9s", {"caf", "\xC3", "\xA9", "s"}},  // é split into its two bytes
      {"dog", {"dog"}},
      {"x", {"\xE2\x96\x81", "x"}},  // a lone marker token ends at no character
  });
  CHECK(token_boundaries(encoder, "unhappily", false).boundaries == Offsets{2, 7});
  const WordBoundaries cats = token_boundaries(encoder, "cats", true);
  CHECK(cats.boundaries == Offsets{3});
  CHECK(cats.tokens == 2);
  // After "caf\xC3" the text is not whole: that end is inside é and dropped.
  CHECK(token_boundaries(encoder, "caf\xC3\xA9s", false).boundaries == Offsets{3, 4});
  CHECK(token_boundaries(encoder, "dog", false).boundaries.empty());
  const WordBoundaries x = token_boundaries(encoder, "x", false);
  CHECK(x.boundaries.empty());
  CHECK(x.tokens == 2);
}

TEST_CASE("the scores of three words, by hand", "[morphology]") {
  // Gold: un|happi|ly, cat|s, dog. Tokens: un|hap|pily, cats, d|og.
  const GoldSet gold =
      parse_gold_segmentations("unhappily\tun happi ly\ncats\tcat s\ndog\tdog\n", "g.tsv");
  const TableEncoder encoder(
      {{"unhappily", {"un", "hap", "pily"}}, {"cats", {"cats"}}, {"dog", {"d", "og"}}});
  const MorphologyScores s = score_morphology(encoder, gold, {});
  CHECK(s.words == 3);
  // Gold boundaries 2 + 1 + 0 = 3; predicted 2 + 0 + 1 = 3; correct 1 (after "un").
  CHECK(s.gold_boundaries == 3);
  CHECK(s.predicted_boundaries == 3);
  CHECK(s.correct_boundaries == 1);
  CHECK(s.boundary_precision() == Approx(1.0 / 3));
  CHECK(s.boundary_recall() == Approx(1.0 / 3));
  CHECK(s.boundary_f1() == Approx(1.0 / 3));
  // Per word: precision over unhappily (1/2) and dog (0/1): 0.25; recall over
  // unhappily (1/2) and cats (0/1): 0.25; F1 per word 2*1/4, 0, 0: mean 1/6.
  CHECK(s.word_precision() == Approx(0.25));
  CHECK(s.word_recall() == Approx(0.25));
  CHECK(s.word_f1() == Approx(1.0 / 6));
  CHECK(s.exact_share() == Approx(0.0));
  // MorphScore: only cats has one gold boundary, and it is one token: excluded.
  CHECK(s.morph_score_words == 0);
  CHECK(s.excluded_single_token == 1);
  // Over-segmentation: 3 + 1 + 2 = 6 tokens for 3 + 2 + 1 = 6 morphemes.
  CHECK(s.tokens_per_morpheme() == Approx(1.0));
}

TEST_CASE("MorphScore counts a boundary at the split, whatever other boundaries", "[morphology]") {
  const GoldSet gold = parse_gold_segmentations(
      ",full_word,pt1,rest\n0,aldiz,aldi,z\n1,samráðs,samráð,s\n2,Αδριανής,Αδριανή,ς\n"
      "3,suučesnika,suučesnik,a\n4,yendirt,yendirt,\n",
      "m.csv");
  // The README's examples: al|diz 0; samráðs one token: excluded; Α|δρ|ιανή|ς 1;
  // su|uče|s|nika 0. An empty rest (a Turkish row) puts the split at the word's
  // end, never a token boundary: yen|dirt 0.
  const TableEncoder encoder({{"aldiz", {"al", "diz"}},
                              {"samráðs", {"samráðs"}},
                              {"Αδριανής", {"Α", "δρ", "ιανή", "ς"}},
                              {"suučesnika", {"su", "uče", "s", "nika"}},
                              {"yendirt", {"yen", "dirt"}}});
  const MorphologyScores s = score_morphology(encoder, gold, {}, 2);
  CHECK(s.morph_score_words == 4);
  CHECK(s.excluded_single_token == 1);
  CHECK(s.morph_score_hits == 1);
  CHECK(s.morph_score() == Approx(1.0 / 4));
  CHECK(s.segmented_words == 0);  // split points only: no boundary F1
}
