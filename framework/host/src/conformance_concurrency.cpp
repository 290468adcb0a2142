// The concurrency check: many threads encode with one model at once, in runs
// repeated until a data race is unlikely to hide, and every word's ids must equal
// the serial result.
#include <atomic>
#include <chrono>
#include <thread>

#include "conformance_internal.hpp"
#include "tokenlab/parallel.hpp"

namespace tokenlab::conformance {

namespace {

constexpr unsigned kThreads = 16;
// Rounds per run: even rounds walk the words together, odd ones apart.
constexpr unsigned kRounds = 4;
// Runs, each starting its threads afresh. One run of 4 rounds apart missed a shared
// one-word memo in 2 of 17 tries; the one in tests/broken_plugins shows within the
// first two runs, and 12 leave a race little room to hide.
constexpr unsigned kRuns = 12;

// The training words, the unseen ones, and unseen concatenations of training words.
std::vector<std::string> many_words(const Run& run) {
  std::vector<std::string> many = run.words;
  many.insert(many.end(), unseen_words().begin(), unseen_words().end());
  const std::string_view marker(kBoundaryMarker);
  for (const auto& first : run.words)
    for (std::size_t j = 0; j < run.words.size(); j += 7) {
      std::string_view second = run.words[j];
      if (second.starts_with(marker)) second.remove_prefix(marker.size());
      many.push_back(first + std::string(second));
    }
  return many;
}

// One run: kThreads threads, started together. In a round "together" every thread
// walks the words in the same order, each word twice in a row, so threads meet on
// the same word while a cache's or memo's hit path runs; in a round "apart" each
// starts elsewhere. Returns the first mismatch, described, or "".
std::string run_threads(const Segmenter& s, const std::vector<std::string>& many,
                        const std::vector<std::vector<TokenId>>& serial, unsigned run) {
  const std::size_t n = many.size();
  std::atomic<unsigned> ready{0};
  std::vector<std::string> mismatch(kThreads);
  // parallel_for joins every thread before an exception leaves, so a throwing
  // plugin fails this check instead of terminating the checker.
  parallel_for(kThreads, kThreads, [&](std::size_t t) {
    ready.fetch_add(1);  // start together, but never wait for a thread that cannot start
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (ready.load() < kThreads && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    for (unsigned round = 0; round < kRounds && mismatch[t].empty(); ++round) {
      const bool together = (round + run) % 2 == 0;
      const std::size_t offset = (t * n / kThreads + run * 7919) % n;
      for (std::size_t k = 0; k < (together ? 2 * n : n); ++k) {
        const std::size_t w = together ? k / 2 : (k + offset) % n;
        if (const auto ids = encode_one(s, many[w]); ids != serial[w]) {
          mismatch[t] = "expected ids " + show_ids(serial[w]) + " for " + quote(many[w]) +
                        " (serial), thread " + std::to_string(t) + " got " + show_ids(ids);
          break;
        }
      }
    }
  });
  for (const auto& m : mismatch)
    if (!m.empty()) return m;
  return {};
}

}  // namespace

bool concurrent_encoding(Run& run, std::string& d) {
  const std::vector<std::string> many = many_words(run);
  const auto serial = encode_all(*run.segmenter, many);
  for (unsigned r = 0; r < kRuns; ++r) {
    d = run_threads(*run.segmenter, many, serial, r);
    if (!d.empty()) {
      d += " (run " + std::to_string(r + 1) + " of " + std::to_string(kRuns) +
           "): shared mutable state in encode()?";
      return false;
    }
  }
  d = std::to_string(kThreads) + " threads x " + std::to_string(many.size()) + " words, " +
      std::to_string(kRuns) + " runs of " + std::to_string(kRounds) + " rounds";
  return true;
}

}  // namespace tokenlab::conformance
