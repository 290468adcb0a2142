// Studies through the command line: every column of a model means the same
// whether it was trained in the run or loaded from its file (issue 26).
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

// The cells of the CSV row whose first cell is label.
std::vector<std::string> csv_row(const std::string& csv, const std::string& label) {
  for (const auto& line : split_lines(csv)) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!cells.empty() && cells.front() == label) return cells;
  }
  FAIL("no row " << label << " in\n" << csv);
  return {};
}

std::size_t column(const std::string& csv, const std::string& name) {
  const auto header = csv_row(csv, "segmenter");
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

// A BPE trained on the English fixture into dir/name.tkl, with extra train options.
std::string train_bpe(const TempDir& dir, const std::string& name, const std::string& vocab_size,
                      const std::vector<std::string>& extra = {}) {
  const std::string model = dir / (name + ".tkl");
  std::vector<std::string> args = {
      "train", "-a", "bpe", "-v", vocab_size, "--corpus", data_file("corpus/english.txt"),
      "-o",    model};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult trained = run_tokenlab(args);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  return model;
}

}  // namespace

TEST_CASE("a trained model loaded from its .tkl reports its byte-fallback tokens", "[cli][study]") {
  // compare --tokenizer mybpe=bpe.tkl printed byte fb% 0.000 on text with emoji:
  // a trained model's TextEncoder named no byte pieces.
  TempDir dir;
  const std::string model = train_bpe(dir, "bpe", "600", {"--option", "byte_fallback=true"});
  // Text the model never saw: every tenth line has emoji, so the held-out lines do.
  std::string text = read_bytes(data_file("corpus/english.txt"));
  std::string with_emoji;
  std::size_t number = 0;
  for (const auto& line : split_lines(text))
    with_emoji += line + (++number % 10 == 0 ? " \xF0\x9F\x99\x82 \xE2\x98\x95" : "") + "\n";
  const std::string corpus = dir / "emoji.txt";
  write_bytes(corpus, with_emoji);
  const std::string reports = dir / "reports";
  const RunResult compared =
      run_tokenlab({"compare", "--corpus", corpus, "--algorithms", "character", "-v", "600",
                    "--tokenizer", "mybpe=" + model, "--report-dir", reports});
  INFO(compared.err);
  REQUIRE(compared.exit_code == 0);
  const std::string csv = read_bytes(std::filesystem::path(reports) / "compare.csv");
  const std::size_t fallback = column(csv, "byte fb%");
  CHECK(std::stod(csv_row(csv, "mybpe (pretrained)").at(fallback)) > 0.0);
}

TEST_CASE("sweep shows every --d-model width, in either list syntax, and names the caps",
          "[cli][study]") {
  // --d-model 768 4096 showed only 768; --d-model 768,4096 was an error.
  for (const std::vector<std::string>& widths :
       {std::vector<std::string>{"768", "4096"}, std::vector<std::string>{"768,4096"}}) {
    std::vector<std::string> args = {"sweep",         "--corpus", data_file("corpus/english.txt"),
                                     "--vocab-sizes", "200,400",  "--algorithms",
                                     "character",     "--d-model"};
    args.insert(args.end(), widths.begin(), widths.end());
    const RunResult r = run_tokenlab(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("emb768 M") && Catch::Contains("emb4096 M"));
    // The character model cannot reach 200 entries on this text: said in words.
    CHECK_THAT(r.out, Catch::Contains("character at 200: the corpus supports only"));
  }
}

TEST_CASE("two corpora that are not aligned get no premium, and the table says why",
          "[cli][study]") {
  const std::string dir = data_file("experiments/parallel");
  const RunResult r =
      run_tokenlab({"compare", "--corpus", "en=" + dir + "/en.txt", "--corpus",
                    "de=" + dir + "/de.txt", "--algorithms", "character", "-v", "100"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("premium") &&
                        Catch::Contains("not line-aligned translations") &&
                        Catch::Contains("--parallel"));
  const RunResult aligned =
      run_tokenlab({"compare", "--parallel", dir, "--algorithms", "character", "-v", "100"});
  INFO(aligned.err);
  REQUIRE(aligned.exit_code == 0);
  CHECK_THAT(aligned.out, !Catch::Contains("not line-aligned"));
}

TEST_CASE("train on one text and evaluate on every line of another, parallel or not",
          "[cli][study]") {
  // The most common study design had no supported path (issue 26).
  TempDir dir;
  const std::string parallel = data_file("experiments/parallel");
  const std::string training = data_file("corpus/english.txt");
  const std::size_t eval_lines = split_lines(read_bytes(parallel + "/en.txt")).size();
  const std::string reports = dir / "reports";
  const RunResult r =
      run_tokenlab({"compare", "--corpus", training, "--eval-parallel", parallel, "--algorithms",
                    "bpe,character", "-v", "300", "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string json = read_bytes(std::filesystem::path(reports) / "compare.json");
  // Every aligned line is evaluated, none trained on.
  CHECK_THAT(json, Catch::Contains("\"lines en (training / held out)\": \"0 / " +
                                   std::to_string(eval_lines) + "\""));
  CHECK_THAT(json, Catch::Contains("\"lines de (training / held out)\": \"0 / " +
                                   std::to_string(eval_lines) + "\""));
  const std::string csv = read_bytes(std::filesystem::path(reports) / "fairness.csv");
  CHECK_THAT(csv, Catch::Contains("bpe,de,"));
  CHECK_THAT(r.out, !Catch::Contains("not line-aligned"));  // premiums computed
  // The same with the training text counted first, and with LANG=FILE evaluation.
  const std::string counts = dir / "counts.tsv";
  REQUIRE(run_tokenlab({"count", "--corpus", training, "-o", counts}).exit_code == 0);
  const RunResult from_counts = run_tokenlab({"compare", "--counts", counts, "--parallel", parallel,
                                              "--algorithms", "character", "-v", "300"});
  INFO(from_counts.err);
  CHECK(from_counts.exit_code == 0);
  const RunResult labelled =
      run_tokenlab({"compare", "--corpus", training, "--eval", "en=" + parallel + "/en.txt",
                    "de=" + parallel + "/de.txt", "--algorithms", "character", "-v", "300"});
  INFO(labelled.err);
  CHECK(labelled.exit_code == 0);
  CHECK_THAT(labelled.out, Catch::Contains("not line-aligned"));
  // Without training text, the message says what to give.
  const RunResult missing = run_tokenlab({"compare", "--eval-parallel", parallel});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("--corpus FILE... or --counts"));
}

TEST_CASE(
    "compare --algorithms none evaluates only the given tokenizers, and an empty list is an error",
    "[cli][study]") {
  TempDir dir;
  const std::string model = train_bpe(dir, "bpe", "300");
  const RunResult r = run_tokenlab({"compare", "--corpus", data_file("corpus/english.txt"),
                                    "--algorithms", "none", "--tokenizer", "mine=" + model});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("mine (pretrained)"));
  CHECK_THAT(r.out, !Catch::Contains("\ncharacter "));
  const RunResult nothing = run_tokenlab(
      {"compare", "--corpus", data_file("corpus/english.txt"), "--algorithms", "none"});
  CHECK(nothing.exit_code == 1);
  CHECK_THAT(nothing.err, Catch::Contains("nothing to compare"));
  const RunResult empty =
      run_tokenlab({"compare", "--corpus", data_file("corpus/english.txt"), "--algorithms", ""});
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("--algorithms is empty"));
}

TEST_CASE(
    "a model trained before, given with --model, gets every column a model trained in "
    "the run gets, identical for the same model",
    "[cli][study]") {
  // Passed as --tokenizer it was labelled (pretrained), lost split%, and had byte fb% 0.
  TempDir dir;
  const std::string training = data_file("corpus/english.txt");
  const std::string model = train_bpe(dir, "mine", "600");
  // Evaluation text with characters the model never saw, emoji among them.
  const std::string eval = dir / "eval.txt";
  write_bytes(eval, read_bytes(data_file("experiments/parallel/en.txt")) +
                        "Hello \xF0\x9F\x99\x82 world \xE2\x98\x95 na\xC3\xAFve \xCE\xA9mega\n");
  const std::string reports = dir / "reports";
  const RunResult r =
      run_tokenlab({"compare", "--corpus", training, "--eval", eval, "--algorithms", "bpe", "-v",
                    "600", "--model", "mine=" + model, "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string csv = read_bytes(std::filesystem::path(reports) / "compare.csv");
  const auto in_run = csv_row(csv, "bpe");
  const auto loaded = csv_row(csv, "mine");
  const auto header = csv_row(csv, "segmenter");
  REQUIRE(in_run.size() == header.size());
  REQUIRE(loaded.size() == header.size());
  for (std::size_t i = 1; i < header.size(); ++i) {
    if (header[i] == "train s" || header[i] == "peak MiB" || header[i] == "enc MB/s" ||
        header[i] == "note")
      continue;
    INFO(header[i]);
    CHECK(loaded[i] == in_run[i]);
  }
  CHECK(std::stod(loaded.at(column(csv, "byte fb%"))) > 0.0);
  CHECK(loaded.at(column(csv, "split%")) != "-");
  // A model made with another pre-tokenizer is refused, naming both.
  const std::string other = train_bpe(dir, "other", "600", {"--pre-tokenizer", "whitespace"});
  const RunResult refused =
      run_tokenlab({"compare", "--eval", eval, "--algorithms", "none", "--model", "o=" + other});
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("pre-tokenizer whitespace"));
}

TEST_CASE(
    "compare --algorithms none with --eval-parallel evaluates every line, and parallel "
    "files must align",
    "[cli][study]") {
  TempDir dir;
  const std::string parallel = data_file("experiments/parallel");
  const std::string model = train_bpe(dir, "mine", "300");
  const std::string reports = dir / "reports";
  const RunResult r = run_tokenlab({"compare", "--eval-parallel", parallel, "--algorithms", "none",
                                    "--tokenizer", "mine=" + model, "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::size_t lines = split_lines(read_bytes(parallel + "/en.txt")).size();
  CHECK_THAT(
      read_bytes(std::filesystem::path(reports) / "compare.json"),
      Catch::Contains("\"lines en (training / held out)\": \"0 / " + std::to_string(lines) + "\""));
  const RunResult needless =
      run_tokenlab({"compare", "--corpus", data_file("corpus/english.txt"), "--eval-parallel",
                    parallel, "--algorithms", "none", "--tokenizer", "mine=" + model});
  CHECK(needless.exit_code == 2);
  CHECK_THAT(needless.err, Catch::Contains("trains nothing"));
  // A parallel directory whose files do not align is refused, naming both counts.
  const std::string uneven = dir / "uneven";
  std::filesystem::create_directories(uneven);
  write_bytes(std::filesystem::path(uneven) / "en.txt", read_bytes(parallel + "/en.txt"));
  write_bytes(std::filesystem::path(uneven) / "de.txt",
              read_bytes(parallel + "/de.txt") + "one line more\n");
  const RunResult bad =
      run_tokenlab({"compare", "--parallel", uneven, "--algorithms", "character", "-v", "100"});
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("must align line by line") &&
                          Catch::Contains(std::to_string(lines) + " lines"));
}
