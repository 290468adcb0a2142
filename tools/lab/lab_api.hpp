// File: lab_api.hpp
// What `tokenlab lab` answers, without the sockets: one request in, one
// response out, so every endpoint is testable as a function.
//
//   GET  /                  the page (index.html, lab.js, lab.css: served from
//                           the binary, never from disk by request path)
//   GET  /fonts/NAME        a font the lab was given (LabContent::fonts), if any
//   GET  /api/tokenizers    the loaded tokenizers, the page's opening texts and
//                           the multilingual step's texts
//   POST /api/encode        {"text", "tokenizers"?: [names]} -> chips and counts
//   POST /api/bpe           {"words", "merges", "encode"} -> BPE by hand, step by step
//   GET  /api/sweep         the vocabulary-size sweep (or its progress)
//   POST /api/sample        {"tokenizer", "word", "count"?, "seed"?} -> segmentations
//
// Errors are JSON {"error": message} with 400 (bad request), 404 (unknown
// path or tokenizer), 405 (wrong method), 413 (a field, the list of names or
// the answer over its limit) or 503 (the request's deadline passed, or memory
// ran out: try again later, or ask for less).
//
// Limits: a request is small and its answer bounded, so that no request can
// claim much more memory or time than the page's own requests do:
//   - the body: kMaxBodyBytes, nesting at most kMaxRequestNesting levels
//     (checked before parsing: the parser recurses once per level);
//   - /api/encode: text up to kMaxTextBytes; names deduplicated, and no more
//     names than tokenizers loaded;
//   - /api/bpe: the word list up to kMaxBpeWordsBytes (200 words, 500 merges:
//     bpe_walkthrough.hpp), `encode` up to kMaxWordBytes; each step lists the
//     kMaxPairsShown (bpe_walkthrough.hpp) most frequent pairs and says how
//     many there are ("pairs_total", "tied_total");
//   - /api/sample: the word up to kMaxWordBytes, 100 draws;
//   - every answer: kMaxResponseBytes, checked while it is written;
//   - time: Request::deadline, checked between tokenizers and between steps.
// Thread-safe: handle() may run on many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lab_catalog.hpp"

namespace tokenlab {
class SegmenterSource;
}

namespace tokenlab::lab {

/// Longest text /api/encode takes, in bytes; longer is 413.
inline constexpr std::size_t kMaxTextBytes = 64 * 1024;
/// Longest request body the server reads; longer is 413 before it is read.
inline constexpr std::size_t kMaxBodyBytes = 256 * 1024;
/// Deepest JSON nesting of a request body; deeper is 400. The requests nest 2
/// levels ({"tokenizers": [...]}).
inline constexpr std::size_t kMaxRequestNesting = 32;
/// Longest single word: /api/sample's word and /api/bpe's `encode`; longer is 413.
inline constexpr std::size_t kMaxWordBytes = 256;
/// Longest word list of /api/bpe; longer is 413.
inline constexpr std::size_t kMaxBpeWordsBytes = 8192;
/// Largest answer; one that grows past it while written is 413. A 64 KiB text
/// cut into characters by every built-in tokenizer needs about 1 MiB each.
inline constexpr std::size_t kMaxResponseBytes = 8 * 1024 * 1024;

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query
  std::string body;
  /// After it, the request is given up with 503 at the next check.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/// How long a request may take, which decides where the server runs it.
enum class Cost {
  instant,     // the page's files, /api/tokenizers, /api/sweep, errors: on the I/O threads
  work,        // /api/encode, /api/sample: on the worker pool
  walkthrough  // /api/bpe (trains, and may run for seconds): on its own workers
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

/// One row of the sweep: an algorithm at a vocabulary size, on held-out text.
struct SweepPoint {
  std::string algorithm;
  std::size_t vocab_size = 0;  // as trained (may be below the size asked for)
  std::size_t requested = 0;
  double tokens_per_word = 0.0;
  double characters_per_token = 0.0;
  double unknown_rate = 0.0;
  std::uint64_t held_out_words = 0;
};

/// The sweep, filled by a background job while the page already works.
class SweepState {
 public:
  void set_progress(double fraction, const std::string& stage);
  void finish(std::vector<SweepPoint> points);
  void fail(const std::string& message);
  /// The JSON of /api/sweep.
  [[nodiscard]] std::string json() const;

 private:
  mutable std::mutex mutex_;
  double progress_ = 0.0;
  std::string stage_ = "waiting";
  bool done_ = false;
  std::string error_;
  std::vector<SweepPoint> points_;
};

/// One sentence in one language, for the page's multilingual step.
struct LabText {
  std::string language;
  std::string text;
};

/// A file the page may load besides its own (a font), read once at start.
struct LabFile {
  std::string name;  // served at /fonts/<name>
  std::string content_type;
  std::string body;
};

/// What the page shows besides the tokenizers.
struct LabContent {
  /// The text the page opens on: what the default models were trained for.
  std::vector<std::string> opening_texts;
  /// The same sentence in several languages (section 7, the multilingual cost);
  /// the first is the reference the others are compared with.
  std::vector<LabText> multilingual_texts;
  /// Fonts for scripts a machine may lack (Devanagari), served at /fonts/NAME.
  std::vector<LabFile> fonts;
};

class LabApi {
 public:
  /// max_response_bytes: the largest answer (smaller in tests).
  LabApi(const LabCatalog& catalog, const SegmenterSource& plugins, const SweepState& sweep,
         LabContent content, std::size_t max_response_bytes = kMaxResponseBytes);

  /// Never throws: every failure is an error response.
  [[nodiscard]] Response handle(const Request& request) const;
  /// Where request should run (from its method and path alone).
  [[nodiscard]] static Cost cost(const Request& request);

 private:
  [[nodiscard]] Response tokenizers() const;
  [[nodiscard]] Response encode(const Request& request) const;
  [[nodiscard]] Response bpe(const Request& request) const;
  [[nodiscard]] Response sample(const Request& request) const;

  const LabCatalog& catalog_;
  const SegmenterSource& plugins_;
  const SweepState& sweep_;
  LabContent content_;
  std::size_t max_response_bytes_;
};

/// {"error": message}, with status.
Response error_response(int status, const std::string& message);

}  // namespace tokenlab::lab
