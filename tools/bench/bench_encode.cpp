// bench_encode: the encode loop of a real model's tokenizer, timed in-process, as
// tests/references/pretrained_reference.js times HF tokenizers and tiktoken.
//
// usage: tokenlab_bench_encode MODEL TEXT [THREADS] [FORMAT]
//   MODEL   tokenizer.json, tiktoken (rank file or npm encoder JSON) or .model
//   TEXT    one sentence per line, split on "\n" (as the reference script does)
//   THREADS 1 (default): one thread; N: lines in chunks of 256 over N threads
// Prints: "load SECONDS PEAK_MIB" after loading, then "BYTES TOKENS SECONDS MB/s"
// for the encode loop alone, after encoding the first 1,000 lines once (warm-up,
// as the reference script does). MB = 10^6 bytes.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/lines.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  if (argc < 3 || argc > 5) {
    std::cerr << "usage: tokenlab_bench_encode MODEL TEXT [THREADS] [FORMAT]\n";
    return 2;
  }
  try {
    const unsigned threads = argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 1;
    const std::string format = argc > 4 ? argv[4] : "auto";
    const auto load_start = std::chrono::steady_clock::now();
    const tokenlab::PretrainedTokenizer tokenizer =
        tokenlab::PretrainedTokenizer::load(argv[1], format);
    std::printf("load %.3f %.1f\n", seconds_since(load_start), peak_mib());

    std::size_t bytes = 0;
    const std::vector<std::string> lines = read_lines(argv[2], bytes);
    std::vector<tokenlab::TokenId> ids;
    for (std::size_t i = 0; i < lines.size() && i < 1000; ++i) {
      ids.clear();
      tokenizer.encode(lines[i], ids);
    }

    constexpr std::size_t kChunk = 256;
    const std::size_t chunks = (lines.size() + kChunk - 1) / kChunk;
    std::vector<std::size_t> tokens_per_chunk(chunks, 0);
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
