// Bad input on the command line: exit code 2 for usage mistakes, 1 with a single
// "error: ..." line first for everything else, never a crash and never a partial file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

const std::string kEnglish = data_file("corpus/english.txt");

std::string train_word_model(const TempDir& dir) {
  const std::string model = dir / "word.tkl";
  const RunResult r =
      run_tokenlab({"train", "-a", "word", "-v", "1000", "--corpus", kEnglish, "-o", model});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return model;
}

}  // namespace

TEST_CASE("usage mistakes exit with code 2", "[cli][usage]") {
  SECTION("no command") {
    CHECK(run_tokenlab(std::vector<std::string>{}).exit_code == 2);
  }
  SECTION("an unknown command") {
    const RunResult r = run_tokenlab({"frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: ") && Catch::Contains("frobnicate"));
  }
  SECTION("an unknown option") {
    const RunResult r =
        run_tokenlab({"count", "--corpus", kEnglish, "-o", "/dev/null", "--frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: ") && Catch::Contains("frobnicate"));
  }
  SECTION("a missing required option") {
    CHECK(run_tokenlab({"train", "--algorithm", "word", "--corpus", kEnglish}).exit_code == 2);
  }
  SECTION("both --corpus and --counts") {
    CHECK(run_tokenlab({"train", "-a", "word", "-v", "10", "--corpus", kEnglish, "--counts",
                        kEnglish, "-o", "/dev/null"})
              .exit_code == 2);
  }
  SECTION("a malformed value") {
    CHECK(
        run_tokenlab({"train", "-a", "word", "-v", "many", "--corpus", kEnglish, "-o", "/dev/null"})
            .exit_code == 2);
  }
}

TEST_CASE("invalid UTF-8 in a corpus names file, line and byte offset", "[cli][bad-input]") {
  TempDir dir;
  const std::string corpus = dir / "bad.txt";
  write_bytes(corpus, "a good line\nanother good one\nab\xC3(cd\nthe end\n");
  SECTION("error is the default") {
    check_failure(run_tokenlab({"count", "--corpus", corpus, "-o", dir / "c.tsv"}),
                  {corpus + ":3", "invalid UTF-8", "byte offset 2"});
    CHECK_FALSE(std::filesystem::exists(dir / "c.tsv"));
  }
  SECTION("--invalid-utf8=replace counts the line with U+FFFD") {
    const RunResult r =
        run_tokenlab({"count", "--corpus", corpus, "--invalid-utf8=replace", "-o", dir / "c.tsv"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(read_bytes(dir / "c.tsv"),
               Catch::Contains("\uFFFD") && Catch::Contains("\u2581end\t1"));
  }
  SECTION("--invalid-utf8=skip leaves the line out") {
    const RunResult r =
        run_tokenlab({"count", "--corpus", corpus, "--invalid-utf8=skip", "-o", dir / "c.tsv"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(read_bytes(dir / "c.tsv"),
               !Catch::Contains("\u2581ab") && Catch::Contains("\u2581end\t1"));
  }
  SECTION("an unknown policy is refused") {
    const RunResult r =
        run_tokenlab({"count", "--corpus", corpus, "--invalid-utf8=ignore", "-o", dir / "c.tsv"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: ") && Catch::Contains("ignore"));
  }
  SECTION("encode input is checked as well") {
    const std::string model = train_word_model(dir);
    check_failure(run_tokenlab({"encode", "-m", model, "--input", corpus}),
                  {corpus + ":3", "byte offset 2"});
  }
}

TEST_CASE("unusable corpora are clear errors", "[cli][bad-input]") {
  TempDir dir;
  SECTION("an empty corpus") {
    write_bytes(dir / "empty.txt", "");
    check_failure(run_tokenlab({"count", "--corpus", dir / "empty.txt", "-o", dir / "c.tsv"}),
                  {"empty"});
  }
  SECTION("a missing file") {
    check_failure(run_tokenlab({"count", "--corpus", dir / "missing.txt", "-o", dir / "c.tsv"}),
                  {dir / "missing.txt", "no such file"});
  }
  SECTION("a directory given as a file") {
    check_failure(run_tokenlab({"count", "--corpus", dir.path().string(), "-o", dir / "c.tsv"}),
                  {dir.path().string(), "directory"});
  }
  SECTION("a binary file") {
    write_bytes(dir / "blob.bin", std::string("\x7F"
                                              "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0",
                                              20));
    check_failure(run_tokenlab({"train", "-a", "word", "-v", "100", "--corpus", dir / "blob.bin",
                                "-o", dir / "m.tkl"}),
                  {dir / "blob.bin", "NUL"});
  }
  CHECK_FALSE(std::filesystem::exists(dir / "c.tsv"));
  CHECK_FALSE(std::filesystem::exists(dir / "m.tkl"));
}

TEST_CASE("training refuses impossible requests", "[cli][bad-input]") {
  TempDir dir;
  SECTION("a vocabulary too small for the special tokens") {
    check_failure(
        run_tokenlab({"train", "-a", "word", "-v", "1", "--corpus", kEnglish, "-o", dir / "m.tkl"}),
        {"too small"});
    check_failure(run_tokenlab({"train", "-a", "character", "-v", "3", "--special-tokens",
                                "<unk>,<s>,</s>", "--corpus", kEnglish, "-o", dir / "m.tkl"}),
                  {"too small"});
  }
  SECTION("an unknown algorithm lists the available ones") {
    check_failure(run_tokenlab({"train", "-a", "sentencepiece", "-v", "100", "--corpus", kEnglish,
                                "-o", dir / "m.tkl"}),
                  {"sentencepiece", "available", "character", "word"});
  }
  SECTION("an unknown algorithm option lists the valid ones") {
    check_failure(run_tokenlab({"train", "-a", "character", "-v", "100", "--option",
                                "no_such_option=1", "--corpus", kEnglish, "-o", dir / "m.tkl"}),
                  {"no_such_option", "valid"});
  }
  CHECK_FALSE(std::filesystem::exists(dir / "m.tkl"));
}

TEST_CASE("damaged model files are clear errors, never crashes", "[cli][bad-input]") {
  TempDir dir;
  const std::string model = train_word_model(dir);
  const std::string good = read_bytes(model);
  const std::string bad = dir / "bad.tkl";
  SECTION("truncated") {
    const std::size_t length = GENERATE(0, 4, 12, 40, 60);
    INFO("cut at " << length);
    write_bytes(bad, good.substr(0, std::min<std::size_t>(length, good.size())));
    check_failure(run_tokenlab({"encode", "-m", bad}, "The river\n"), {bad});
  }
  SECTION("truncated in the payload") {
    write_bytes(bad, good.substr(0, good.size() - 10));
    check_failure(run_tokenlab({"encode", "-m", bad}, "The river\n"), {bad, "truncated"});
  }
  SECTION("one corrupted byte") {
    std::string corrupted = good;
    corrupted[corrupted.size() / 2 + 40] =
        static_cast<char>(corrupted[corrupted.size() / 2 + 40] ^ 0x20);
    write_bytes(bad, corrupted);
    check_failure(run_tokenlab({"decode", "-m", bad}, "1 2\n"), {bad, "checksum"});
  }
  SECTION("a foreign file") {
    check_failure(run_tokenlab({"encode", "-m", kEnglish}, "The river\n"),
                  {kEnglish, "not a tokenlab model"});
  }
  SECTION("a directory") {
    check_failure(run_tokenlab({"encode", "-m", dir.path().string()}, "The river\n"),
                  {"directory"});
  }
}

TEST_CASE("decode refuses ids that are not in the vocabulary", "[cli][bad-input]") {
  TempDir dir;
  const std::string model = train_word_model(dir);
  SECTION("an id past the end") {
    check_failure(run_tokenlab({"decode", "-m", model}, "1 2\n3 999999\n"),
                  {"<stdin>:2", "999999", "outside"});
  }
  SECTION("something that is not an id") {
    check_failure(run_tokenlab({"decode", "-m", model}, "1 two 3\n"), {"<stdin>:1", "'two'"});
  }
  SECTION("a negative id") {
    check_failure(run_tokenlab({"decode", "-m", model}, "-1\n"), {"'-1'"});
  }
}

TEST_CASE("an unwritable output path is a clear error and leaves no file", "[cli][bad-input]") {
  TempDir dir;
  SECTION("a directory nobody may write to (even root: /proc)") {
    check_failure(
        run_tokenlab({"count", "--corpus", kEnglish, "-o", "/proc/tokenlab-test-counts.tsv"}),
        {"/proc/tokenlab-test-counts.tsv"});
    CHECK_FALSE(std::filesystem::exists("/proc/tokenlab-test-counts.tsv"));
  }
  SECTION("a directory that does not exist") {
    const std::string out = dir / "no/such/dir/counts.tsv";
    check_failure(run_tokenlab({"count", "--corpus", kEnglish, "-o", out}), {out});
    CHECK(dir.entries().empty());
  }
  SECTION("an existing directory as the output file") {
    check_failure(run_tokenlab({"count", "--corpus", kEnglish, "-o", dir.path().string()}),
                  {"directory"});
    CHECK(dir.entries().empty());
  }
  SECTION("a write that fails half-way (file size limit) leaves neither the file nor a temporary") {
    const std::string model = train_word_model(dir);
    const std::string out = dir / "ids.txt";
    // The shell ignores SIGXFSZ and caps files at 4 KiB; the ids of the corpus are larger.
    const RunResult r =
        run_program("/bin/sh", {"-c", "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"", cli_path(),
                                "encode", "-m", model, "--input", kEnglish, "-o", out});
    check_failure(r, {out});
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK(dir.entries() == std::vector<std::string>{"word.tkl"});
  }
}

// The output path is checked before training, so no training time is lost and the
// error is the first line.
TEST_CASE("train refuses an unwritable output path before it trains, error first",
          "[cli][bad-input]") {
  TempDir dir;
  const std::string out = dir / "no/such/dir/model.tkl";
  check_failure(run_tokenlab({"train", "-a", "word", "-v", "100", "--corpus", kEnglish, "-o", out}),
                {out});
  CHECK(dir.entries().empty());
}

TEST_CASE("a word too long to be a word is left out of training, and the user is told",
          "[cli][bad-input]") {
  TempDir dir;
  // 5,000 characters with no space (a base64 blob, say), among ordinary words.
  write_bytes(dir / "corpus.txt", "the cat sat\n" + std::string(5000, 'q') + "\nthe dog sat\n");
  for (const std::string algorithm : {"bpe", "unigram", "wordpiece", "character", "word"}) {
    CAPTURE(algorithm);
    const auto r = run_tokenlab({"train", "-a", algorithm, "-v", "300", "--corpus",
                                 dir / "corpus.txt", "-o", dir / (algorithm + ".tkl")});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("1 distinct word (1 occurrence) longer than 4096 characters "
                                      "left out of training"));
    const auto e = run_tokenlab({"encode", "-m", dir / (algorithm + ".tkl")}, "the cat\n");
    CHECK(e.exit_code == 0);
  }
}
