// File: lab_api.hpp
// What `tokenlab lab` answers, without the sockets: one request in, one
// response out, so every endpoint is testable as a function.
//
//   GET  /                  the page (index.html, lab.js, lab.css: served from
//                           the binary, never from disk by request path)
//   GET  /api/tokenizers    the loaded tokenizers and the page's opening texts
//   POST /api/encode        {"text", "tokenizers"?: [names]} -> chips and counts
//   POST /api/bpe           {"words", "merges", "encode"} -> BPE by hand, step by step
//   GET  /api/sweep         the vocabulary-size sweep (or its progress)
//   POST /api/sample        {"tokenizer", "word", "count"?, "seed"?} -> segmentations
//
// Errors are JSON {"error": message} with 400 (bad request), 404 (unknown
// path or tokenizer), 405 (wrong method) or 413 (text over the limit).
// Thread-safe: handle() may run on many threads at once.
#pragma once

#include <atomic>
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

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query
  std::string body;
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

class LabApi {
 public:
  /// opening_texts: the sentences the page opens on (English and Hindi).
  LabApi(const LabCatalog& catalog, const SegmenterSource& plugins, const SweepState& sweep,
         std::vector<std::string> opening_texts);

  [[nodiscard]] Response handle(const Request& request) const;

 private:
  [[nodiscard]] Response tokenizers() const;
  [[nodiscard]] Response encode(const std::string& body) const;
  [[nodiscard]] Response bpe(const std::string& body) const;
  [[nodiscard]] Response sample(const std::string& body) const;

  const LabCatalog& catalog_;
  const SegmenterSource& plugins_;
  const SweepState& sweep_;
  std::vector<std::string> opening_texts_;
};

/// {"error": message}, with status.
Response error_response(int status, const std::string& message);

}  // namespace tokenlab::lab
