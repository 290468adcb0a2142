// Hostile outputs and options: what is at an output path survives unless it is
// meant to be replaced, an input is never overwritten, numbers are range-checked,
// repeated or misspelled options are errors, and read errors are not end of input.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "common/skip.hpp"

namespace fs = std::filesystem;
using namespace tokenlab::test;

namespace {

const std::string kEnglish = data_file("corpus/english.txt");

std::vector<std::string> word_train(const std::string& corpus, const std::string& output) {
  return {"train", "-a", "word", "-v", "200", "--corpus", corpus, "-o", output};
}

std::string train_word_model(const TempDir& dir) {
  const std::string model = dir / "word.tkl";
  const RunResult r = run_tokenlab(word_train(kEnglish, model));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return model;
}

void check_usage_error(const RunResult& r, const std::vector<std::string>& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: "));
  for (const auto& word : must_mention) CHECK_THAT(r.first_error_line(), Catch::Contains(word));
}

void check_error(const RunResult& r, const std::vector<std::string>& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: "));
  for (const auto& word : must_mention) CHECK_THAT(r.first_error_line(), Catch::Contains(word));
}

// A pid no process has: above the kernel's largest.
std::string unused_pid() {
  long max = 4194304;
  std::ifstream("/proc/sys/kernel/pid_max") >> max;
  return std::to_string(max + 1);
}

// Runs tokenlab with its standard output on a pseudo-terminal; returns the exit
// code and stderr, or nullopt-like -1 if no pseudo-terminal is available.
RunResult run_tokenlab_on_terminal(const std::vector<std::string>& args, const TempDir& dir) {
  RunResult result;
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return result;
  const std::string terminal = ::ptsname(master);
  const std::string err_path = dir / "terminal-stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, terminal.c_str(), O_RDWR | O_NOCTTY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> storage{cli_path()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, cli_path().c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned == 0)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  ::close(master);
  if (spawned != 0) return result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_bytes(err_path);
  return result;
}

}  // namespace

TEST_CASE("a binary model is not written to a terminal", "[cli][output]") {
  TempDir dir;
  const RunResult r = run_tokenlab_on_terminal(word_train(kEnglish, "-"), dir);
  if (r.exit_code == -1) TOKENLAB_SKIP("no pseudo-terminal available");
  check_usage_error(r, {"terminal"});
}

TEST_CASE("an output that is one of the inputs is refused and the input survives",
          "[cli][output]") {
  TempDir dir;
  const std::string corpus = dir / "corpus.txt";
  fs::copy_file(kEnglish, corpus);
  const std::string original = read_bytes(corpus);

  SECTION("train --corpus x -o x") {
    check_error(run_tokenlab(word_train(corpus, corpus)), {"corpus.txt", "is also an input"});
  }
  SECTION("the same file through a hard link") {
    fs::create_hard_link(corpus, dir / "alias.txt");
    check_error(run_tokenlab(word_train(corpus, dir / "alias.txt")), {"is also an input"});
  }
  SECTION("count --corpus x -o x and count --merge x -o x") {
    check_error(run_tokenlab({"count", "--corpus", corpus, "-o", corpus}), {"is also an input"});
    const std::string counts = dir / "counts.tsv";
    REQUIRE(run_tokenlab({"count", "--corpus", corpus, "-o", counts}).exit_code == 0);
    const std::string counted = read_bytes(counts);
    check_error(run_tokenlab({"count", "--merge", counts, "-o", counts}), {"is also an input"});
    CHECK(read_bytes(counts) == counted);
  }
  SECTION("encode and decode -i x -o x, and -o the model") {
    const std::string model = train_word_model(dir);
    const std::string model_bytes = read_bytes(model);
    check_error(run_tokenlab({"encode", "-m", model, "-i", corpus, "-o", corpus}),
                {"is also an input"});
    check_error(run_tokenlab({"decode", "-m", model, "-i", corpus, "-o", corpus}),
                {"is also an input"});
    check_error(run_tokenlab({"encode", "-m", model, "-i", corpus, "-o", model}),
                {"is also an input"});
    // Standard input redirected from the output file.
    const RunResult piped = run_program(
        "/bin/sh",
        {"-c", "exec \"$0\" encode -m \"$1\" -o \"$2\" < \"$2\"", cli_path(), model, corpus});
    check_error(piped, {"is also an input"});
    check_error(run_tokenlab({"export", "--format", "vocab.txt", "-m", model, "-o", model}),
                {"is also an input"});
    CHECK(read_bytes(model) == model_bytes);
  }
  SECTION("compare with the corpus where a report file would go") {
    const std::string report_corpus = dir / "compare.csv";
    fs::copy_file(kEnglish, report_corpus);
    check_error(run_tokenlab({"compare", "--algorithms", "word", "-v", "100", "--corpus",
                              report_corpus, "--report-dir", dir.path().string()}),
                {"compare.csv", "report"});
    CHECK(read_bytes(report_corpus) == original);
  }
  CHECK(read_bytes(corpus) == original);
}

TEST_CASE("a symbolic link output is written through and stays a link", "[cli][output]") {
  TempDir dir;
  const std::string model = train_word_model(dir);
  fs::create_symlink(model, dir / "link.tkl");
  fs::remove(model);
  const RunResult r = run_tokenlab(word_train(kEnglish, dir / "link.tkl"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::is_symlink(dir / "link.tkl"));
  CHECK(fs::is_regular_file(model));
}

TEST_CASE("an output of /dev/null is written through and the device is left alone",
          "[cli][output]") {
  const RunResult r = run_tokenlab(word_train(kEnglish, "/dev/null"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("an output of - writes text and models to standard output, never a file named -",
          "[cli][output]") {
  TempDir dir;
  const std::string model = train_word_model(dir);
  const std::string cwd_dash = fs::current_path() / "-";
  REQUIRE_FALSE(fs::exists(cwd_dash));

  const RunResult count = run_tokenlab({"count", "--corpus", kEnglish, "-o", "-"});
  CHECK(count.exit_code == 0);
  CHECK_THAT(count.out, Catch::Contains("\t"));

  const std::string wordpiece = dir / "wordpiece.tkl";
  REQUIRE(
      run_tokenlab({"train", "-a", "wordpiece", "-v", "200", "--corpus", kEnglish, "-o", wordpiece})
          .exit_code == 0);
  const RunResult exported =
      run_tokenlab({"export", "--format", "vocab.txt", "-m", wordpiece, "-o", "-"});
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK_FALSE(exported.out.empty());

  // Standard output is a file here, not a terminal: the model goes there.
  const RunResult trained = run_tokenlab(word_train(kEnglish, "-"));
  CHECK(trained.exit_code == 0);
  CHECK(trained.out == read_bytes(model));
  CHECK_FALSE(fs::exists(cwd_dash));
}

TEST_CASE("a temporary left by a killed training is removed by the next write", "[cli][output]") {
  TempDir dir;
  const std::string stale = ".word.tkl.tmp-" + unused_pid() + "-Abc123";
  write_bytes(dir / stale, "half a model");
  train_word_model(dir);
  CHECK(dir.entries() == std::vector<std::string>{"word.tkl"});
}

TEST_CASE("thread counts are range-checked and capped", "[cli][options][threads]") {
  check_usage_error(
      run_tokenlab({"count", "--corpus", kEnglish, "-o", "/dev/null", "--threads", "-1"}),
      {"--threads", "-1", "[0, 4096]"});
  check_usage_error(
      run_tokenlab({"count", "--corpus", kEnglish, "-o", "/dev/null", "--threads", "100000"}),
      {"--threads", "[0, 4096]"});
  const RunResult many =
      run_tokenlab({"count", "--corpus", kEnglish, "-o", "/dev/null", "--threads", "4096"});
  INFO(many.err);
  CHECK(many.exit_code == 0);
  if (4 * std::thread::hardware_concurrency() < 4096)
    CHECK_THAT(many.err, Catch::Contains("capped at"));
}

TEST_CASE("negative and out-of-range numbers are usage errors that give the range",
          "[cli][options]") {
  TempDir dir;
  check_usage_error(
      run_tokenlab({"train", "-a", "word", "-v", "-1", "--corpus", kEnglish, "-o", dir / "m.tkl"}),
      {"vocab-size", "[1, "});
  check_usage_error(run_tokenlab({"train", "-a", "word", "-v", "10", "--seed", "-1", "--corpus",
                                  kEnglish, "-o", dir / "m.tkl"}),
                    {"seed", "-1"});
  check_usage_error(run_tokenlab({"compare", "--context=-1", "--corpus", kEnglish}),
                    {"context", "[1, "});
  check_usage_error(run_tokenlab({"compare", "--d-model=-1", "--corpus", kEnglish}),
                    {"d-model", "[1, "});
  check_usage_error(run_tokenlab({"compare", "--held-out", "nan", "--corpus", kEnglish}),
                    {"held-out", "[0, "});
  check_usage_error(run_tokenlab({"trace", "bpe", "--words", "low:5", "--merges", "-1"}),
                    {"merges"});
  const std::string model = train_word_model(dir);
  check_usage_error(run_tokenlab({"nbest", "-m", model, "-k", "-1", "hello"}), {"-1", "[1, 1024]"});
  CHECK_FALSE(fs::exists(dir / "m.tkl"));
}

TEST_CASE("an option given twice or for a missing plugin is an error", "[cli][options]") {
  TempDir dir;
  check_usage_error(
      run_tokenlab({"train", "-a", "bpe", "-v", "100", "--corpus", kEnglish, "--option",
                    "units=bytes", "--option", "units=characters", "-o", dir / "m.tkl"}),
      {"units", "twice"});
  check_usage_error(run_tokenlab({"compare", "--algorithms", "word", "-v", "100", "--corpus",
                                  kEnglish, "--option", "typo:units=bytes"}),
                    {"typo"});
  check_usage_error(run_tokenlab({"compare", "--algorithms", "bpe", "-v", "100", "--corpus",
                                  kEnglish, "--option", "bpe:k=a", "--option", "bpe:k=b"}),
                    {"twice"});
}

TEST_CASE("a --report-dir under a regular file fails before any training", "[cli][output]") {
  TempDir dir;
  write_bytes(dir / "file", "x");
  const RunResult r = run_tokenlab({"compare", "--algorithms", "word", "-v", "100", "--corpus",
                                    kEnglish, "--report-dir", dir / "file" / "reports"});
  check_error(r, {"report"});
  CHECK(r.out.empty());  // no comparison table: nothing was trained
}

TEST_CASE("a read-only --report-dir fails before any training", "[cli][output]") {
  if (::geteuid() == 0) TOKENLAB_SKIP("root can write into a read-only directory");
  TempDir dir;
  fs::create_directory(dir / "reports");
  fs::permissions(dir / "reports", fs::perms(0555));
  const RunResult r = run_tokenlab({"compare", "--algorithms", "word", "-v", "100", "--corpus",
                                    kEnglish, "--report-dir", dir / "reports"});
  fs::permissions(dir / "reports", fs::perms(0755));
  check_error(r, {"reports", "not writable"});
  CHECK(r.out.empty());
}

TEST_CASE("a read error in encode's or decode's input is an error naming the file",
          "[cli][input]") {
  TempDir dir;
  const std::string model = train_word_model(dir);
  // Reading /proc/self/mem from offset 0 fails with EIO: a read error, not an end.
  for (const std::string command : {"encode", "decode"}) {
    const RunResult r = run_tokenlab({command, "-m", model, "-i", "/proc/self/mem"});
    INFO(command);
    check_error(r, {"/proc/self/mem", "read error"});
  }
}
