// tokenlab grade on the submissions tests/grade/CMakeLists.txt builds: the reference
// solutions score full marks, the templates and each broken variant lose exactly
// the points they should, with the reason for each; the grade is the same every
// time, and as JSON the same numbers.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace {

using tokenlab::test::run_tokenlab;
using tokenlab::test::RunResult;
using tokenlab::test::TempDir;

const std::string kGradeDir = TOKENLAB_GRADE_DIR;

std::string submission(const std::string& assignment, const std::string& variant) {
  const std::string plugin = assignment == "bpe-training" ? "my_bpe" : "my_segmenter";
  return kGradeDir + "/" + assignment + "/" + variant + "/" + plugin + ".so";
}

RunResult grade(const std::string& assignment, const std::string& variant, bool json = false) {
  std::vector<std::string> args{"grade", assignment, submission(assignment, variant)};
  if (json) args.push_back("--json");
  return run_tokenlab(args);
}

// "  16/16  textbook-merges: ..." -> the item's line, or "" when it is missing.
std::string item_line(const std::string& out, const std::string& id) {
  for (const auto& line : tokenlab::test::split_lines(out)) {
    const auto at = line.find("  " + id + ": ");
    if (at != std::string::npos && line.find('/') < at) return line;
  }
  return {};
}

struct Expected {
  std::string variant;
  int score;
  std::vector<std::pair<std::string, std::string>> items;  // id, "score/max"
  std::vector<std::string> reasons;                        // each in some "-N  reason" line
};

void check_grade(const std::string& assignment, const Expected& e) {
  const RunResult r = grade(assignment, e.variant);
  INFO(assignment << " " << e.variant << ":\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith("score " + std::to_string(e.score) + "/100\n"));
  for (const auto& [id, points] : e.items)
    CHECK_THAT(item_line(r.out, id),
               Catch::StartsWith(std::string(6 - points.size(), ' ') + points));
  for (const auto& reason : e.reasons) CHECK_THAT(r.out, Catch::Contains(reason));
}

// The expected grades, one row per variant (variant, score, items, reasons).
const std::vector<Expected> kBpeTraining = {
#include "bpe_training_expected.inc"
};
const std::vector<Expected> kNewSegmenter = {
#include "new_segmenter_expected.inc"
};

}  // namespace

TEST_CASE("grade bpe-training: the reference solution, the template and each broken variant",
          "[grade][bpe-training]") {
  const Expected e = GENERATE(from_range(kBpeTraining));
  check_grade("bpe-training", e);
}

TEST_CASE("grade new-segmenter: the reference solution, the template and each broken variant",
          "[grade][new-segmenter]") {
  const Expected e = GENERATE(from_range(kNewSegmenter));
  check_grade("new-segmenter", e);
}

TEST_CASE("grade prints the same grade every time, and the same numbers as JSON", "[grade][json]") {
  const RunResult first = grade("bpe-training", "tie_last");
  const RunResult second = grade("bpe-training", "tie_last");
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == second.out);
  const RunResult json = grade("bpe-training", "tie_last", true);
  REQUIRE(json.exit_code == 0);
  const std::string last = tokenlab::test::split_lines(first.out).back();  // "score N/100"
  const std::string score = last.substr(6, last.find('/') - 6);
  CHECK_THAT(json.out,
             Catch::StartsWith("{\"assignment\": \"bpe-training\", \"plugin\": \"my_bpe\""));
  CHECK_THAT(json.out, Catch::Contains("\"score\": " + score + ", \"max\": 100, \"items\": ["));
  CHECK_THAT(json.out, Catch::Contains("{\"id\": \"textbook-merges\""));
  CHECK_THAT(json.out, Catch::EndsWith("\n]}\n"));
}

TEST_CASE(
    "grade gives 0 with the reason when the file is not a plugin, and refuses an unknown "
    "assignment",
    "[grade]") {
  TempDir dir;
  const std::string file = dir / "my_bpe.so";
  std::ofstream(file) << "not a shared library\n";
  const RunResult r = run_tokenlab({"grade", "bpe-training", file});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith("score 0/100\n"));
  CHECK_THAT(r.out, Catch::Contains("-20  the plugin did not load: "));
  const RunResult bad = run_tokenlab({"grade", "bpe-trainin", file});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("unknown assignment 'bpe-trainin' (the assignments: "
                                      "bpe-training, new-segmenter)"));
}
