// File: client_limits.hpp
// Fair shares for a classroom: what one client (one IP address) may ask of
// `tokenlab lab`, so that one student's flood or huge paste cannot starve the
// others, and the optional access code.
//
//   ClientLimits limits({.rate = 10, .burst = 40, .in_flight = 6});
//   const Admission a = limits.admit(client_ip, now, ClientLimits::cost_of(body_bytes));
//   if (!a.admitted) answer 429 with Retry-After a.retry_after_seconds;
//   if (auto slot = limits.start_work(client_ip)) run the work (slot held until done);
//   else answer 429 ("too many requests at once");
//
// Each client has a token bucket of `burst` tokens refilled at `rate` a
// second: a request costs one token, and one more per kBodyBytesPerToken of
// body, so a 64 KiB paste costs as much as 17 keystrokes. Apart from the
// bucket, a client may have at most `in_flight` requests waiting for or using
// the API workers, so the shared queue stays shared. A rate of 0 turns both
// off. Time is passed in, so the tests need no clock.
//
// Thread-safe: every member may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tokenlab::lab {

struct ClientLimitOptions {
  /// Tokens a second each client gets back; 0: no per-client limits.
  double rate = 0;
  /// Tokens a client may spend at once (a full bucket).
  double burst = 0;
  /// API requests a client may have queued or running at once; 0: no cap.
  std::size_t in_flight = 0;
};

struct Admission {
  bool admitted = true;
  /// When not admitted: whole seconds until the request would be (at least 1).
  unsigned retry_after_seconds = 0;
};

class ClientLimits {
 public:
  using Clock = std::chrono::steady_clock;
  /// A request's body bytes per extra token.
  static constexpr std::size_t kBodyBytesPerToken = 4096;

  explicit ClientLimits(const ClientLimitOptions& options);
  ClientLimits(const ClientLimits&) = delete;
  ClientLimits& operator=(const ClientLimits&) = delete;

  [[nodiscard]] bool enabled() const noexcept { return options_.rate > 0; }
  [[nodiscard]] const ClientLimitOptions& options() const noexcept { return options_; }
  /// 1 token, plus one per kBodyBytesPerToken of body.
  [[nodiscard]] static double cost_of(std::size_t body_bytes) noexcept;

  /// Takes cost tokens from client's bucket, or says how long to wait.
  [[nodiscard]] Admission admit(const std::string& client, Clock::time_point now, double cost);

  /// Held while a client's request waits for or uses an API worker.
  class Slot {
   public:
    Slot(ClientLimits& owner, std::string client) : owner_(owner), client_(std::move(client)) {}
    ~Slot();
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    ClientLimits& owner_;
    std::string client_;
  };
  /// A slot, or nullptr when client has `in_flight` requests already. Must not
  /// outlive this object.
  [[nodiscard]] std::shared_ptr<Slot> start_work(const std::string& client);

  /// Clients with a bucket or a request: bounded by forgetting full, idle ones.
  [[nodiscard]] std::size_t clients() const;

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point refilled;
    std::size_t in_flight = 0;
  };
  void forget_idle(Clock::time_point now);

  const ClientLimitOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

/// a == b in time that depends on b's length only (the access code), not on
/// where a first differs.
[[nodiscard]] bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

/// The value of name in target's query ("/api/x?code=abc&y=1"), %XX and '+'
/// decoded; "" when absent.
[[nodiscard]] std::string query_parameter(std::string_view target, std::string_view name);

}  // namespace tokenlab::lab
