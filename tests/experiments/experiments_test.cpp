// The comparison driver: metrics on hand-computed fixtures, parity, fairness,
// sweeps and multilingual runs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/skip.hpp"
#include "experiments_support.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/lorenz.hpp"
#include "tokenlab/metrics.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace fs = std::filesystem;
using namespace tokenlab;

namespace {

const std::string& kData = tokenlab::test::kExperimentsData;

const PluginRegistry& registry() {
  return tokenlab::test::experiments_registry();
}

const CompareRow& row_of(const CompareResult& r, const std::string& algorithm,
                         const std::string& language) {
  for (const auto& row : r.rows)
    if (row.algorithm == algorithm && row.language == language) return row;
  FAIL("no row for " << algorithm << " / " << language);
  return r.rows.front();
}

CompareOptions parallel_fixture() {
  CompareOptions o;
  o.languages = {{"en", {kData + "/parallel/en.txt"}}, {"de", {kData + "/parallel/de.txt"}}};
  o.aligned = true;
  o.held_out = 0.3;
  o.training.vocab_size = 120;
  o.training.threads = 2;
  o.algorithms = {"character", "word"};
  return o;
}

}  // namespace

TEST_CASE("Embedding costs match the published figures", "[experiments][metrics]") {
  CHECK(embedding_cost(50257, 768).tied_parameters == 38597376);  // GPT-2: 38.6 M
  CHECK(embedding_cost(100000, 4096).tied_parameters == 409600000);
  CHECK(embedding_cost(100000, 4096).untied_parameters == 819200000);
  CHECK(embedding_cost(100000, 4096).tied_bf16_bytes() == 819200000);
  // Going from 32,000 to 256,000 entries at d = 4,096 adds 917.5 M per matrix.
  CHECK(embedding_cost(256000, 4096).tied_parameters -
            embedding_cost(32000, 4096).tied_parameters ==
        917504000);
}

TEST_CASE("Renyi efficiency equals the hand-computed value", "[experiments][metrics]") {
  // p = (1/2, 1/4, 1/4) over a vocabulary of 4: H_2.5 = log(sum p^2.5) / (1 - 2.5),
  // efficiency = H_2.5 / log 4 = 0.687749...
  const std::vector<std::uint64_t> counts{2, 1, 1, 0};
  CHECK(renyi_efficiency(counts, 2.5, 4) == Approx(0.6877494015).epsilon(1e-9));
  SECTION("a uniform distribution over the whole vocabulary is perfectly efficient") {
    CHECK(renyi_efficiency(std::vector<std::uint64_t>{3, 3, 3, 3}, 2.5, 4) == Approx(1.0));
  }
  SECTION("a single token carries no information") {
    CHECK(renyi_efficiency(std::vector<std::uint64_t>{7, 0, 0}, 2.5, 3) ==
          Approx(0.0).margin(1e-12));
  }
}

TEST_CASE("The Gini coefficient measures inequality across languages", "[experiments][metrics]") {
  CHECK(gini_coefficient({1.0, 1.0, 1.0}) == Approx(0.0).margin(1e-12));
  CHECK(gini_coefficient({0.0, 0.0, 1.0}) == Approx(2.0 / 3.0));
  CHECK(gini_coefficient({1.0, 3.0}) == Approx(0.25));
  CHECK(gini_coefficient({}) == 0.0);
}

namespace {

// The area under a curve of points joined by straight lines (trapezoids).
double area_under(const std::vector<std::pair<double, double>>& points) {
  double area = 0.0;
  for (std::size_t i = 1; i < points.size(); ++i)
    area += (points[i].first - points[i - 1].first) * (points[i].second + points[i - 1].second) / 2;
  return area;
}

}  // namespace

TEST_CASE("The Lorenz curve of the languages' tokens gives back their Gini coefficient",
          "[experiments][metrics]") {
  // 40, 10 and 10 tokens for the same lines (docs/metrics.md's example), sorted
  // ascending: 10, 10, 40 of 60. x steps by 1/3; y = 0, 10/60, 20/60, 60/60.
  const auto points = lorenz_curve({40.0, 10.0, 10.0});
  REQUIRE(points.size() == 4);
  const std::vector<std::pair<double, double>> expected{
      {0.0, 0.0}, {1.0 / 3, 1.0 / 6}, {2.0 / 3, 1.0 / 3}, {1.0, 1.0}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(points[i].first == Approx(expected[i].first));
    CHECK(points[i].second == Approx(expected[i].second));
  }
  // Area under it: (1/3) (1/12 + 1/4 + 2/3) = 1/3, so 1 - 2 B = 1/3 = the Gini.
  CHECK(area_under(points) == Approx(1.0 / 3));
  CHECK(1.0 - 2.0 * area_under(points) == Approx(gini_coefficient({40.0, 10.0, 10.0})));

  SECTION("1 - 2 x (area by trapezoids) is gini_coefficient for any values") {
    // The normalisation that matches: trapezoids over steps of 1/n give
    // 1 - 2 B = 2 sum i x_i / (n sum x) - (n + 1) / n, the population Gini
    // sum_i sum_j |x_i - x_j| / (2 n^2 mean), whose maximum is (n - 1) / n
    // (swiss-ai's TFG and gini_coefficient), not the sample-corrected n / (n - 1)
    // times it. Steps instead of trapezoids would be off by 1/n: the left-step
    // area gives G + 1/n, the right-step area G - 1/n.
    const std::vector<std::vector<double>> cases{{1.0, 3.0},
                                                 {0.0, 0.0, 1.0},
                                                 {5.0, 5.0, 5.0, 5.0},
                                                 {3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0},
                                                 {1000.0, 1170.0, 1850.0, 2630.0}};
    for (const auto& values : cases) {
      CAPTURE(values);
      const auto curve = lorenz_curve(values);
      REQUIRE(curve.size() == values.size() + 1);
      CHECK(curve.front() == std::pair<double, double>{0.0, 0.0});
      CHECK(curve.back().first == 1.0);
      CHECK(curve.back().second == Approx(1.0));
      double total = 0.0;
      double differences = 0.0;
      for (const double a : values) {
        total += a;
        for (const double b : values) differences += std::abs(a - b);
      }
      const auto n = static_cast<double>(values.size());
      const double gini = 1.0 - 2.0 * area_under(curve);
      CHECK(gini == Approx(gini_coefficient(values)).margin(1e-12));
      CHECK(gini == Approx(differences / (2.0 * n * n * (total / n))).margin(1e-12));
    }
    // One language pays for all: the curve hugs the x axis, G = (n - 1) / n.
    CHECK(1.0 - 2.0 * area_under(lorenz_curve({0.0, 0.0, 1.0})) == Approx(2.0 / 3));
  }
  SECTION("no values give no curve; values summing to 0 give the line of equality") {
    CHECK(lorenz_curve({}).empty());
    const auto zeros = lorenz_curve({0.0, 0.0});
    REQUIRE(zeros.size() == 3);
    CHECK(zeros[1] == std::pair<double, double>{0.5, 0.5});
    CHECK(1.0 - 2.0 * area_under(zeros) == Approx(gini_coefficient({0.0, 0.0})).margin(1e-12));
  }
}

TEST_CASE("Parity on aligned text divides each language's tokens by the reference's",
          "[experiments]") {
  const CompareResult r = run_compare(registry(), parallel_fixture());
  REQUIRE(r.languages.size() == 2);
  CHECK(r.options.reference_language == "en");
  SECTION("both languages hold out the same segments") {
    CHECK(r.languages[0].held_out_lines == r.languages[1].held_out_lines);
    CHECK(r.languages[0].held_out_lines > 0);
  }
  for (const std::string algorithm : {"character", "word"}) {
    CAPTURE(algorithm);
    const auto& en = row_of(r, algorithm, "en");
    const auto& de = row_of(r, algorithm, "de");
    REQUIRE(en.error.empty());
    REQUIRE(de.error.empty());
    REQUIRE(en.premium.has_value());
    REQUIRE(de.premium.has_value());
    CHECK(*en.premium == 1.0);
    CHECK(*de.premium ==
          Approx(static_cast<double>(de.metrics.tokens) / static_cast<double>(en.metrics.tokens)));
  }
  SECTION("jointly trained tokenizers share one vocabulary across languages") {
    CHECK(row_of(r, "word", "en").metrics.vocabulary_size ==
          row_of(r, "word", "de").metrics.vocabulary_size);
  }
  SECTION("Gini is over each language's tokens on the same segments (TokEval), per segmenter") {
    // Not over tokens per byte, which made Llama 3 look fairest (issue 26).
    for (const std::string algorithm : {"character", "word"}) {
      CAPTURE(algorithm);
      REQUIRE(r.gini.count(algorithm) == 1);
      CHECK(r.gini.at(algorithm) ==
            Approx(gini_coefficient(
                {static_cast<double>(row_of(r, algorithm, "en").metrics.tokens),
                 static_cast<double>(row_of(r, algorithm, "de").metrics.tokens)})));
    }
    CHECK(r.premium_note.empty());
  }
}

TEST_CASE("Without aligned text there is no premium and no Gini, and the result says why",
          "[experiments]") {
  CompareOptions o = parallel_fixture();
  o.aligned = false;  // --corpus en=... --corpus de=...: not known to be translations
  const CompareResult r = run_compare(registry(), o);
  for (const auto& row : r.rows) CHECK_FALSE(row.premium.has_value());
  CHECK(r.gini.empty());
  CHECK_THAT(r.premium_note, Catch::Contains("not line-aligned") && Catch::Contains("--parallel"));
  // The table keeps the premium column, '-' in it, and the reason beside the run's settings.
  const ReportTable table = fairness_table(r);
  bool noted = false;
  for (const auto& [key, value] : table.metadata) noted = noted || key == "premium";
  CHECK(noted);
  const ReportTable main = comparison_table(r);
  const auto premium = std::find_if(main.columns.begin(), main.columns.end(),
                                    [](const ReportColumn& c) { return c.name == "premium"; });
  REQUIRE(premium != main.columns.end());
  const auto at = static_cast<std::size_t>(premium - main.columns.begin());
  for (const auto& cells : main.rows) CHECK(cells.at(at) == "-");
}

TEST_CASE("Per-language training gives each language its own tokenizer", "[experiments]") {
  CompareOptions o = parallel_fixture();
  o.per_language = true;
  o.algorithms = {"word"};
  o.training.vocab_size = 100000;  // every training word fits: vocabulary = own words + <unk>
  const CompareResult r = run_compare(registry(), o);
  REQUIRE(r.rows.size() == 2);
  CHECK(row_of(r, "word", "en").metrics.vocabulary_size == r.languages[0].distinct_words + 1);
  CHECK(row_of(r, "word", "de").metrics.vocabulary_size == r.languages[1].distinct_words + 1);
  SECTION("while a joint tokenizer holds the words of both") {
    o.per_language = false;
    const CompareResult joint = run_compare(registry(), o);
    CHECK(row_of(joint, "word", "en").metrics.vocabulary_size == joint.distinct_words + 1);
    CHECK(joint.distinct_words > r.languages[0].distinct_words);
  }
}

TEST_CASE("Running the same comparison twice gives the same numbers", "[experiments]") {
  const CompareResult a = run_compare(registry(), parallel_fixture());
  CompareOptions two_jobs = parallel_fixture();
  two_jobs.jobs = 2;
  const CompareResult b = run_compare(registry(), two_jobs);
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CAPTURE(a.rows[i].algorithm, a.rows[i].language);
    CHECK(a.rows[i].algorithm == b.rows[i].algorithm);
    CHECK(a.rows[i].metrics.tokens == b.rows[i].metrics.tokens);
    CHECK(a.rows[i].metrics.unknown_tokens == b.rows[i].metrics.unknown_tokens);
    CHECK(a.rows[i].metrics.distinct_tokens == b.rows[i].metrics.distinct_tokens);
  }
  CHECK(a.files.front().sha1 == b.files.front().sha1);
  CHECK(a.files.front().sha1.size() == 40);
}

TEST_CASE("A failing plugin is reported in its row while the others complete", "[experiments]") {
  CompareOptions o = parallel_fixture();
  o.plugin_options["word"]["no_such_option"] = "1";
  const CompareResult r = run_compare(registry(), o);
  CHECK(row_of(r, "word", "en").error.find("no_such_option") != std::string::npos);
  CHECK(row_of(r, "character", "en").error.empty());
  CHECK(row_of(r, "character", "en").metrics.tokens > 0);
}

TEST_CASE("A sweep repeats the comparison at each size and reports unreachable sizes",
          "[experiments][sweep]") {
  CompareOptions o;
  o.corpus_files = {kData + "/parallel/en.txt"};
  o.held_out = 0.2;
  o.training.threads = 1;
  o.algorithms = {"character", "word"};
  const SweepResult sweep = run_sweep(registry(), o, {20, 60, 5000});
  REQUIRE(sweep.runs.size() == 3);
  const auto& small = row_of(sweep.runs[0], "word", "");
  const auto& large = row_of(sweep.runs[2], "word", "");
  CHECK(small.metrics.vocabulary_size == 20);
  SECTION("a bigger word vocabulary leaves fewer unknown tokens") {
    CHECK(large.metrics.unknown_token_rate() <= small.metrics.unknown_token_rate());
  }
  SECTION("a size the corpus cannot reach is a note, not a failure") {
    CHECK(large.error.empty());
    CHECK(large.metrics.vocabulary_size < 5000);
    CHECK(large.note.find("supports only") != std::string::npos);
  }
  const ReportTable table = sweep_table(sweep);
  CHECK(table.rows.size() == 6);
}

TEST_CASE("Jointly trained on English and Hindi, the Devanagari text costs more tokens",
          "[experiments][integration]") {
  const fs::path dir = tokenlab::test::shared_dir() / "corpora/parallel/ntrex128";
  if (!fs::exists(dir / "en.txt") || !fs::exists(dir / "hi.txt"))
    TOKENLAB_SKIP(dir.string() << "/{en,hi}.txt are not present");
  CompareOptions o;
  o.languages = {{"en", {(dir / "en.txt").string()}}, {"hi", {(dir / "hi.txt").string()}}};
  o.aligned = true;
  o.training.vocab_size = 4000;
  o.training.threads = 2;
  o.algorithms = {"character", "word"};
  if (registry().has("bpe")) o.algorithms.push_back("bpe");
  const CompareResult r = run_compare(registry(), o);
  for (const auto& algorithm : o.algorithms) {
    CAPTURE(algorithm);
    const auto& en = row_of(r, algorithm, "en");
    const auto& hi = row_of(r, algorithm, "hi");
    REQUIRE(en.error.empty());
    REQUIRE(hi.error.empty());
    CHECK(en.metrics.words > 1000);
    // The same content takes more tokens in Hindi: a premium above parity.
    CHECK(*hi.premium > 1.0);
  }
}

TEST_CASE("The distribution panel reproduces tokenization-scorer's published values",
          "[experiments][metrics]") {
  // zouharvi/tokenization-scorer's unit test: "pick @@ed pick @@l @@ed pick @@les",
  // 4 types seen, Renyi(2.5) efficiency 0.82651 and Shannon efficiency 0.92119
  // (normalised by the log of the types seen, its default).
  const std::vector<std::uint64_t> counts = {3, 2, 1, 1};  // pick, @@ed, @@l, @@les
  const TokenDistribution d = token_distribution(counts, 100, 7);
  CHECK(d.renyi_seen[2] == Approx(0.82651).margin(5e-6));
  CHECK(d.renyi_seen[0] == Approx(0.92119).margin(5e-6));
  // Normalised by the vocabulary instead: the same entropy over log2 100.
  CHECK(d.renyi_vocabulary[0] == Approx(d.renyi_seen[0] * 2.0 / std::log2(100.0)));
  CHECK(d.shannon_bits == Approx(d.renyi_seen[0] * 2.0));
  CHECK(d.type_token_ratio == Approx(4.0 / 7.0));
  // Ranks 1, 2, 3, 4 (equal counts by id): (3*1 + 2*2 + 1*3 + 1*4) / 7.
  CHECK(d.average_token_rank == Approx(14.0 / 7.0));
  CHECK(d.uniform_bits_per_byte == Approx(7.0 * std::log2(100.0) / 7.0));
  // One type: no uncertainty, and no division by log 1.
  const TokenDistribution one = token_distribution(std::vector<std::uint64_t>{5}, 10, 5);
  CHECK(one.shannon_bits == 0.0);
  CHECK(one.renyi_seen[0] == 0.0);
}
