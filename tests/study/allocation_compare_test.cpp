// compare --allocation (CompareOptions::allocation): every row of a
// multilingual run gets its allocation over the languages it serves, the
// reports carry its tables and plots, and the figures do not depend on threads.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../experiments/experiments_support.hpp"
#include "common/temp_files.hpp"
#include "tokenlab/allocation_report.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/report_bundle.hpp"

using namespace tokenlab;

namespace {

CompareOptions parallel_run(unsigned threads) {
  CompareOptions o;
  o.languages = {{"de", {test::kExperimentsData + "/parallel/de.txt"}},
                 {"en", {test::kExperimentsData + "/parallel/en.txt"}}};
  o.aligned = true;
  o.algorithms = {"bpe"};
  o.training.vocab_size = 300;
  o.training.threads = threads;
  o.held_out = 0.5;
  o.bootstrap_samples = 0;
  o.allocation = true;
  return o;
}

std::string csv_of(const ReportTable& t) {
  std::ostringstream out;
  write_csv(out, t);
  return out.str();
}

}  // namespace

TEST_CASE("compare --allocation: a row per label and language, the pruning curve, every entry",
          "[study][allocation][compare]") {
  const CompareResult r = run_compare(test::experiments_registry(), parallel_run(2));
  REQUIRE(r.allocations.size() == 1);
  const LabelAllocation& a = r.allocations.front();
  INFO(a.error);
  REQUIRE(a.error.empty());
  CHECK(a.allocation.method == "merges");
  CHECK(a.allocation.languages == std::vector<std::string>{"de", "en"});
  CHECK(a.allocation.differing_units == 0);  // the engine's merges are the plugin's
  // With the whole vocabulary, the tokens are the comparison's own.
  for (const auto& row : r.rows)
    for (const auto& lang : a.allocation.per_language)
      if (row.language == lang.language) CHECK(lang.tokens == row.metrics.tokens);
  REQUIRE(a.allocation.pruning.size() >= 2);
  CHECK(a.allocation.pruning.front().kept == a.allocation.vocabulary_size);
  for (std::size_t k = 1; k < a.allocation.pruning.size(); ++k)
    for (std::size_t l = 0; l < 2; ++l)
      CHECK(a.allocation.pruning[k].tokens[l] >= a.allocation.pruning[k - 1].tokens[l]);
  double served = 0.0;
  for (const auto& lang : a.allocation.per_language) served += lang.served_entries;
  std::size_t saving = 0;
  for (const auto& e : a.allocation.entries) {
    bool any = false;
    for (const auto s : e.saved) any = any || s > 0;
    saving += any ? 1 : 0;
  }
  CHECK(served == Approx(static_cast<double>(saving)));  // each saving entry split whole

  test::TempDir dir;
  const ReportBundle bundle = write_compare_reports(dir.path(), r);
  for (const char* file : {"allocation.csv", "allocation-languages.csv", "allocation-pruning.csv",
                           "allocation-entries.csv"})
    CHECK(std::filesystem::exists(dir / file));
  std::ifstream html(dir / "report.html");
  const std::string page((std::istreambuf_iterator<char>(html)), {});
  CHECK(page.find("What each language gets from the vocabulary") != std::string::npos);
}

TEST_CASE("compare --allocation writes the same tables at every thread count",
          "[study][allocation][compare]") {
  const CompareResult one = run_compare(test::experiments_registry(), parallel_run(1));
  const CompareResult three = run_compare(test::experiments_registry(), parallel_run(3));
  CHECK(csv_of(allocation_table(one)) == csv_of(allocation_table(three)));
  CHECK(csv_of(allocation_pruning_table(one)) == csv_of(allocation_pruning_table(three)));
  CHECK(csv_of(allocation_entries_table(one)) == csv_of(allocation_entries_table(three)));
}

TEST_CASE("allocation sizes without --allocation, or a size of 0, fail before any training",
          "[study][allocation][compare]") {
  CompareOptions o = parallel_run(1);
  o.allocation = false;
  o.allocation_sizes = {64};
  CHECK_THROWS_WITH(run_compare(test::experiments_registry(), o),
                    Catch::Contains("give --allocation with them"));
  o.allocation = true;
  o.allocation_sizes = {0};
  CHECK_THROWS_WITH(run_compare(test::experiments_registry(), o), Catch::Contains("at least 1"));
  o.allocation_sizes = {1};  // below the alphabet: the row's allocation says so
  const CompareResult r = run_compare(test::experiments_registry(), o);
  REQUIRE(r.allocations.size() == 1);
  CHECK_THAT(r.allocations.front().error, Catch::Contains("cannot be reached"));
}
