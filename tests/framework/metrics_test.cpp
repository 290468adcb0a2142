// Segmentation metrics on a fixture small enough to compute by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <istream>
#include <ostream>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/metrics.hpp"
#include "tokenlab/segmenter.hpp"

using Catch::Detail::Approx;
using tokenlab::TokenId;

namespace {

// A segmenter with a fixed vocabulary: the metrics only ever ask it to decode.
class FixedSegmenter final : public tokenlab::Segmenter {
 public:
  FixedSegmenter() {
    vocabulary_.set_unknown(vocabulary_.add_special("<unk>"));  // 0
    for (const char* piece : {"\u2581the", "\u2581cat", "s", "\u2581", "a", "\u2581dogs"})
      vocabulary_.add(piece);
  }
  std::string name() const override { return "fixed"; }
  std::string version() const override { return "0"; }
  void train(const tokenlab::WordCounts&, const tokenlab::TrainOptions&,
             tokenlab::TrainingObserver*) override {}
  void encode(std::string_view, std::vector<TokenId>&) const override {}
  std::string decode(std::span<const TokenId> ids) const override {
    std::string out;
    for (const TokenId id : ids) out += vocabulary_.piece(id);
    return out;
  }
  const tokenlab::Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream&) const override {}
  void load(std::istream&) override {}

 private:
  tokenlab::Vocabulary vocabulary_;
};

}  // namespace

TEST_CASE("metrics of a hand-computed fixture", "[metrics]") {
  const FixedSegmenter segmenter;
  const auto& v = segmenter.vocabulary();
  REQUIRE(v.size() == 7);
  tokenlab::MetricsAccumulator acc(v.size(), v.unknown_id());
  // word            ids              chars bytes tokens unknown chars under <unk>
  // ▁the            [▁the]             3     3     1      0
  // ▁cats           [▁cat, s]          4     4     2      0
  // ▁dog            [<unk>]            3     3     1      1     3 (all of it)
  // ▁aé             [▁, a, <unk>]      2     3     3      1     1 (é; "▁a" is known)
  const std::vector<TokenId> the{1}, cats{2, 3}, dog{0}, ae{4, 5, 0};
  acc.add_word("\u2581the", the, segmenter);
  acc.add_word("\u2581cats", cats, segmenter);
  acc.add_word("\u2581dog", dog, segmenter);
  acc.add_word("\u2581a\u00E9", ae, segmenter);
  const tokenlab::SegmentationMetrics m = acc.finish();

  SECTION("raw counts") {
    CHECK(m.words == 4);
    CHECK(m.tokens == 7);
    CHECK(m.characters == 12);
    CHECK(m.bytes == 13);
    CHECK(m.unknown_tokens == 2);
    CHECK(m.unknown_characters == 4);
    CHECK(m.words_with_unknown == 2);
    CHECK(m.continued_words == 2);
    CHECK(m.distinct_tokens == 6);  // "▁dogs" is never used
    CHECK(m.vocabulary_size == 7);
  }
  SECTION("derived figures") {
    CHECK(m.fertility() == Approx(7.0 / 4.0));
    CHECK(m.characters_per_token() == Approx(12.0 / 7.0));
    CHECK(m.bytes_per_token() == Approx(13.0 / 7.0));
    CHECK(m.continued_word_rate() == Approx(0.5));
    CHECK(m.unknown_token_rate() == Approx(2.0 / 7.0));
    CHECK(m.unknown_character_rate() == Approx(4.0 / 12.0));
    CHECK(m.unknown_word_rate() == Approx(0.5));
    CHECK(m.vocabulary_utilization() == Approx(6.0 / 7.0));
  }
  SECTION("Renyi efficiency, alpha 2.5") {
    // Token counts: <unk> 2, five others 1 each, 7 in all; |V| = 7.
    // sum p^2.5 = (2^2.5 + 5) / 7^2.5 = 10.656854 / 129.641814 = 0.0822023
    // H_2.5 = ln(0.0822023) / (1 - 2.5) = 1.665715;  efficiency = 1.665715 / ln 7 = 0.856008
    CHECK(m.renyi_efficiency_2_5 == Approx(0.856008).epsilon(1e-5));
  }
  SECTION("merging two halves gives the same metrics as one pass") {
    tokenlab::MetricsAccumulator first(v.size(), v.unknown_id());
    tokenlab::MetricsAccumulator second(v.size(), v.unknown_id());
    first.add_word("\u2581the", the, segmenter);
    first.add_word("\u2581cats", cats, segmenter);
    second.add_word("\u2581dog", dog, segmenter);
    second.add_word("\u2581a\u00E9", ae, segmenter);
    first.merge(second);
    const auto merged = first.finish();
    CHECK(merged.tokens == m.tokens);
    CHECK(merged.unknown_characters == m.unknown_characters);
    CHECK(merged.distinct_tokens == m.distinct_tokens);
    CHECK(merged.renyi_efficiency_2_5 == Approx(m.renyi_efficiency_2_5));
  }
}

TEST_CASE("Renyi efficiency is 1 for a uniform distribution over the whole vocabulary",
          "[metrics]") {
  const std::vector<std::uint64_t> uniform(16, 5);
  CHECK(tokenlab::renyi_efficiency(uniform, 2.5, 16) == Approx(1.0));
  const std::vector<std::uint64_t> one_token{0, 10, 0, 0};
  CHECK(tokenlab::renyi_efficiency(one_token, 2.5, 4) == Approx(0.0).margin(1e-12));
}

TEST_CASE("empty input gives zeros, not NaN", "[metrics]") {
  const tokenlab::MetricsAccumulator acc(10, std::nullopt);
  const auto m = acc.finish();
  CHECK(m.fertility() == 0.0);
  CHECK(m.unknown_token_rate() == 0.0);
  CHECK_FALSE(std::isnan(m.renyi_efficiency_2_5));
}

TEST_CASE("embedding cost: V x d tied, 2 x V x d untied", "[metrics]") {
  const auto gpt2 = tokenlab::embedding_cost(50257, 768);
  CHECK(gpt2.tied_parameters == 38'597'376u);
  CHECK(gpt2.untied_parameters == 77'194'752u);
  CHECK(gpt2.tied_bf16_bytes() == 77'194'752u);
  const auto large = tokenlab::embedding_cost(100000, 4096);
  CHECK(large.tied_parameters == 409'600'000u);
  CHECK(large.untied_parameters == 819'200'000u);
  // ALGORITHMS.md: 32,000 -> 256,000 entries at d = 4,096 adds 917.5 M per matrix.
  CHECK(tokenlab::embedding_cost(256000, 4096).tied_parameters -
            tokenlab::embedding_cost(32000, 4096).tied_parameters ==
        917'504'000u);
}
