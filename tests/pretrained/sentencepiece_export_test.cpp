// SentencePiece export (sentencepiece_writer.hpp): unigram and BPE models trained
// here with a SentencePiece-style pipeline, written as a .model and read back
// through tokenlab's SentencePiece reader (which runs them as spm_encode does),
// give the model's ids and decoded text on every line, the normalization
// included; other models and pipelines are refused.
// (The same files against spm_encode itself: tests/references/export_exactness.sh.)
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "export_support.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/pretrained/rank_merges.hpp"
#include "tokenlab/pretrained/sentencepiece_writer.hpp"
#include "tokenlab/unigram/unigram_model.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

using namespace tokenlab;

namespace {

std::string exported(const Tokenizer& t) {
  return write_sentencepiece(test::description_of(t), t.normalizer().options(),
                             t.pre_tokenizer().options());
}

// Lines the normalization has work on: full-width letters and digits, a ligature,
// decomposed accents, tabs, no-break and ideographic spaces, capitals.
const std::vector<std::string>& normalization_lines() {
  static const std::vector<std::string> lines = {
      "\uFF34\uFF48\uFF45 \uFF51\uFF55\uFF49\uFF43\uFF4B fox, \uFF11\uFF12\uFF13.",
      "\uFB01ne and \uFB02at",
      "Cafe\u0301 Zu\u0308rich, caf\u00E9 Z\u00FCrich",
      "tabs\tand\u00A0no-break\u3000spaces \t between  words ",
      "\u1100\u1161\u11A8 \uAC01 \u0915\u093C \u0958",
      "THE LOWEST NEWEST WIDEST",
  };
  return lines;
}

void check_round_trip(const Tokenizer& t) {
  const PretrainedTokenizer back =
      PretrainedTokenizer::from_bytes(exported(t), "exported.model", "sentencepiece");
  for (const auto* lines : {&test::training_lines(), &test::test_lines(), &normalization_lines()}) {
    for (const auto& line : *lines) {
      INFO("line: " << line);
      const std::vector<TokenId> ids = t.encode(line);
      CHECK(back.encode(line) == ids);
      CHECK(back.decode(ids) == t.decode(ids));
    }
  }
}

Tokenizer trained_unigram(NormalizerOptions n, std::map<std::string, std::string> extra = {}) {
  return test::trained(std::make_shared<unigram::UnigramSegmenter>(), n, test::kSentencePiece, 500,
                       std::move(extra));
}

Tokenizer trained_bpe(NormalizerOptions n, std::map<std::string, std::string> extra = {}) {
  return test::trained(std::make_shared<bpe::BpeSegmenter>(), n, test::kSentencePiece, 500,
                       std::move(extra));
}

}  // namespace

TEST_CASE("sentencepiece export: unigram, NFC, NFKC and none, with and without lowercase",
          "[export][sentencepiece]") {
  check_round_trip(trained_unigram({}));
  check_round_trip(trained_unigram({.form = NormalizationForm::nfkc}, {{"byte_fallback", "true"}}));
  check_round_trip(trained_unigram({.form = NormalizationForm::nfkc, .lowercase = true}));
  check_round_trip(
      trained_unigram({.form = NormalizationForm::none}, {{"byte_fallback", "false"}}));
}

TEST_CASE("sentencepiece export: BPE over characters with byte fallback",
          "[export][sentencepiece]") {
  check_round_trip(trained_bpe({}, {{"byte_fallback", "true"}}));
  check_round_trip(trained_bpe({.form = NormalizationForm::nfkc, .lowercase = true},
                               {{"byte_fallback", "true"}}));
}

TEST_CASE("sentencepiece export: models and pipelines SentencePiece cannot run are refused",
          "[export][sentencepiece]") {
  const auto refusal = [](const Tokenizer& model) {
    return test::error_of([&] { (void)exported(model); });
  };
  CHECK_THAT(refusal(test::trained(std::make_shared<bpe::BpeSegmenter>(), {},
                                   {PreTokenizerKind::unicode, MarkerStyle::prefix}, 300)),
             Catch::Contains("--pre-tokenizer unicode/prefix") &&
                 Catch::Contains("--pre-tokenizer whitespace"));
  CHECK_THAT(refusal(test::trained(std::make_shared<bpe::BpeSegmenter>(),
                                   {.form = NormalizationForm::none, .keep_whitespace = true},
                                   {PreTokenizerKind::o200k, MarkerStyle::space}, 300,
                                   {{"units", "bytes"}})),
             Catch::Contains("byte-level BPE") && Catch::Contains("--format tiktoken"));
  CHECK_THAT(refusal(test::trained(std::make_shared<wordpiece::WordPieceSegmenter>(), {},
                                   test::kSentencePiece, 300)),
             Catch::Contains("neither unigram nor BPE") && Catch::Contains("tokenizer.json"));
  CHECK_THAT(refusal(trained_unigram({.strip_accents = true})), Catch::Contains("strip-accents"));
  // SentencePiece joins a run of unknown characters into one unknown token.
  CHECK_THAT(refusal(trained_bpe({}, {{"byte_fallback", "false"}})),
             Catch::Contains("without byte fallback") && Catch::Contains("byte_fallback=true"));
}

TEST_CASE("sentencepiece export: SentencePiece's merge rule is checked against the merges",
          "[export][sentencepiece]") {
  // Characters as units: "b"+"c", then "a"+"b", then "ab"+"c". The merges leave
  // "abc" as "a" "bc"; SentencePiece joins "a" and "bc" into the token "abc".
  ModelDescription m;
  m.kind = ModelKind::bpe;
  m.pieces = {"<unk>", "a", "b", "c", "bc", "ab", "abc"};
  m.specials = {0};
  m.unknown = 0;
  m.merges = {{2, 3}, {1, 2}, {5, 3}};
  const RankMergeConflicts conflicts = rank_merge_conflicts(m, RankRule::sentencepiece);
  CHECK(conflicts.count == 1);
  CHECK(conflicts.example == 6);
  m.pieces = {"<unk>", "a", "b", "c", "ab", "bc", "abc"};
  m.merges = {{1, 2}, {2, 3}, {4, 3}};
  CHECK(rank_merge_conflicts(m, RankRule::sentencepiece).count == 0);
  // Models trained here: none.
  CHECK(
      rank_merge_conflicts(test::description_of(trained_bpe({})), RankRule::sentencepiece).count ==
      0);
}
