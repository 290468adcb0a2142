// The CLI contract on small fixture corpora, with golden outputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

const std::string kEnglish = data_file("corpus/english.txt");
const std::string kSmall = data_file("corpus/count_small.txt");

bool has_line_starting_with(const std::vector<std::string>& lines, const std::string& prefix) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

// Trains a model and fails the test (with the CLI's stderr) if that does not work.
std::string train(const TempDir& dir, const std::string& algorithm, const std::string& vocab_size,
                  std::vector<std::string> extra = {}) {
  const std::string model = dir / (algorithm + ".tkl");
  std::vector<std::string> args{"train",    "--algorithm", algorithm, "--vocab-size", vocab_size,
                                "--corpus", kEnglish,      "-o",      model};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_tokenlab(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return model;
}

}  // namespace

TEST_CASE("tokenlab plugins lists the character and word plugins with their files", "[cli]") {
  const RunResult r = run_tokenlab({"plugins"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = r.out_lines();
  REQUIRE(lines.size() >= 4);  // header, rule, two plugins at least
  CHECK_THAT(lines[0],
             Catch::StartsWith("name") && Catch::Contains("version") && Catch::Contains("file"));
  CHECK(has_line_starting_with(lines, "character "));
  CHECK(has_line_starting_with(lines, "word "));
  CHECK_THAT(r.out, Catch::Contains("character.so") && Catch::Contains("word.so"));
}

TEST_CASE("tokenlab count writes the golden TSV whatever the thread count", "[cli][count]") {
  TempDir dir;
  const std::string golden = read_bytes(data_file("golden/count_small.tsv"));
  const std::string threads = GENERATE(as<std::string>{}, "1", "2", "4");
  const RunResult r =
      run_tokenlab({"count", "--corpus", kSmall, "--threads", threads, "-o", dir / "counts.tsv"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_bytes(dir / "counts.tsv") == golden);
  CHECK_THAT(r.err, Catch::Contains("24 distinct words") && Catch::Contains("30 occurrences"));
  CHECK(dir.entries() == std::vector<std::string>{"counts.tsv"});

  SECTION("the corpus may also come from stdin") {
    const RunResult s =
        run_tokenlab({"count", "--corpus", "-", "-o", dir / "stdin.tsv"}, read_bytes(kSmall));
    INFO(s.err);
    REQUIRE(s.exit_code == 0);
    CHECK(read_bytes(dir / "stdin.tsv") == golden);
  }
}

TEST_CASE("count --max-memory writes the same TSV as counting in memory", "[cli][count]") {
  TempDir dir;
  const RunResult in_memory = run_tokenlab({"count", "--corpus", kEnglish, "-o", dir / "a.tsv"});
  REQUIRE(in_memory.exit_code == 0);
  const RunResult spilled = run_tokenlab({"count", "--corpus", kEnglish, "--max-memory", "1M",
                                          "--spill-dir", dir.path().string(), "-o", dir / "b.tsv"});
  INFO(spilled.err);
  REQUIRE(spilled.exit_code == 0);
  CHECK(read_bytes(dir / "b.tsv") == read_bytes(dir / "a.tsv"));
  const RunResult merged = run_tokenlab({"count", "--merge", dir / "a.tsv", dir / "b.tsv",
                                         "--max-memory", "1M", "-o", dir / "c.tsv"});
  INFO(merged.err);
  REQUIRE(merged.exit_code == 0);
  SECTION("a bad size is a usage error, and a missing spill directory an error; no output") {
    const RunResult bad =
        run_tokenlab({"count", "--corpus", kEnglish, "--max-memory", "lots", "-o", dir / "x.tsv"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--max-memory") && Catch::Contains("not a number"));
    const RunResult small =
        run_tokenlab({"count", "--corpus", kEnglish, "--max-memory", "4K", "-o", dir / "x.tsv"});
    CHECK(small.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "x.tsv"));
  }
}

TEST_CASE("train --counts refuses counts made with another pipeline, naming both", "[cli][count]") {
  TempDir dir;
  const std::string counts = dir / "whitespace.tsv";
  REQUIRE(run_tokenlab({"count", "--corpus", kSmall, "--pre-tokenizer", "whitespace", "-o", counts})
              .exit_code == 0);
  const RunResult r =
      run_tokenlab({"train", "-a", "bpe", "-v", "40", "--counts", counts, "-o", dir / "m.tkl"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err,
             Catch::Contains("counted with normalizer=nfc pre-tokenizer=whitespace/prefix") &&
                 Catch::Contains("train was given normalizer=nfc pre-tokenizer=unicode/prefix"));
  CHECK_FALSE(std::filesystem::exists(dir / "m.tkl"));
  const RunResult same = run_tokenlab({"train", "-a", "bpe", "-v", "40", "--counts", counts,
                                       "--pre-tokenizer", "whitespace", "-o", dir / "m.tkl"});
  INFO(same.err);
  CHECK(same.exit_code == 0);

  SECTION("a file that records nothing trains, with a note") {
    const std::string old = dir / "old.tsv";
    std::ofstream(old) << "\u2581The\t2\n\u2581cat\t2\n";
    const RunResult o =
        run_tokenlab({"train", "-a", "bpe", "-v", "20", "--counts", old, "-o", dir / "old.tkl"});
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("records no settings"));
  }
  SECTION("count --merge refuses shards counted differently") {
    const std::string unicode = dir / "unicode.tsv";
    REQUIRE(run_tokenlab({"count", "--corpus", kSmall, "-o", unicode}).exit_code == 0);
    const RunResult m =
        run_tokenlab({"count", "--merge", unicode, counts, "-o", dir / "merged.tsv"});
    CHECK(m.exit_code == 1);
    CHECK_THAT(m.err, Catch::Contains("cannot be added"));
    CHECK_FALSE(std::filesystem::exists(dir / "merged.tsv"));
  }
}

TEST_CASE("counts of consecutive shards merge into the counts of the whole corpus",
          "[cli][count]") {
  TempDir dir;
  // Split the English fixture into two consecutive shards, as two machines would.
  const std::string text = read_bytes(kEnglish);
  std::size_t cut = text.find('\n', text.size() / 2) + 1;
  write_bytes(dir / "part1.txt", text.substr(0, cut));
  write_bytes(dir / "part2.txt", text.substr(cut));
  for (const char* part : {"part1", "part2"}) {
    const RunResult r = run_tokenlab({"count", "--corpus", dir / (std::string(part) + ".txt"), "-o",
                                      dir / (std::string(part) + ".tsv")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const RunResult merged = run_tokenlab(
      {"count", "--merge", dir / "part1.tsv", dir / "part2.tsv", "-o", dir / "merged.tsv"});
  INFO(merged.err);
  REQUIRE(merged.exit_code == 0);
  const RunResult whole = run_tokenlab({"count", "--corpus", kEnglish, "-o", dir / "whole.tsv"});
  REQUIRE(whole.exit_code == 0);
  // Same words, same counts, and the same first-occurrence order.
  CHECK(read_bytes(dir / "merged.tsv") == read_bytes(dir / "whole.tsv"));

  SECTION("giving both a corpus and counts to merge is a usage error") {
    const RunResult both = run_tokenlab(
        {"count", "--corpus", kEnglish, "--merge", dir / "part1.tsv", "-o", dir / "x.tsv"});
    CHECK(both.exit_code == 2);
  }
}

TEST_CASE("nbest shows each word's best segmentations, best first", "[cli][nbest]") {
  TempDir dir;
  const std::string model = train(dir, "unigram", "400");
  const RunResult r = run_tokenlab({"nbest", "-m", model, "-k", "3", "the garden"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = r.out_lines();
  REQUIRE(lines.size() >= 4);
  CHECK(lines[0] == "\u2581the");
  std::vector<double> scores;
  for (std::size_t i = 1; i < lines.size() && lines[i].rfind("  ", 0) == 0; ++i)
    scores.push_back(std::stod(lines[i]));
  CHECK(!scores.empty());
  CHECK(scores.size() <= 3);
  CHECK(std::is_sorted(scores.rbegin(), scores.rend()));  // best (highest log probability) first

  SECTION("a segmenter without n-best says so") {
    const std::string word_model = train(dir, "word", "100");
    const RunResult w = run_tokenlab({"nbest", "-m", word_model, "the"});
    CHECK(w.exit_code == 1);
    CHECK_THAT(w.err, Catch::StartsWith("error:") && Catch::Contains("n-best"));
  }
}

TEST_CASE("train, encode and decode round-trip the training text", "[cli][train]") {
  TempDir dir;
  const auto [algorithm, vocab_size] = GENERATE(table<std::string, std::string>({
      {"character", "200"},
      {"word", "5000"},
  }));
  INFO(algorithm);
  const std::string model = train(dir, algorithm, vocab_size, {"--character-coverage", "1"});

  const RunResult encoded = run_tokenlab({"encode", "-m", model, "--input", kEnglish});
  INFO(encoded.err);
  REQUIRE(encoded.exit_code == 0);
  const auto id_lines = encoded.out_lines();
  const auto text_lines = split_lines(read_bytes(kEnglish));
  REQUIRE(id_lines.size() == text_lines.size());
  CHECK(std::none_of(id_lines.begin(), id_lines.end(),
                     [](const std::string& l) { return l.empty(); }));

  const RunResult decoded = run_tokenlab({"decode", "-m", model}, encoded.out);
  INFO(decoded.err);
  REQUIRE(decoded.exit_code == 0);
  CHECK(decoded.out_lines() == text_lines);

  SECTION("training from counts gives a byte-identical model") {
    REQUIRE(run_tokenlab({"count", "--corpus", kEnglish, "-o", dir / "english.tsv"}).exit_code ==
            0);
    const std::string from_counts = dir / "from_counts.tkl";
    const RunResult r =
        run_tokenlab({"train", "-a", algorithm, "-v", vocab_size, "--character-coverage", "1",
                      "--counts", dir / "english.tsv", "-o", from_counts});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(read_bytes(from_counts) == read_bytes(model));
  }
  SECTION("training is deterministic across thread counts") {
    const std::string again = dir / "again.tkl";
    const RunResult r =
        run_tokenlab({"train", "-a", algorithm, "-v", vocab_size, "--character-coverage", "1",
                      "--corpus", kEnglish, "--threads", "1", "-o", again});
    REQUIRE(r.exit_code == 0);
    CHECK(read_bytes(again) == read_bytes(model));
  }
}

TEST_CASE("encode --pieces prints the pieces, markers included", "[cli][encode]") {
  TempDir dir;
  const std::string input = "The river town\nHe said, \"What is it?\"\n";
  SECTION("word pieces are whole words, unknown ones shown as the unknown token") {
    const std::string model = train(dir, "word", "5000");
    const RunResult r = run_tokenlab({"encode", "-m", model, "--pieces"}, input + "The zyzzyva\n");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out_lines() ==
          std::vector<std::string>{"\u2581The \u2581river \u2581town",
                                   "\u2581He \u2581said , \u2581\" What \u2581is \u2581it ?\"",
                                   "\u2581The <unk>"});
  }
  SECTION("character pieces are code points, the marker a piece of its own") {
    const std::string model = train(dir, "character", "200");
    const RunResult r = run_tokenlab({"encode", "-m", model, "--pieces"}, "He said, \"no.\"\n");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "\u2581 H e \u2581 s a i d , \u2581 \" n o . \"\n");
  }
  SECTION("ids and pieces agree: one id per piece on every line") {
    const std::string model = train(dir, "word", "5000");
    const RunResult ids = run_tokenlab({"encode", "-m", model}, input);
    const RunResult pieces = run_tokenlab({"encode", "-m", model, "--pieces"}, input);
    REQUIRE(ids.exit_code == 0);
    REQUIRE(pieces.exit_code == 0);
    const auto id_lines = ids.out_lines();
    const auto piece_lines = pieces.out_lines();
    REQUIRE(id_lines.size() == piece_lines.size());
    for (std::size_t i = 0; i < id_lines.size(); ++i)
      CHECK(std::count(id_lines[i].begin(), id_lines[i].end(), ' ') ==
            std::count(piece_lines[i].begin(), piece_lines[i].end(), ' '));
  }
}

TEST_CASE("compare writes CSV, JSON and Markdown reports with the golden CSV header",
          "[cli][compare]") {
  TempDir dir;
  const std::string reports = dir / "reports";
  const RunResult r =
      run_tokenlab({"compare", "--corpus", kEnglish, "--algorithms", "character,word",
                    "--vocab-size", "300", "--held-out", "0.2", "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has_line_starting_with(r.out_lines(), "character "));
  CHECK(has_line_starting_with(r.out_lines(), "word "));

  const auto csv = split_lines(read_bytes(reports + "/compare.csv"));
  REQUIRE(csv.size() == 3);
  CHECK(csv[0] == split_lines(read_bytes(data_file("golden/compare_header.csv")))[0]);
  CHECK_THAT(csv[1], Catch::StartsWith("character,"));
  CHECK_THAT(csv[2], Catch::StartsWith("word,"));

  const std::string json = read_bytes(reports + "/compare.json");
  CHECK_THAT(json, Catch::Contains("\"segmenter\": \"character\"") &&
                       Catch::Contains("\"segmenter\": \"word\""));
  CHECK_THAT(json, Catch::Contains("\"held-out fraction\": \"0.200"));

  const std::string md = read_bytes(reports + "/compare.md");
  CHECK_THAT(md, Catch::Contains("| character |") && Catch::Contains("| word |"));
  const std::vector<std::string> files = TempDir::entries_of(reports);
  for (const std::string name : {"compare.csv", "compare.json", "compare.md"})
    CHECK(std::find(files.begin(), files.end(), name) != files.end());
  CHECK(std::none_of(files.begin(), files.end(),
                     [](const std::string& f) { return f.find(".tmp") != std::string::npos; }));
}

TEST_CASE("compare --counts trains from counts made elsewhere and evaluates every line of --corpus",
          "[cli][compare][count]") {
  TempDir dir;
  const std::string counts = dir / "en.tsv";
  REQUIRE(run_tokenlab({"count", "--corpus", data_file("corpus/pair.en.txt"), "-o", counts})
              .exit_code == 0);
  const std::string reports = dir / "reports";
  const RunResult r =
      run_tokenlab({"compare", "--counts", counts, "--corpus", kEnglish, "--algorithms", "bpe,word",
                    "--vocab-size", "300", "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has_line_starting_with(r.out_lines(), "bpe "));
  CHECK(has_line_starting_with(r.out_lines(), "word "));
  const std::string json = read_bytes(reports + "/compare.json");
  CHECK_THAT(json, Catch::Contains(counts));
  // Every line of the corpus is evaluated: its held-out lines are all its non-empty lines.
  std::size_t lines = 0;
  for (const auto& line : split_lines(read_bytes(kEnglish))) lines += line.empty() ? 0 : 1;
  CHECK_THAT(json,
             Catch::Contains("(training / held out)\": \"0 / " + std::to_string(lines) + "\""));
  CHECK_THAT(json, Catch::Contains("training from counts"));

  SECTION("counts made another way are refused, naming both settings") {
    const std::string lower = dir / "lower.tsv";
    REQUIRE(run_tokenlab({"count", "--corpus", kSmall, "--lowercase", "-o", lower}).exit_code == 0);
    const RunResult bad =
        run_tokenlab({"compare", "--counts", lower, "--corpus", kEnglish, "--algorithms", "word"});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("counted with normalizer=nfc+lowercase"));
  }
  SECTION("without --corpus there is nothing to evaluate: a usage error") {
    const RunResult bad = run_tokenlab({"compare", "--counts", counts, "--algorithms", "word"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--counts needs the text to evaluate the tokenizers on"));
  }
}

TEST_CASE("check-plugin runs the conformance suite on a plugin file", "[cli][check-plugin]") {
  const std::string plugin = std::string(TOKENLAB_TEST_PLUGIN_DIR) + "/character.so";
  const RunResult r = run_tokenlab({"check-plugin", plugin});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("plugin character "));
  CHECK_THAT(r.out, Catch::Contains(" 0 failed"));
  CHECK_THAT(r.out, Catch::Contains("PASS") && !Catch::Contains("FAIL"));
}

TEST_CASE("every subcommand has --help and the tool has --version", "[cli]") {
  const std::string command = GENERATE(as<std::string>{}, "plugins", "count", "train", "encode",
                                       "decode", "compare", "check-plugin");
  const RunResult r = run_tokenlab({command, "--help"});
  INFO(command);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("usage: tokenlab " + command));
  const RunResult v = run_tokenlab({"--version"});
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::StartsWith("tokenlab "));
}

TEST_CASE(
    "Hindi text round-trips through a character model, English through a word model of the pair",
    "[cli][train]") {
  TempDir dir;
  const auto [algorithm, corpus] = GENERATE(table<std::string, std::string>({
      {"character", data_file("corpus/pair.hi.txt")},
      {"word", data_file("corpus/pair.en.txt")},
  }));
  INFO(algorithm << " on " << corpus);
  const std::string model = dir / "pair.tkl";
  const RunResult trained =
      run_tokenlab({"train", "-a", algorithm, "-v", "1000", "--character-coverage", "1", "--corpus",
                    corpus, "-o", model});
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const RunResult encoded = run_tokenlab({"encode", "-m", model, "--input", corpus});
  REQUIRE(encoded.exit_code == 0);
  const RunResult decoded = run_tokenlab({"decode", "-m", model}, encoded.out);
  REQUIRE(decoded.exit_code == 0);
  CHECK(decoded.out_lines() == split_lines(read_bytes(corpus)));
}

namespace {

// Splits one line of compare.csv (its cells hold no quoted commas but the note).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (const char c : line) {
    if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

}  // namespace

TEST_CASE("compare counts a literal U+2581 in the held-out text as an unknown character",
          "[cli][compare]") {
  // U+2581 is the boundary marker's own character: every tokenizer decodes it as a
  // space, as SentencePiece does, so compare reports it as lost.
  TempDir dir;
  std::string corpus;
  for (int i = 0; i < 200; ++i) corpus += "line " + std::to_string(i) + " has x\u2581y\n";
  write_bytes(dir / "corpus.txt", corpus);
  const auto r =
      run_tokenlab({"compare", "--corpus", dir / "corpus.txt", "--algorithms", "character",
                    "--vocab-size", "100", "--held-out", "0.5", "--report-dir", dir / "out"});
  REQUIRE(r.exit_code == 0);
  const auto csv = split_lines(read_bytes(dir / "out" / "compare.csv"));
  REQUIRE(csv.size() >= 2);
  const auto header = split_csv(csv[0]);
  const auto row = split_csv(csv[1]);
  const auto column = std::find(header.begin(), header.end(), "unk chr%") - header.begin();
  REQUIRE(static_cast<std::size_t>(column) < row.size());
  CHECK(std::stod(row[static_cast<std::size_t>(column)]) > 0.0);
}

TEST_CASE("trace --encode names the characters a vocabulary without an unknown token drops",
          "[cli][trace]") {
  const RunResult r =
      run_tokenlab({"trace", "--algorithm", "bpe", "--words", "low:5 lower:2 newest:6 widest:3",
                    "--merges", "5", "--encode", "fastest", "lowest"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // f and a never occur in the corpus: BPE (as HF's without unk_token) drops them.
  CHECK(r.out.find("fastest -> ▁ + s + t + est   (dropped, not in the vocabulary and no unknown "
                   "token: f a)\n") != std::string::npos);
  CHECK(r.out.find("lowest -> ▁low + est\n") != std::string::npos);
  // With an unknown token they show as it, and nothing is said.
  const RunResult with_unknown =
      run_tokenlab({"trace", "--algorithm", "bpe", "--words", "low:5 lower:2 newest:6 widest:3",
                    "--merges", "5", "--special-tokens", "<unk>", "--encode", "fastest"});
  REQUIRE(with_unknown.exit_code == 0);
  CHECK(with_unknown.out.find("dropped") == std::string::npos);
}
