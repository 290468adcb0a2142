// compare's studies beyond compression, end to end on trained models: every
// inference method as rows of its own, its agreement with the model's own
// encoding, and the morphology scores of every row.
#include <catch2/catch.hpp>

#include <string>

#include "tokenlab/compare.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/study_tables.hpp"

using namespace tokenlab;

namespace {

const std::string kData = TOKENLAB_TEST_DATA_DIR;

const PluginRegistry& registry() {
  static PluginRegistry* r = [] {
    auto* reg = new PluginRegistry();
    reg->load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
    return reg;
  }();
  return *r;
}

const CompareResult& studied_run() {
  static const CompareResult result = [] {
    CompareOptions o;
    o.corpus_files = {kData + "/corpus/english.txt"};
    o.algorithms = {"bpe", "unigram", "wordpiece"};
    o.training.vocab_size = 400;
    o.training.threads = 2;
    o.held_out = 0.3;
    o.bootstrap_samples = 0;
    o.inference_methods = parse_inference_methods("all");
    o.morph_gold = {read_gold_segmentations(kData + "/studies/english-gold.tsv"),
                    read_gold_segmentations("ms=" + kData + "/studies/english-morphscore.csv")};
    return run_compare(registry(), o);
  }();
  return result;
}

const InferenceRow& agreement(const std::string& algorithm, const std::string& method) {
  for (const auto& row : studied_run().inference)
    if (row.algorithm == algorithm && row.method == method) return row;
  FAIL("no inference row for " << algorithm << " / " << method);
  return studied_run().inference.front();
}

}  // namespace

TEST_CASE("each model's own rule, rerun by the engine, reproduces its encoding exactly",
          "[studies][inference]") {
  // BPE's merges, unigram's Viterbi and WordPiece's greedy longest match are the
  // models' own rules: run from the vocabulary alone they must cut every held-out
  // word as the plugin does.
  for (const auto& [algorithm, method] :
       {std::pair{"bpe", "merges"}, std::pair{"unigram", "likelihood"},
        std::pair{"wordpiece", "longest-prefix"}}) {
    CAPTURE(algorithm, method);
    const InferenceRow& row = agreement(algorithm, method);
    REQUIRE(row.error.empty());
    CHECK(row.agreement.units > 100);
    CHECK(row.agreement.differing_units == 0);
    CHECK(row.agreement.method_tokens == row.agreement.own_tokens);
    CHECK(row.agreement.f1() == Approx(1.0));
  }
}

TEST_CASE("every method is a compare row of its own, with every column", "[studies][inference]") {
  const CompareResult& r = studied_run();
  const auto find = [&](const std::string& label) -> const CompareRow* {
    for (const auto& row : r.rows)
      if (row.algorithm == label) return &row;
    return nullptr;
  };
  for (const std::string model : {"bpe", "unigram", "wordpiece"})
    for (const std::string method :
         {"longest-prefix", "longest-suffix", "longest-token", "fewest-tokens"}) {
      const CompareRow* row = find(model + "/" + method);
      REQUIRE(row != nullptr);
      CHECK(row->error.empty());
      CHECK(row->metrics.tokens > 0);
      // The same vocabulary: never more tokens than fewest-tokens' minimum.
      CHECK(row->metrics.tokens >= find(model + "/fewest-tokens")->metrics.tokens);
    }
  CHECK(find("bpe/likelihood") == nullptr);  // a BPE has no scores
  CHECK_THAT(agreement("bpe", "likelihood").error, Catch::Contains("not a unigram"));
  CHECK(find("unigram/merges") == nullptr);
  // Fewest tokens is the minimum, so it never needs more tokens than the own rule.
  CHECK(agreement("bpe", "fewest-tokens").agreement.method_tokens <=
        agreement("bpe", "fewest-tokens").agreement.own_tokens);
}

TEST_CASE("every row, methods included, is scored on every gold set", "[studies][morphology]") {
  const CompareResult& r = studied_run();
  std::size_t plain = 0;
  std::size_t csv = 0;
  for (const auto& row : r.morphology) {
    CAPTURE(row.algorithm, row.gold);
    CHECK(row.error.empty());
    if (row.gold == "english-gold") {
      ++plain;
      CHECK(row.scores.words == 22);
      CHECK(row.scores.segmented_words + row.scores.unaligned == 22);
      CHECK(row.scores.gold_boundaries > 0);
    } else {
      ++csv;
      CHECK(row.gold == "ms");
      CHECK(row.scores.morph_score_words + row.scores.excluded_single_token +
                row.scores.unaligned ==
            8);
    }
  }
  // 3 models x (own + 5 or 4 methods each): bpe 6, unigram 6, wordpiece 5... as rows.
  CHECK(plain == csv);
  CHECK(plain >= 3 + 3 * 4);
  CHECK(morphology_table(r).rows.size() == r.morphology.size());
  CHECK(inference_table(r).rows.size() == r.inference.size());
}
