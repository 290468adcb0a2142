// Studies through the command line: every column of a model means the same
// whether it was trained in the run or loaded from its file (issue 26).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

// The cells of the CSV row whose first cell is label.
std::vector<std::string> csv_row(const std::string& csv, const std::string& label) {
  for (const auto& line : split_lines(csv)) {
    const std::vector<std::string> cells = csv_cells(line);
    if (cells.front() == label) return cells;
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

// A model of algorithm trained on the English fixture into dir/name.tkl, with
// extra train options.
std::string train_model(const TempDir& dir, const std::string& algorithm, const std::string& name,
                        const std::string& vocab_size, const std::vector<std::string>& extra = {}) {
  const std::string model = dir / (name + ".tkl");
  std::vector<std::string> args = {
      "train", "-a", algorithm, "-v", vocab_size, "--corpus", data_file("corpus/english.txt"),
      "-o",    model};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult trained = run_tokenlab(args);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  return model;
}

std::string train_bpe(const TempDir& dir, const std::string& name, const std::string& vocab_size,
                      const std::vector<std::string>& extra = {}) {
  return train_model(dir, "bpe", name, vocab_size, extra);
}

// Text the fixture's models never saw: the parallel English text, then a line of
// emoji, accented, Greek and CJK letters.
std::string write_unseen_eval(const TempDir& dir) {
  const std::string eval = dir / "eval.txt";
  write_bytes(eval, read_bytes(data_file("experiments/parallel/en.txt")) +
                        "Hello \xF0\x9F\x99\x82 world \xE2\x98\x95 na\xC3\xAFve \xCE\xA9mega "
                        "\xE6\xBC\xA2\xE5\xAD\x97\n");
  return eval;
}

// The columns that may differ between two rows of one model: the label, the
// timings, and the note that names where the row came from.
bool measures_the_model(const std::string& column) {
  return column != "segmenter" && column != "train s" && column != "peak MiB" &&
         column != "enc MB/s" && column != "note";
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
  const std::string eval = write_unseen_eval(dir);
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
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (!measures_the_model(header[i])) continue;
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
    "every column of a trained model is identical whether it was trained in the run, loaded "
    "from its .tkl, or loaded from its exported tokenizer.json",
    "[cli][study]") {
  // On text with characters the models never saw, emoji among them: byte pieces
  // (bpe, unigram) and unknown tokens (wordpiece) are where a model and its
  // export could part. The default pre-tokenizer (unicode) has no tokenizer.json
  // equivalent, so the run and the models use whitespace, which has.
  TempDir dir;
  const std::string training = data_file("corpus/english.txt");
  const std::string eval = write_unseen_eval(dir);
  const std::vector<std::string> algorithms = {"bpe", "unigram", "wordpiece"};
  std::vector<std::string> args = {"compare",
                                   "--corpus",
                                   training,
                                   "--eval",
                                   eval,
                                   "--algorithms",
                                   "bpe,unigram,wordpiece",
                                   "-v",
                                   "400",
                                   "--pre-tokenizer",
                                   "whitespace",
                                   "--report-dir",
                                   dir / "reports"};
  for (const auto& algorithm : algorithms) {
    const std::string model =
        train_model(dir, algorithm, algorithm, "400", {"--pre-tokenizer", "whitespace"});
    const std::string json = dir / (algorithm + ".json");
    const RunResult exported =
        run_tokenlab({"export", "-m", model, "--format", "tokenizer.json", "-o", json});
    INFO(exported.err);
    REQUIRE(exported.exit_code == 0);
    for (const std::string& entry : {algorithm + " tkl=" + model, algorithm + " json=" + json}) {
      args.push_back("--model");
      args.push_back(entry);
    }
  }
  const RunResult r = run_tokenlab(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string csv = read_bytes(std::filesystem::path(dir / "reports") / "compare.csv");
  const auto header = csv_row(csv, "segmenter");
  for (const auto& algorithm : algorithms) {
    const auto in_run = csv_row(csv, algorithm);
    REQUIRE(in_run.size() == header.size());
    for (const std::string& loaded_from : {algorithm + " tkl", algorithm + " json"}) {
      const auto loaded = csv_row(csv, loaded_from);
      REQUIRE(loaded.size() == header.size());
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (!measures_the_model(header[i])) continue;
        INFO(loaded_from << ": " << header[i]);
        CHECK(loaded[i] == in_run[i]);
      }
    }
  }
  // The unseen characters were met: as byte pieces, or as unknown tokens.
  CHECK(std::stod(csv_row(csv, "bpe").at(column(csv, "byte fb%"))) > 0.0);
  CHECK(std::stod(csv_row(csv, "unigram").at(column(csv, "byte fb%"))) > 0.0);
  CHECK(std::stod(csv_row(csv, "wordpiece").at(column(csv, "unk chr%"))) > 0.0);
}

TEST_CASE(
    "a tokenizer.json that tokenlab did not export is refused by --model, naming the file and "
    "--tokenizer",
    "[cli][study]") {
  TempDir dir;
  const std::string eval = write_unseen_eval(dir);
  // HF's shape, but a pipeline tokenlab has no settings for (Lowercase alone,
  // Whitespace): it can only be run on whole lines, as --tokenizer runs it.
  const std::string json = dir / "tokenizer.json";
  write_bytes(json, R"({"version":"1.0","truncation":null,"padding":null,
"added_tokens":[{"id":0,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,
"normalized":false,"special":true}],
"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},
"post_processor":null,"decoder":null,
"model":{"type":"WordLevel","vocab":{"[UNK]":0,"the":1,"river":2},"unk_token":"[UNK]"}})");
  const RunResult refused =
      run_tokenlab({"compare", "--eval", eval, "--algorithms", "none", "--model", "hf=" + json});
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err,
             Catch::Contains("--model hf: " + json) && Catch::Contains("--tokenizer hf=" + json));
  const RunResult as_tokenizer = run_tokenlab(
      {"compare", "--eval", eval, "--algorithms", "none", "--tokenizer", "hf=" + json});
  INFO(as_tokenizer.err);
  CHECK(as_tokenizer.exit_code == 0);
  // An exported tokenizer.json whose post-processor was added is no longer what
  // export wrote: the member is named.
  const std::string model = train_bpe(dir, "mine", "300", {"--pre-tokenizer", "whitespace"});
  const std::string exported = dir / "mine.json";
  REQUIRE(run_tokenlab({"export", "-m", model, "--format", "tokenizer.json", "-o", exported})
              .exit_code == 0);
  std::string text = read_bytes(exported);
  const auto at = text.find("\"post_processor\": null");
  REQUIRE(at != std::string::npos);
  text.replace(at, std::string("\"post_processor\": null").size(),
               R"("post_processor": {"type": "ByteLevel", "add_prefix_space": false, )"
               R"("trim_offsets": true, "use_regex": false})");
  write_bytes(exported, text);
  const RunResult edited = run_tokenlab({"compare", "--eval", eval, "--pre-tokenizer", "whitespace",
                                         "--algorithms", "none", "--model", "mine=" + exported});
  CHECK(edited.exit_code == 2);
  CHECK_THAT(edited.err, Catch::Contains("\"post_processor\"") &&
                             Catch::Contains("--tokenizer mine=" + exported));
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

TEST_CASE("compare and sweep say before training which models tokenizer.json cannot hold",
          "[cli][study]") {
  const std::string corpus = data_file("corpus/english.txt");
  SECTION("every default exports: no warning") {
    const RunResult r =
        run_tokenlab({"compare", "--corpus", corpus, "--algorithms", "character", "-v", "100"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, !Catch::Contains("tokenizer.json"));
  }
  SECTION("a pre-tokenizer HF has no equivalent of: export's own reason, once for all") {
    const RunResult r =
        run_tokenlab({"compare", "--corpus", corpus, "--algorithms", "character,word", "-v", "100",
                      "--pre-tokenizer", "icu-words"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("warning: character, word: the trained model cannot be "
                                      "exported as tokenizer.json: --pre-tokenizer icu-words") &&
                          Catch::Contains("nearest exportable choice"));
  }
  SECTION("sweep: a byte-level BPE needs a regex preset") {
    const RunResult r = run_tokenlab({"sweep", "--corpus", corpus, "--algorithms", "bpe,character",
                                      "--vocab-sizes", "300", "--option", "bpe:units=bytes"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("warning: bpe: the trained model cannot be exported") &&
                          Catch::Contains("byte-level BPE") && !Catch::Contains("character:"));
  }
}

TEST_CASE("compare --allocation writes the same files whatever --threads, and refuses bad sizes",
          "[cli][study][allocation]") {
  TempDir dir;
  const std::string training = data_file("corpus/english.txt");
  const std::string parallel = data_file("experiments/parallel");
  const auto run = [&](const std::string& threads, const std::string& reports) {
    return run_tokenlab({"compare", "--corpus", training, "--eval-parallel", parallel,
                         "--algorithms", "bpe,unigram", "-v", "300", "--bootstrap", "0",
                         "--allocation", "--threads", threads, "--report-dir", reports});
  };
  const RunResult one = run("1", dir / "one");
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("What each language gets from the vocabulary"));
  const RunResult two = run("2", dir / "two");
  REQUIRE(two.exit_code == 0);
  for (const char* file : {"allocation-languages.csv", "allocation-pruning.csv",
                           "allocation-entries.csv", "allocation-pruning.md"}) {
    INFO(file);
    const std::string a = read_bytes(std::filesystem::path(dir / "one") / file);
    CHECK_FALSE(a.empty());
    CHECK(a == read_bytes(std::filesystem::path(dir / "two") / file));
  }
  const RunResult without = run_tokenlab({"compare", "--corpus", training, "--algorithms", "bpe",
                                          "-v", "300", "--allocation-sizes", "200"});
  CHECK(without.exit_code != 0);
  CHECK_THAT(without.err, Catch::Contains("give --allocation with them"));
  const RunResult zero = run_tokenlab({"compare", "--corpus", training, "--algorithms", "bpe", "-v",
                                       "300", "--allocation", "--allocation-sizes", "0"});
  CHECK(zero.exit_code != 0);
  CHECK_THAT(zero.err, Catch::Contains("allocation-sizes"));
  CHECK_FALSE(std::filesystem::exists(dir / "zero"));
}
