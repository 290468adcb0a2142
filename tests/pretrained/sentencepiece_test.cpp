// SentencePiece .model files: four tiny models trained with Debian's spm_train
// on tests/data/pretrained/spm_text.txt (the commands are in that directory's
// README.md). Every expected id is what spm_encode --output_format=id gives, and
// every decoded text what spm_decode gives (sentencepiece 0.1.97).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "common/temp_files.hpp"
#include "pretrained_support.hpp"

using tokenlab::PretrainedTokenizer;
using tokenlab::test::Ids;

namespace {

PretrainedTokenizer spm_model(const std::string& name) {
  return PretrainedTokenizer::load(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) / "pretrained" /
                                   (name + ".model"));
}

}  // namespace

TEST_CASE("a SentencePiece unigram model encodes as spm_encode does",
          "[pretrained][sentencepiece]") {
  const auto spm = spm_model("unigram");
  CHECK(spm.pipeline().format == "sentencepiece");
  CHECK(spm.vocabulary_size() == 200);
  CHECK(spm.token(0) == "<unk>");
  CHECK(spm.unknown_id() == 0u);
  CHECK(spm.encode("The river was low.") == Ids{33, 3, 7, 13, 34, 7, 28, 4, 3, 19, 82, 6});
  CHECK(spm.encode("the station master") == Ids{9, 119, 42, 8, 31, 25});
  CHECK(spm.encode("Hello world") == Ids{3, 189, 5, 75, 11, 73, 7, 54});
  CHECK(spm.encode("42 + 17 = 59") == Ids{3, 154, 90, 3, 195, 3, 79, 155, 3, 171, 3, 127, 169});
  CHECK(spm.decode(Ids{33, 3, 7, 13, 34, 7, 28, 4, 3, 19, 82, 6}) == "The river was low.");
}

TEST_CASE("a SentencePiece BPE model encodes as spm_encode does", "[pretrained][sentencepiece]") {
  const auto spm = spm_model("bpe");
  CHECK(spm.encode("The river was low.") == Ids{39, 126, 102, 50, 56, 19, 80, 141});
  CHECK(spm.encode("the station master") == Ids{6, 49, 41, 104, 26, 27, 70});
  CHECK(spm.encode("Hello world") == Ids{126, 163, 127, 33, 130, 8, 25, 46});
  CHECK(spm.encode("42 + 17 = 59") ==
        Ids{126, 173, 160, 126, 196, 126, 157, 174, 126, 187, 126, 168, 184});
  CHECK(spm.decode(Ids{6, 49, 41, 104, 26, 27, 70}) == "the station master");
}

TEST_CASE("SentencePiece's unknown characters give one unknown id per run, decoded as \u2047",
          "[pretrained][sentencepiece]") {
  const auto unigram = spm_model("unigram");
  CHECK(unigram.encode("Stra\u00dfe und Caf\u00e9") ==
        Ids{3, 192, 12, 7, 8, 0, 5, 3, 85, 3, 139, 8, 40, 0});
  CHECK(unigram.encode("\u65e5\u672c") == Ids{3, 0});  // two unknown characters, one id
  CHECK(unigram.encode("x@y#z") == Ids{3, 111, 0, 18, 0, 157});
  CHECK(unigram.decode(Ids{3, 111, 0, 18, 0, 157}) == "x \u2047 y \u2047 z");
  const auto bpe = spm_model("bpe");
  CHECK(bpe.encode("Stra\u00dfe und Caf\u00e9") ==
        Ids{91, 128, 71, 0, 127, 73, 14, 126, 170, 129, 146, 0});
  CHECK(bpe.encode("\u65e5\u672c") == Ids{126, 0});
  CHECK(bpe.decode(Ids{126, 0}) == " \u2047 ");
}

TEST_CASE("SentencePiece byte_fallback spells unknown characters in <0xNN> pieces",
          "[pretrained][sentencepiece]") {
  const auto spm = spm_model("unigram_bytes");
  CHECK(spm.vocabulary_size() == 400);
  CHECK(spm.byte_fallback_ids().size() == 256);
  CHECK(spm.encode("Stra\u00dfe und Caf\u00e9") ==
        Ids{332, 267, 266, 278, 198, 162, 264, 259, 348, 259, 370, 278, 314, 198, 172});
  CHECK(spm.encode("\u65e5\u672c") == Ids{259, 233, 154, 168, 233, 159, 175});
  CHECK(spm.encode("x@y#z") == Ids{259, 368, 67, 269, 38, 358});
  CHECK(spm.decode(Ids{259, 233, 154, 168, 233, 159, 175}) == "\u65e5\u672c");
  CHECK(spm.decode(Ids{259, 368, 67, 269, 38, 358}) == "x@y#z");
}

TEST_CASE("SentencePiece's dummy prefix and white space handling follow the normalizer spec",
          "[pretrained][sentencepiece]") {
  SECTION("by default: a \u2581 before the text, white space runs collapsed, ends trimmed") {
    const auto spm = spm_model("bpe");
    CHECK(spm.encode("a   b    c") == Ids{5, 13, 18});
    CHECK(spm.encode("  leading and trailing  ") == Ids{19, 127, 63, 42, 23, 3, 71, 135, 137, 42});
    CHECK(spm.decode(Ids{5, 13, 18}) == "a b c");
    CHECK(spm.encode("   ").empty());
    const auto unigram = spm_model("unigram");
    CHECK(unigram.encode("a   b    c") == Ids{16, 35, 92});
    CHECK(unigram.encode("  leading and trailing  ") ==
          Ids{3, 53, 8, 17, 50, 23, 61, 7, 8, 13, 19, 50});
  }
  SECTION("add_dummy_prefix=false, remove_extra_whitespaces=false: every space kept") {
    const auto raw = spm_model("bpe_raw");
    CHECK(raw.encode("Hello world") == Ids{163, 127, 31, 130, 8, 25, 44});
    CHECK(raw.encode("The river was low.") == Ids{34, 126, 98, 48, 54, 19, 78, 141});
    CHECK(raw.encode("a   b    c") == Ids{129, 126, 126, 13, 126, 126, 126, 18});
    CHECK(raw.encode("  leading and trailing  ") ==
          Ids{126, 19, 127, 61, 40, 23, 3, 70, 135, 137, 40, 126, 126});
    CHECK(raw.encode("   ") == Ids{126, 126, 126});
    CHECK(raw.decode(Ids{129, 126, 126, 13, 126, 126, 126, 18}) == "a   b    c");
    CHECK(raw.decode(Ids{126, 19, 127, 61, 40, 23, 3, 70, 135, 137, 40, 126, 126}) ==
          "  leading and trailing  ");
  }
}

TEST_CASE("a .model file's bytes load with from_bytes and auto detection",
          "[pretrained][sentencepiece]") {
  const auto path = std::filesystem::path(TOKENLAB_TEST_DATA_DIR) / "pretrained" / "unigram.model";
  const auto spm =
      PretrainedTokenizer::from_bytes(tokenlab::test::read_bytes(path), "unigram.model");
  CHECK(spm.pipeline().format == "sentencepiece");
  CHECK(spm.encode("the station master") == Ids{9, 119, 42, 8, 31, 25});
}

TEST_CASE("pieces are displayed as the file spells them, U+2581 and <0xNN> kept",
          "[pretrained][sentencepiece]") {
  const auto spm = spm_model("unigram_bytes");
  // A normal piece is shown as the file spells it: decoding would hide the marker.
  CHECK(spm.token(259).rfind("\u2581", 0) == 0);
  CHECK(spm.display_piece(259) == spm.token(259));
  // A byte piece is <0xNN>, as spm_encode --output_format=piece and a model
  // tokenlab trained show it, not its byte.
  REQUIRE(spm.byte_fallback_ids().size() == 256);
  for (const tokenlab::TokenId id : spm.byte_fallback_ids()) {
    CAPTURE(spm.token(id));
    CHECK(spm.display_piece(id) == spm.token(id));
  }
  CHECK(spm.display_piece(100000).empty());
}
