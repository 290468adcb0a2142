// bench_encode: the encode loop of a tokenizer, timed in-process, as
// tests/references/pretrained_reference.js times HF tokenizers and tiktoken, and
// as tools/bench/bench-python compares the Python module with.
//
// usage: tokenlab_bench_encode MODEL TEXT [THREADS] [FORMAT] [MODE]
//   MODEL   tokenizer.json, tiktoken (rank file or npm encoder JSON), .model, or a
//           tokenlab .tkl model (its plugins found as the CLI finds them)
//   TEXT    one sentence per line, split on "\n" (as the reference script does)
//   THREADS 1 (default): one thread; N: lines in chunks of 256 over N threads
//   FORMAT  auto (default), or the pretrained format to force
//   MODE    loop (default): the loop above; batch: TextEncoder::encode_batch (what
//           the Python module's encode_batch runs), timed on a second pass over
//           every line; one: the first line encoded again and again on one
//           thread, printing "one NANOSECONDS_PER_CALL TOKENS"
// Prints: "load SECONDS PEAK_MIB" after loading, then for the encode loop alone,
// after encoding the first 1,000 lines once (warm-up, as the reference script
// does), "cpu SECONDS" (the process's user+sys time over the loop, every thread:
// what a loaded machine inflates least) and last "BYTES TOKENS SECONDS MB/s"
// (wall time). MB = 10^6 bytes.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/lines.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double peak_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

std::vector<std::string> read_lines(const std::string& path, std::size_t& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tokenlab::Error(path + ": cannot open");
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  bytes = text.size();
  std::vector<std::string> lines;
  for (const std::string_view line : tokenlab::lines_of(text)) lines.emplace_back(line);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 6) {
    std::cerr << "usage: tokenlab_bench_encode MODEL TEXT [THREADS] [FORMAT] [MODE]\n";
    return 2;
  }
  try {
    const unsigned threads = argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 1;
    const std::string format = argc > 4 ? argv[4] : "auto";
    const std::string mode = argc > 5 ? argv[5] : "loop";
    const auto load_start = std::chrono::steady_clock::now();
    tokenlab::PluginRegistry registry;
    registry.load_search_path(tokenlab::PluginRegistry::default_search_path({}));
    const tokenlab::AnyModel model = tokenlab::load_any_model(argv[1], registry, format);
    const tokenlab::TextEncoder& tokenizer = *model.encoder;
    std::printf("load %.3f %.1f\n", seconds_since(load_start), peak_mib());

    std::size_t bytes = 0;
    const std::vector<std::string> lines = read_lines(argv[2], bytes);
    std::vector<tokenlab::TokenId> ids;
    for (std::size_t i = 0; i < lines.size() && i < 1000; ++i) {
      ids.clear();
      tokenizer.encode(lines[i], ids);
    }

    if (mode == "one") {
      // Per call: one short line, encoded into a fresh vector as the module does.
      const std::string& line = lines.front();
      constexpr int kCalls = 1000000;
      std::size_t total = 0;
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) {
        std::vector<tokenlab::TokenId> out;
        tokenizer.encode(line, out);
        total += out.size();
      }
      std::printf("one %.1f %zu\n", seconds_since(start) * 1e9 / kCalls, total / kCalls);
      return 0;
    }
    if (mode == "batch") {
      // Steady state: one untimed pass over every line first (the caches the
      // tokenizer fills, the allocator's pages), then the timed one.
      (void)tokenizer.encode_batch(lines, threads);
      const double cpu = cpu_seconds();
      const auto start = std::chrono::steady_clock::now();
      const auto encoded = tokenizer.encode_batch(lines, threads);
      const double seconds = seconds_since(start);
      std::printf("cpu %.3f\n", cpu_seconds() - cpu);
      std::size_t tokens = 0;
      for (const auto& e : encoded) tokens += e.size();
      std::printf("%zu %zu %.3f %.2f\n", bytes, tokens, seconds,
                  seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0);
      return 0;
    }
    constexpr std::size_t kChunk = 256;
    const std::size_t chunks = (lines.size() + kChunk - 1) / kChunk;
    std::vector<std::size_t> tokens_per_chunk(chunks, 0);
    const double cpu = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    tokenlab::parallel_for(chunks, threads, [&](std::size_t chunk) {
      std::vector<tokenlab::TokenId> out;
      std::size_t tokens = 0;
      for (std::size_t i = chunk * kChunk; i < lines.size() && i < (chunk + 1) * kChunk; ++i) {
        out.clear();
        tokenizer.encode(lines[i], out);
        tokens += out.size();
      }
      tokens_per_chunk[chunk] = tokens;
    });
    const double seconds = seconds_since(start);
    std::printf("cpu %.3f\n", cpu_seconds() - cpu);
    std::size_t tokens = 0;
    for (const std::size_t t : tokens_per_chunk) tokens += t;
    std::printf("%zu %zu %.3f %.2f\n", bytes, tokens, seconds,
                seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
