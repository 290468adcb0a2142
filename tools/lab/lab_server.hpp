// File: lab_server.hpp
// The HTTP server of `tokenlab lab` (Boost.Beast): LabApi behind a socket.
//
//   LabServer server(api, "127.0.0.1", 0);   // port 0: any free port
//   std::cout << server.url();               // http://127.0.0.1:PORT/
//   server.run(threads);                     // until stop()
//
// The lab serves one person's browser on their own machine, yet any web page
// that browser opens can send it requests, and any local program can connect.
// So every request is checked before its body is read, and no client can take
// the server's memory, threads or file descriptors from the others:
//   - headers over 16 KiB: 431; a body over kMaxBodyBytes: 413, both before
//     they are read; a chunked body: 411 (the lab takes Content-Length bodies
//     only, so trailers cannot bypass the header limit); malformed: 400;
//   - Host must name the address served (IP:PORT, and localhost:PORT on a
//     loopback address), else 421; an Origin header must be http://<that
//     host>, else 403 (DNS rebinding, cross-site posts); a POST must be
//     Content-Type application/json, else 415 (simple cross-site requests
//     cannot set it);
//   - API work (LabApi::cost) runs on worker threads, never on the I/O
//     threads, so the page's files and /api/tokenizers are answered at once;
//     a full queue is 503 at once, and a request still running at its
//     deadline is 503 (its late result is dropped);
//   - a connection waits LabServerOptions::idle_timeout for a request's
//     header and request_timeout for the rest; past max_connections the
//     longest-waiting idle connection is closed for the new one; a failed
//     accept (no file descriptors left) is retried after a pause, not in a
//     loop;
//   - per client (IP address), when LabServerOptions::client.rate is set: a
//     token bucket (a request costs a token, and one more per 4 KiB of body)
//     and a cap on API requests queued or running at once, both 429 with
//     Retry-After, checked before the body is read (client_limits.hpp);
//   - with an access code, every /api/ request must carry it (header
//     X-Access-Code, or ?code= in the URL), compared in constant time, else
//     401; the page's own files are served without it, so that the page can
//     ask for the code;
//   - an exception out of a handler is written to stderr and the server goes on.
// An error answer closes its connection; other connections are not affected.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "client_limits.hpp"

namespace tokenlab::lab {

class LabApi;

struct LabServerOptions {
  /// Threads for /api/encode and /api/sample.
  unsigned workers = 2;
  /// Threads for /api/bpe, apart from the others so that walkthroughs, which
  /// may take seconds each, never hold up encoding.
  unsigned walkthrough_workers = 1;
  /// Requests waiting for a worker (per pool) beyond which the answer is 503:
  /// bounds the memory they hold (a body each) and the wait, while a burst of
  /// short requests (the page sends one per keystroke) still waits its turn.
  std::size_t max_queued = 256;
  /// How long an API request may take; after it, 503.
  std::chrono::milliseconds deadline{10000};
  /// How long a connection may wait for a request's header (keep-alive).
  std::chrono::milliseconds idle_timeout{10000};
  /// How long reading a request's body and writing the answer may take.
  std::chrono::milliseconds request_timeout{30000};
  /// Open connections at most; 0: from the file-descriptor limit
  /// (RLIMIT_NOFILE less 64 kept for everything else, at most 4096).
  std::size_t max_connections = 0;
  /// Per-client limits (off by default; `tokenlab lab` sets them).
  ClientLimitOptions client;
  /// When not empty, every /api/ request must carry it.
  std::string access_code;
};

class LabServer {
 public:
  /// Binds now: throws Error naming the address when it cannot (a port in use).
  /// api must outlive the server.
  LabServer(const LabApi& api, const std::string& address, std::uint16_t port,
            const LabServerOptions& options = {});
  /// Waits for running API work to finish (each request checks its deadline);
  /// work still queued is dropped.
  ~LabServer();
  LabServer(const LabServer&) = delete;
  LabServer& operator=(const LabServer&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept;
  [[nodiscard]] std::string url() const;
  /// Serves on threads I/O threads until stop(), SIGINT or SIGTERM (when
  /// stop_on_signals). Returns without waiting for API work still running.
  void run(unsigned threads, bool stop_on_signals = false);
  /// From any thread: run() returns soon after.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenlab::lab
