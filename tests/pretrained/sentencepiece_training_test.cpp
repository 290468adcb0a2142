// train_sentencepiece_like: retraining a SentencePiece model gives what spm_train
// (Debian's 0.1.97) writes. The fixtures bpe.model and bpe_raw.model were made by
// spm_train on spm_text.txt (tests/data/pretrained/README.md); the small cases'
// expected pieces were worked out by hand and checked with spm_train.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "common/temp_files.hpp"
#include "pretrained_support.hpp"
#include "spm_pieces.hpp"
#include "tokenlab/pretrained/sentencepiece_trainer.hpp"

using Catch::Matchers::Contains;
using tokenlab::SentencePieceTrainingOverrides;
using tokenlab::test::spm_pieces;
using tokenlab::test::SpmPiece;

namespace {

const std::filesystem::path kData = std::filesystem::path(TOKENLAB_TEST_DATA_DIR) / "pretrained";

std::string fixture(const std::string& name) {
  return tokenlab::test::read_bytes(kData / name);
}

std::string train(const std::string& like, const std::vector<std::string>& files, int vocab,
                  std::map<std::string, std::string> flags = {}) {
  SentencePieceTrainingOverrides overrides;
  overrides.vocab_size = vocab;
  overrides.flags = std::move(flags);
  overrides.threads = 2;
  return tokenlab::train_sentencepiece_like(like, files, overrides, nullptr);
}

constexpr int kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kByte = 6;

}  // namespace

TEST_CASE(
    "Retraining like an spm_train BPE model on its own text gives its pieces, scores and order",
    "[pretrained][sentencepiece][training]") {
  const std::string text = (kData / "spm_text.txt").string();
  for (const std::string name : {"bpe.model", "bpe_raw.model"}) {
    CAPTURE(name);
    const std::string reference = fixture(name);
    CHECK(spm_pieces(train(reference, {text}, 200)) == spm_pieces(reference));
  }
}

TEST_CASE("BPE merges the most frequent pair, ties going to the shorter, then the smaller bytes",
          "[pretrained][sentencepiece][training]") {
  // "▁ab ▁ab ▁ab ▁abc": ▁a and ab both occur 4 times; "ab" < "▁a" in bytes, so
  // ab is merged first (score -0), then ▁ab (4), then ▁abc (1). The alphabet
  // follows, by count and then code point: a b ▁ (4 each), c (1).
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "t.txt", "ab ab ab abc\n");
  const auto pieces = spm_pieces(train(fixture("bpe.model"), {(dir / "t.txt").string()}, 10));
  const std::vector<SpmPiece> expected = {{"<unk>", 0, kUnknown},    {"<s>", 0, kControl},
                                          {"</s>", 0, kControl},     {"ab", -0.0f, kNormal},
                                          {"\u2581ab", -1, kNormal}, {"\u2581abc", -2, kNormal},
                                          {"a", -3, kNormal},        {"b", -4, kNormal},
                                          {"\u2581", -5, kNormal},   {"c", -6, kNormal}};
  CHECK(pieces == expected);

  SECTION("pairs whose count fell to zero still become pieces, as in spm_train") {
    // After ▁abc nothing is left to merge, but bc, ▁a and abc stay among the
    // candidates with count 0; spm_train adds them (shorter, then smaller first).
    const auto more = spm_pieces(train(fixture("bpe.model"), {(dir / "t.txt").string()}, 20,
                                       {{"hard_vocab_limit", "false"}}));
    REQUIRE(more.size() == 13);
    CHECK(more[6] == SpmPiece{"bc", -3, kNormal});
    CHECK(more[7] == SpmPiece{"\u2581a", -4, kNormal});
    CHECK(more[8] == SpmPiece{"abc", -5, kNormal});
  }
  SECTION("a vocabulary the text cannot fill is an error while hard_vocab_limit is true") {
    CHECK_THAT(tokenlab::test::error_of(
                   [&] { (void)train(fixture("bpe.model"), {(dir / "t.txt").string()}, 20); }),
               Contains("vocabulary size too high (20)") && Contains("at most 13 pieces"));
  }
}

TEST_CASE("Overrides change the template's trainer settings by spm_train's flag names",
          "[pretrained][sentencepiece][training]") {
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "t.txt", "ab 12 ab 12\n");
  const std::string file = (dir / "t.txt").string();
  SECTION("byte_fallback reserves the 256 byte pieces after the meta pieces") {
    const auto pieces =
        spm_pieces(train(fixture("bpe.model"), {file}, 268, {{"byte_fallback", "true"}}));
    REQUIRE(pieces.size() == 268);
    CHECK(pieces[3] == SpmPiece{"<0x00>", 0, kByte});
    CHECK(pieces[258] == SpmPiece{"<0xFF>", 0, kByte});
    CHECK(pieces[259] == SpmPiece{"12", -0.0f, kNormal});  // checked with spm_train
  }
  SECTION("split_digits keeps digits apart, user-defined symbols take the next ids") {
    // "ab" is cut out of the text, and no piece may hold a digit with anything
    // else: nothing is merged, and the alphabet is ▁ (4), then 1 and 2 (2 each).
    const auto pieces =
        spm_pieces(train(fixture("bpe.model"), {file}, 7,
                         {{"split_digits", "true"}, {"user_defined_symbols", "ab"}}));
    const std::vector<SpmPiece> expected = {{"<unk>", 0, kUnknown},     {"<s>", 0, kControl},
                                            {"</s>", 0, kControl},      {"ab", 0, kUserDefined},
                                            {"\u2581", -0.0f, kNormal}, {"1", -1, kNormal},
                                            {"2", -2, kNormal}};
    CHECK(pieces == expected);
  }
}

TEST_CASE("Retraining refuses bad settings and bad input with a message naming them",
          "[pretrained][sentencepiece][training]") {
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "t.txt", "ab ab ab abc\n");
  const std::string file = (dir / "t.txt").string();
  const std::string like = fixture("bpe.model");
  using tokenlab::test::error_of;
  CHECK_THAT(error_of([&] { (void)train(like, {file}, 0); }),
             Contains("vocabulary size is required"));
  CHECK_THAT(error_of([&] {
               (void)train(like, {file}, 10, {{"colour", "red"}});
             }),
             Contains("colour=red") && Contains("character_coverage"));
  CHECK_THAT(error_of([&] {
               (void)train(like, {file}, 10, {{"character_coverage", "x"}});
             }),
             Contains("character_coverage=x: not a number"));
  CHECK_THAT(error_of([&] {
               (void)train(like, {file}, 10, {{"character_coverage", "0.5"}});
             }),
             Contains("character_coverage must be in [0.98, 1]"));
  CHECK_THAT(error_of([&] {
               (void)train(like, {file}, 10, {{"model_type", "word"}});
             }),
             Contains("model_type WORD cannot be retrained"));
  CHECK_THAT(error_of([&] { (void)train(like, {file}, 5); }),
             Contains("vocab_size 5 is smaller than the required characters and meta pieces (7)"));
  CHECK_THAT(error_of([&] { (void)train("not a model", {file}, 10); }),
             Contains("not a SentencePiece model"));
  CHECK_THAT(error_of([&] { (void)train(like, {(dir / "missing.txt").string()}, 10); }),
             Contains("missing.txt: cannot open"));
  tokenlab::test::write_bytes(dir / "w.tsv", "ab\t3\nabc\tthree\n");
  CHECK_THAT(error_of([&] {
               (void)train(like, {(dir / "w.tsv").string()}, 10, {{"input_format", "tsv"}});
             }),
             Contains("w.tsv:2: bad count \"three\""));
}

TEST_CASE(
    "Retraining like a unigram model gives a unigram vocabulary laid out as spm_train lays it",
    "[pretrained][sentencepiece][training]") {
  const std::string reference = fixture("unigram.model");
  const auto pieces = spm_pieces(train(reference, {(kData / "spm_text.txt").string()}, 200));
  const auto expected = spm_pieces(reference);
  REQUIRE(pieces.size() == 200);
  CHECK(pieces[0] == expected[0]);  // <unk>, <s>, </s> at their ids
  CHECK(pieces[2] == expected[2]);
  for (std::size_t i = 4; i < pieces.size(); ++i) CHECK(pieces[i].score <= pieces[i - 1].score);
  // Not spm's file (its EM is not reproduced), but mostly its pieces: 146 of 200 here.
  std::size_t shared = 0;
  for (const auto& p : pieces)
    for (const auto& q : expected) shared += p.piece == q.piece ? 1 : 0;
  CHECK(shared >= 130);
}

TEST_CASE("Retraining survives hostile templates and text: an Error or a model, never a crash",
          "[pretrained][sentencepiece][training]") {
  tokenlab::test::TempDir dir;
  // Ill-formed UTF-8, NUL, CR, a tab, meta pieces, a broken and a whole ▁.
  // Its length from the array, not counted by hand: a count of 38 read past
  // the 35-byte literal (AddressSanitizer).
  static constexpr char kLine[] =
      " \xFF"
      "a\0b <s>\tx\r \xE2\x96 \xE2\x96\x81y </s>z <0x41>\n";
  std::string text;
  for (int i = 0; i < 50; ++i)
    text += "w" + std::to_string(i % 7) + std::string(kLine, sizeof kLine - 1);
  tokenlab::test::write_bytes(dir / "h.txt", text);
  const std::string file = (dir / "h.txt").string();
  const std::string like = fixture("bpe.model");
  SECTION("hostile text trains") {
    const auto pieces = spm_pieces(train(like, {file}, 60, {{"hard_vocab_limit", "false"}}));
    CHECK(pieces.size() > 3);
  }
  SECTION("every prefix and many bit flips of a template give an Error or a model") {
    std::size_t models = 0;
    for (std::size_t n = 0; n <= like.size();
         n = n + 7 > like.size() && n < like.size() ? like.size() : n + 7) {
      std::string t = like.substr(0, n);
      if (n > 0 && n < like.size()) t[n / 2] = static_cast<char>(t[n / 2] ^ (1 << (n % 8)));
      try {
        (void)train(t, {file}, 60, {{"hard_vocab_limit", "false"}});
        ++models;
      } catch (const tokenlab::Error&) {
      }
    }
    CHECK(models > 0);
  }
}
