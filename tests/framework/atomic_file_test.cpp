// write_file_atomically against what may already be at the path, and parallel
// code against threads that cannot be started.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/skip.hpp"
#include "test_support.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"

namespace fs = std::filesystem;
using tokenlab::Error;
using tokenlab::write_file_atomically;
using tokenlab::test::read_bytes;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

unsigned mode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// A pid that no process has: the largest pid the kernel hands out, plus one.
long unused_pid() {
  long max = 4194304;
  std::ifstream in("/proc/sys/kernel/pid_max");
  in >> max;
  return max + 1;
}

// Restores the umask when the test ends.
struct UmaskGuard {
  explicit UmaskGuard(mode_t mask) : old(::umask(mask)) {}
  ~UmaskGuard() { ::umask(old); }
  UmaskGuard(const UmaskGuard&) = delete;
  UmaskGuard& operator=(const UmaskGuard&) = delete;
  mode_t old;
};

}  // namespace

TEST_CASE("a symbolic link is written through and stays a link", "[atomic_file]") {
  TempDir dir;
  write_bytes(dir / "model.tkl", "old");
  fs::create_symlink("model.tkl", dir / "link.tkl");
  write_text(dir / "link.tkl", "new");
  CHECK(fs::is_symlink(dir / "link.tkl"));
  CHECK(read_bytes(dir / "model.tkl") == "new");

  SECTION("a dangling link creates its target") {
    fs::create_symlink("missing.tkl", dir / "dangling.tkl");
    write_text(dir / "dangling.tkl", "made");
    CHECK(fs::is_symlink(dir / "dangling.tkl"));
    CHECK(read_bytes(dir / "missing.tkl") == "made");
  }
}

TEST_CASE("a FIFO is written through, not replaced by a file", "[atomic_file]") {
  TempDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const pid_t reader = ::fork();
  REQUIRE(reader >= 0);
  if (reader == 0) {
    std::ifstream in(fifo);
    std::string line;
    std::getline(in, line);
    ::_exit(line == "through the pipe" ? 0 : 1);
  }
  write_text(fifo, "through the pipe\n");
  int status = 0;
  REQUIRE(::waitpid(reader, &status, 0) == reader);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(fs::is_fifo(fifo));
}

TEST_CASE("/dev/null is written through and stays a character device", "[atomic_file]") {
  write_text("/dev/null", "discarded");
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("a directory at the path is refused and left alone", "[atomic_file]") {
  TempDir dir;
  fs::create_directory(dir / "sub");
  CHECK_THROWS_WITH(write_text(dir / "sub", "x"), Catch::Contains("is a directory"));
  CHECK(fs::is_directory(dir / "sub"));
}

TEST_CASE("an existing file keeps its mode and a new file honours the umask", "[atomic_file]") {
  TempDir dir;
  const UmaskGuard umask_guard(027);
  write_text(dir / "new.txt", "x");
  CHECK(mode_of(dir / "new.txt") == 0640);

  write_bytes(dir / "private.tkl", "old");
  fs::permissions(dir / "private.tkl", fs::perms(0600));
  write_text(dir / "private.tkl", "new");
  CHECK(mode_of(dir / "private.tkl") == 0600);
  CHECK(read_bytes(dir / "private.tkl") == "new");
}

TEST_CASE("temporaries of dead writers are removed, those of live ones kept", "[atomic_file]") {
  TempDir dir;
  const std::string dead = ".model.tkl.tmp-" + std::to_string(unused_pid()) + "-abcdef";
  const std::string live = ".model.tkl.tmp-" + std::to_string(::getpid()) + "-ghijkl";
  const std::string other = ".other.tkl.tmp-" + std::to_string(unused_pid()) + "-abcdef";
  for (const auto& name : {dead, live, other}) write_bytes(dir / name, "partial");
  write_text(dir / "model.tkl", "complete");
  CHECK_FALSE(fs::exists(dir / dead));
  CHECK(fs::exists(dir / live));
  CHECK(fs::exists(dir / other));  // another target's: left to its own next write
  CHECK(read_bytes(dir / "model.tkl") == "complete");
}

TEST_CASE("a file of several MiB written in pieces of every size holds exactly those bytes",
          "[atomic_file]") {
  // Small pieces go through the 64 KiB buffer, large ones straight to the file,
  // and each MiB's writeback is started as it is written: none of it may
  // reorder, drop or repeat a byte.
  TempDir dir;
  const fs::path path = dir / "large.txt";
  write_text(path, "an older, shorter file");
  std::string expected;
  write_file_atomically(path, [&](std::ostream& out) {
    std::uint64_t state = 12345;
    for (int piece = 0; piece < 400; ++piece) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const std::size_t size = piece % 3 == 0 ? (state >> 40) % 70'000 : (state >> 40) % 300;
      std::string bytes(size, static_cast<char>('a' + piece % 26));
      if (!bytes.empty()) bytes.back() = '\n';
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      expected += bytes;
    }
  });
  REQUIRE(expected.size() > (std::size_t{4} << 20) / 2);
  REQUIRE(read_bytes(path) == expected);
}

TEST_CASE("a writer that throws leaves the old file and no temporary", "[atomic_file]") {
  TempDir dir;
  write_bytes(dir / "model.tkl", "old");
  CHECK_THROWS(write_file_atomically(dir / "model.tkl", [](std::ostream& out) {
    out << "half";
    throw Error("writer failed");
  }));
  CHECK(read_bytes(dir / "model.tkl") == "old");
  CHECK(dir.entries() == std::vector<std::string>{"model.tkl"});
}

TEST_CASE("an output that is one of the inputs is refused", "[atomic_file]") {
  TempDir dir;
  write_bytes(dir / "corpus.txt", "text\n");
  fs::create_hard_link(dir / "corpus.txt", dir / "hard.txt");
  CHECK(tokenlab::same_file(dir / "corpus.txt", dir / "hard.txt"));
  CHECK_THROWS_WITH(
      tokenlab::check_output_is_not_input(dir / "hard.txt", {"-", dir / "corpus.txt"}),
      Catch::Contains("is also an input"));
  CHECK_NOTHROW(tokenlab::check_output_is_not_input(dir / "new.txt", {dir / "corpus.txt"}));
  CHECK_NOTHROW(tokenlab::check_output_is_not_input("/dev/null", {"/dev/null"}));
}

// A child process whose address space cannot hold the requested thread stacks:
// starting the threads fails, which must be an Error, never std::terminate.
TEST_CASE("a thread that cannot be started is an error, not an abort", "[parallel][threads]") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  TOKENLAB_SKIP("sanitizers need more address space than this test allows");
#else
  TempDir dir;
  write_bytes(dir / "corpus.txt", "one two three\nfour five six\n");
  int exercised = 0;
  for (const bool counting : {false, true}) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      long pages = 0;
      std::ifstream("/proc/self/statm") >> pages;
      const rlim_t limit =
          static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) +
          (rlim_t{128} << 20);
      const rlimit rl{limit, limit};
      if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(4);
      try {
        if (counting) {
          tokenlab::CorpusReader reader({(dir / "corpus.txt").string()});
          (void)tokenlab::count_words(reader, tokenlab::Normalizer(), tokenlab::PreTokenizer(),
                                      tokenlab::CountOptions{.threads = 4000});
        } else {
          tokenlab::parallel_for(4000, 4000, [](std::size_t) {});
        }
      } catch (const Error&) {
        ::_exit(0);
      } catch (...) {
        ::_exit(3);
      }
      ::_exit(2);  // every thread started: the limit did not bite
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    INFO((counting ? "count_words" : "parallel_for"));
    REQUIRE(WIFEXITED(status));      // not killed by SIGABRT from std::terminate
    if (WEXITSTATUS(status) != 2) {  // 2: every thread started, the limit did not bite
      CHECK(WEXITSTATUS(status) == 0);
      ++exercised;
    }
  }
  if (exercised == 0)
    TOKENLAB_SKIP("all 4000 threads started within the limit; the failure path was not exercised");
#endif
}
