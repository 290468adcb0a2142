// File: lab_server.hpp
// The HTTP server of `tokenlab lab` (Boost.Beast): LabApi behind a socket.
//
//   LabServer server(api, "127.0.0.1", 0);   // port 0: any free port
//   std::cout << server.url();               // http://127.0.0.1:PORT/
//   server.run(threads);                     // until stop()
//
// Each connection reads one request at a time with a time limit, refuses a
// body over kMaxBodyBytes (413) or headers over 16 KiB (431) before reading
// them, answers a malformed request with 400 and closes it; other connections
// are not affected.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tokenlab::lab {

class LabApi;

class LabServer {
 public:
  /// Binds now: throws Error naming the address when it cannot (a port in use).
  LabServer(const LabApi& api, const std::string& address, std::uint16_t port);
  ~LabServer();
  LabServer(const LabServer&) = delete;
  LabServer& operator=(const LabServer&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept;
  [[nodiscard]] std::string url() const;
  /// Serves on threads threads until stop(), SIGINT or SIGTERM (when
  /// stop_on_signals).
  void run(unsigned threads, bool stop_on_signals = false);
  /// From any thread: run() returns soon after.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenlab::lab
