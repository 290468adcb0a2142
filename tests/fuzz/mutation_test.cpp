// CLI-level mutation test: real models of every built-in plugin with random bytes
// of their payload changed and the CRC fixed up (anyone can recompute it), fed to
// tokenlab encode, decode, export and nbest. Each run must end with an exit code:
// no signal, no sanitizer report, no hang over 10 s, and no more than 500 MB of
// address space (RLIMIT_AS in the child; skipped under ASan, which reserves more).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_files.hpp"
#include "tokenlab/model_file.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define TOKENLAB_MUTATION_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOKENLAB_MUTATION_ASAN 1
#endif
#endif

namespace fs = std::filesystem;
using tokenlab::test::read_bytes;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

#ifdef TOKENLAB_MUTATION_ASAN
constexpr int kMutantsPerPlugin = 60;  // each sanitized CLI start is about 5x slower
#else
constexpr int kMutantsPerPlugin = 200;
#endif
constexpr rlim_t kAddressSpaceLimit = rlim_t{500} << 20;
constexpr auto kTimeLimit = std::chrono::seconds(10);

struct Outcome {
  bool signaled = false;
  bool timed_out = false;
  int code = -1;
  std::string err;
};

// fork + exec with limits; stdin from in_path, stdout discarded, stderr captured.
Outcome run_limited(const std::vector<std::string>& args, const fs::path& in_path,
                    const fs::path& err_path) {
  std::vector<std::string> storage{TOKENLAB_CLI_PATH};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int in = ::open(in_path.c_str(), O_RDONLY);
    const int out = ::open("/dev/null", O_WRONLY);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
#ifndef TOKENLAB_MUTATION_ASAN
    const rlimit limit{kAddressSpaceLimit, kAddressSpaceLimit};
    ::setrlimit(RLIMIT_AS, &limit);
#endif
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Outcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + kTimeLimit;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  outcome.signaled = !outcome.timed_out && WIFSIGNALED(status);
  outcome.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.err = read_bytes(err_path);
  return outcome;
}

std::uint64_t get_le(const std::string& bytes, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i)
    v |= std::uint64_t{static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)])}
         << (8 * i);
  return v;
}

// Offset of the payload in a model file (see model_file.hpp for the layout).
std::size_t payload_offset(const std::string& file) {
  std::size_t at = 12;  // magic + format version
  for (int s = 0; s < 4; ++s) at += 4 + get_le(file, at, 4);
  return at + 12;  // payload length + CRC
}

void fix_crc(std::string& file, std::size_t payload) {
  const std::uint32_t crc = tokenlab::crc32(file.data() + payload, file.size() - payload);
  for (int i = 0; i < 4; ++i)
    file[payload - 4 + static_cast<std::size_t>(i)] = static_cast<char>((crc >> (8 * i)) & 0xFF);
}

// One to four bytes overwritten with values that hit length, flag and id fields.
std::string mutate(const std::string& file, std::size_t payload, std::mt19937_64& rng) {
  static constexpr unsigned char kValues[] = {0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, 0x10};
  std::string out = file;
  const std::size_t span = file.size() - payload;
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < count; ++k) {
    // Half the mutations land in the first 128 bytes: the tag, Boost's archive
    // header, the class information and the first fields.
    const std::size_t at =
        payload + (rng() % 2 == 0 ? rng() % std::min<std::size_t>(span, 128) : rng() % span);
    out[at] = static_cast<char>(rng() % 3 == 0 ? static_cast<unsigned char>(rng())
                                               : kValues[rng() % sizeof kValues]);
  }
  fix_crc(out, payload);
  return out;
}

bool sanitizer_report(const std::string& err) {
  return err.find("Sanitizer") != std::string::npos ||
         err.find("runtime error:") != std::string::npos ||
         err.find("bad_alloc") != std::string::npos;
}

}  // namespace

TEST_CASE("mutated models with a valid CRC never crash, hang or exhaust memory in the CLI",
          "[fuzz][mutation]") {
  const std::string plugin =
      GENERATE(as<std::string>{}, "bpe", "character", "unigram", "word", "wordpiece");
  TempDir dir;
  const fs::path model = dir / "model.tkl";
  const fs::path input = dir / "input.txt";
  const fs::path ids = dir / "ids.txt";
  const fs::path err = dir / "stderr";
  write_bytes(input, "The garden of hello unbelievable z\xC3\xA9ro \xF0\x9F\x98\x80 words\n");
  write_bytes(ids, "0 1 2 3 4 5 6 7 8 9 10 11 12 4000000000\n");
  const Outcome trained = run_limited({"train", "-a", plugin, "-v", "300", "--corpus",
                                       std::string(TOKENLAB_TEST_DATA_DIR) + "/corpus/english.txt",
                                       "--threads", "1", "-o", model.string()},
                                      input, err);
  INFO(trained.err);
  REQUIRE(trained.code == 0);
  const std::string original = read_bytes(model);
  const std::size_t payload = payload_offset(original);
  REQUIRE(payload < original.size());

  const std::vector<std::vector<std::string>> commands{
      {"encode", "-m", model.string(), "--threads", "1", "--pieces"},
      {"decode", "-m", model.string()},
      {"export", "--format", "vocab.txt", "-m", model.string(), "-o", (dir / "v.txt").string()},
      {"nbest", "-m", model.string(), "-k", "3", "hello", "unbelievable"}};
  // The unmutated model passes every command that its plugin supports.
  for (const auto& command : commands) {
    const Outcome o = run_limited(command, command[0] == "decode" ? ids : input, err);
    INFO(command[0] << ": " << o.err);
    REQUIRE(!o.signaled);
    REQUIRE(!o.timed_out);
  }

  std::mt19937_64 rng(std::hash<std::string>{}(plugin));
  int loaded = 0;
  for (int m = 0; m < kMutantsPerPlugin; ++m) {
    const std::string mutant = mutate(original, payload, rng);
    write_bytes(model, mutant);
    const auto& command = commands[static_cast<std::size_t>(m) % commands.size()];
    const Outcome o = run_limited(command, command[0] == "decode" ? ids : input, err);
    if (o.signaled || o.timed_out || sanitizer_report(o.err)) {
      const fs::path keep = fs::temp_directory_path() /
                            ("tokenlab-mutant-" + plugin + "-" + std::to_string(m) + ".tkl");
      write_bytes(keep, mutant);
      INFO(plugin << " mutant " << m << " (kept as " << keep.string() << ") with " << command[0]
                  << ": " << o.err);
      CHECK(!o.signaled);
      CHECK(!o.timed_out);
      CHECK(!sanitizer_report(o.err));
    }
    if (o.code == 0) ++loaded;
  }
  INFO(loaded << " of " << kMutantsPerPlugin << " mutants were accepted");
  SUCCEED();
}
