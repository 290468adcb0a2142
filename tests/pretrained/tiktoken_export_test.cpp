// tiktoken export (tiktoken_writer.hpp): a byte-level BPE trained here, written
// as a rank file and as npm tiktoken's encoder JSON, and read back through
// tokenlab's tiktoken reader, gives the model's ids and decoded text on every
// line; models and pipelines tiktoken cannot run exactly are refused.
// (The same files against npm tiktoken itself: tests/references/export_exactness.sh.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include "export_support.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/rank_merges.hpp"
#include "tokenlab/pretrained/tiktoken_writer.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/unigram/unigram_model.hpp"

using namespace tokenlab;

namespace {

constexpr NormalizerOptions kNoNormalization{.form = NormalizationForm::none,
                                             .keep_whitespace = true};

Tokenizer byte_level(PreTokenizerKind kind, std::size_t vocab_size = 500) {
  return test::trained(std::make_shared<bpe::BpeSegmenter>(), kNoNormalization,
                       {kind, MarkerStyle::space}, vocab_size, {{"units", "bytes"}});
}

TiktokenExport exported(const Tokenizer& t) {
  return write_tiktoken(test::description_of(t), t.normalizer().options(),
                        t.pre_tokenizer().options());
}

void check_same_ids_and_text(const Tokenizer& model, const PretrainedTokenizer& back) {
  for (const auto* lines : {&test::training_lines(), &test::test_lines()}) {
    for (const auto& line : *lines) {
      INFO("line: " << line);
      const std::vector<TokenId> ids = model.encode(line);
      CHECK(back.encode(line) == ids);
      CHECK(back.decode(ids) == model.decode(ids));
    }
  }
}

// A byte-level model by hand: the 256 bytes, then the merges in rank order.
ModelDescription hand_made(const std::vector<std::pair<std::string, std::string>>& merges) {
  ModelDescription m;
  m.kind = ModelKind::bpe;
  m.byte_level = true;
  for (int b = 0; b < 256; ++b) m.pieces.emplace_back(1, static_cast<char>(b));
  for (const auto& [left, right] : merges) {
    const auto id_of = [&](const std::string& piece) {
      return static_cast<TokenId>(std::find(m.pieces.begin(), m.pieces.end(), piece) -
                                  m.pieces.begin());
    };
    m.merges.emplace_back(id_of(left), id_of(right));
    m.pieces.push_back(left + right);
  }
  return m;
}

}  // namespace

TEST_CASE("tiktoken export: ranks are ids, merges in training order after the 256 bytes",
          "[export][tiktoken]") {
  const Tokenizer model = byte_level(PreTokenizerKind::cl100k);
  const TiktokenExport t = exported(model);
  CHECK(t.pattern_name == "cl100k_base");
  CHECK(t.pattern == kCl100kPattern);
  CHECK(t.specials.empty());
  CHECK(t.ranks.substr(0, 14) == "AA== 0\nAQ== 1\n");
  REQUIRE(t.tokens.size() == model.segmenter().vocabulary().size());
  for (std::size_t i = 0; i < t.tokens.size(); ++i) CHECK(t.tokens[i].second == i);
}

TEST_CASE("tiktoken export: the rank file and the encoder JSON encode as the model does",
          "[export][tiktoken]") {
  for (const auto kind : {PreTokenizerKind::cl100k, PreTokenizerKind::o200k, PreTokenizerKind::gpt2,
                          PreTokenizerKind::qwen2}) {
    const Tokenizer model = byte_level(kind);
    INFO("pre-tokenizer: " << model.pre_tokenizer().options().to_string());
    const TiktokenExport t = exported(model);
    check_same_ids_and_text(model, PretrainedTokenizer::from_bytes(t.encoder_json(), "json"));
    if (kind == PreTokenizerKind::cl100k)  // a rank file with tiktoken's own pattern
      check_same_ids_and_text(
          model, PretrainedTokenizer::from_bytes(t.ranks, "r", "tiktoken:cl100k_base"));
  }
}

TEST_CASE("tiktoken export: base64 as tiktoken's rank files spell it", "[export][tiktoken]") {
  CHECK(encode_base64("") == "");
  CHECK(encode_base64("f") == "Zg==");
  CHECK(encode_base64("fo") == "Zm8=");
  CHECK(encode_base64("foo") == "Zm9v");
  CHECK(encode_base64(" the") == "IHRoZQ==");  // cl100k_base's rank 279
  CHECK(encode_base64(std::string("\xff\x00\x80", 3)) == "/wCA");
}

TEST_CASE("tiktoken export: models and pipelines tiktoken cannot run are refused",
          "[export][tiktoken]") {
  const auto refusal = [](const Tokenizer& model) {
    return test::error_of([&] { (void)exported(model); });
  };
  CHECK_THAT(refusal(test::trained(std::make_shared<bpe::BpeSegmenter>(), kNoNormalization,
                                   {PreTokenizerKind::cl100k, MarkerStyle::space}, 300)),
             Catch::Contains("character-level BPE") && Catch::Contains("units=bytes"));
  CHECK_THAT(refusal(test::trained(std::make_shared<unigram::UnigramSegmenter>(), {},
                                   test::kSentencePiece, 300)),
             Catch::Contains("tiktoken runs only BPE") && Catch::Contains("tokenizer.json"));
  CHECK_THAT(refusal(test::trained(std::make_shared<bpe::BpeSegmenter>(),
                                   {.form = NormalizationForm::nfc, .keep_whitespace = true},
                                   {PreTokenizerKind::o200k, MarkerStyle::space}, 300,
                                   {{"units", "bytes"}})),
             Catch::Contains("--normalization nfc") && Catch::Contains("--normalization none"));
}

TEST_CASE("tiktoken export: tokens tiktoken's merge rule reaches otherwise are found",
          "[export][tiktoken]") {
  // Trained: "b"+"c", then "a"+"b", then "ab"+"c". The merges encode "abc" as
  // "a" "bc" (bc ranks first and a+bc is no merge); tiktoken finds "abc" a token.
  const RankMergeConflicts conflicts =
      rank_merge_conflicts(hand_made({{"b", "c"}, {"a", "b"}, {"ab", "c"}}), RankRule::tiktoken);
  CHECK(conflicts.count == 1);
  CHECK(conflicts.example == 258);
  // Trained the other way round, both rules agree.
  CHECK(rank_merge_conflicts(hand_made({{"a", "b"}, {"b", "c"}, {"ab", "c"}}), RankRule::tiktoken)
            .count == 0);
  // Models trained here: none.
  CHECK(rank_merge_conflicts(test::description_of(byte_level(PreTokenizerKind::o200k, 800)),
                             RankRule::tiktoken)
            .count == 0);
}
