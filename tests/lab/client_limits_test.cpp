// The lab's per-client limits (client_limits.hpp) as functions: the token
// bucket with time passed in, the cap on requests at once, the access code's
// comparison and the query parameter it may come in.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "lab/client_limits.hpp"

using namespace tokenlab::lab;
using namespace std::chrono_literals;

TEST_CASE("client limits: a bucket per client, refilled at the rate", "[lab][limits]") {
  ClientLimits limits({.rate = 2, .burst = 5, .in_flight = 3});
  const auto t0 = ClientLimits::Clock::time_point{} + 1h;
  for (int i = 0; i < 5; ++i) CHECK(limits.admit("10.0.0.1", t0, 1).admitted);
  const Admission refused = limits.admit("10.0.0.1", t0, 1);
  CHECK_FALSE(refused.admitted);
  CHECK(refused.retry_after_seconds == 1);
  // Another client is not affected.
  CHECK(limits.admit("10.0.0.2", t0, 1).admitted);
  // Half a second at 2 a second: one token back.
  CHECK(limits.admit("10.0.0.1", t0 + 500ms, 1).admitted);
  CHECK_FALSE(limits.admit("10.0.0.1", t0 + 500ms, 1).admitted);
  // A long pause refills the bucket, never past the burst.
  for (int i = 0; i < 5; ++i) CHECK(limits.admit("10.0.0.1", t0 + 1h, 1).admitted);
  CHECK_FALSE(limits.admit("10.0.0.1", t0 + 1h, 1).admitted);
}

TEST_CASE("client limits: a large body costs more, and says how long to wait", "[lab][limits]") {
  CHECK(ClientLimits::cost_of(0) == 1);
  CHECK(ClientLimits::cost_of(4095) == 1);
  CHECK(ClientLimits::cost_of(64 * 1024) == 17);
  ClientLimits limits({.rate = 1, .burst = 40, .in_flight = 0});
  const auto t0 = ClientLimits::Clock::time_point{} + 1h;
  CHECK(limits.admit("a", t0, ClientLimits::cost_of(64 * 1024)).admitted);
  CHECK(limits.admit("a", t0, ClientLimits::cost_of(64 * 1024)).admitted);
  const Admission third = limits.admit("a", t0, ClientLimits::cost_of(64 * 1024));
  CHECK_FALSE(third.admitted);
  CHECK(third.retry_after_seconds == 11);  // 6 tokens left, 17 needed, 1 a second
  // Dearer than a full bucket: taken from a full one, not refused for ever.
  ClientLimits small({.rate = 1, .burst = 3, .in_flight = 0});
  CHECK(small.admit("a", t0, 17).admitted);
  CHECK_FALSE(small.admit("a", t0, 1).admitted);
}

TEST_CASE("client limits: requests at once are capped per client, slots come back",
          "[lab][limits]") {
  ClientLimits limits({.rate = 10, .burst = 10, .in_flight = 2});
  auto a = limits.start_work("x");
  auto b = limits.start_work("x");
  REQUIRE(a);
  REQUIRE(b);
  CHECK_FALSE(limits.start_work("x"));
  CHECK(limits.start_work("y"));  // another client
  a.reset();
  CHECK(limits.start_work("x"));
}

TEST_CASE("client limits: a rate of 0 limits nothing", "[lab][limits]") {
  ClientLimits off({});
  CHECK_FALSE(off.enabled());
  const auto t0 = ClientLimits::Clock::time_point{};
  for (int i = 0; i < 1000; ++i) REQUIRE(off.admit("a", t0, 100).admitted);
  std::vector<std::shared_ptr<ClientLimits::Slot>> held;
  for (int i = 0; i < 100; ++i) held.push_back(off.start_work("a"));
  CHECK(held.back());
  CHECK(off.clients() == 0);
}

TEST_CASE("client limits: the access code's comparison and where it comes from", "[lab][limits]") {
  CHECK(constant_time_equal("s3cret", "s3cret"));
  CHECK_FALSE(constant_time_equal("s3creT", "s3cret"));
  CHECK_FALSE(constant_time_equal("s3cre", "s3cret"));
  CHECK_FALSE(constant_time_equal("s3crets3cret", "s3cret"));
  CHECK_FALSE(constant_time_equal("", "s3cret"));
  CHECK(query_parameter("/api/encode?code=s3cret", "code") == "s3cret");
  CHECK(query_parameter("/?x=1&code=a%20b+c&y", "code") == "a b c");
  CHECK(query_parameter("/?xcode=1", "code").empty());
  CHECK(query_parameter("/api/encode", "code").empty());
  CHECK(query_parameter("/?code=%zz", "code") == "%zz");
}
