// tokenlab lab's server (lab_server.hpp) over real loopback sockets: requests
// answered, malformed and oversized ones refused with a status while the server
// keeps serving, and 200 concurrent requests all answered.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "lab/lab_server.hpp"
#include "lab_support.hpp"
#include "tokenlab/error.hpp"

using namespace tokenlab;
using namespace tokenlab::lab;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// The server on a free port, serving on two threads for the test's lifetime.
class RunningServer {
 public:
  RunningServer() : server_(test::fixture_api(), "127.0.0.1", 0) {
    thread_ = std::thread([this] { server_.run(2); });
  }
  ~RunningServer() {
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] std::uint16_t port() const { return server_.port(); }

 private:
  LabServer server_;
  std::thread thread_;
};

// Sends raw bytes on one connection and returns everything the server sends
// back until it closes the connection.
std::string round_trip(std::uint16_t port, const std::string& bytes) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  net::write(socket, net::buffer(bytes));
  std::string reply;
  boost::system::error_code ec;
  net::read(socket, net::dynamic_buffer(reply), ec);  // until EOF
  return reply;
}

std::string request(const std::string& method, const std::string& target,
                    const std::string& body = "") {
  return method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
         "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

int status_of(const std::string& reply) {
  if (!reply.starts_with("HTTP/1.1 ") || reply.size() < 12) return -1;
  return std::stoi(reply.substr(9, 3));
}

}  // namespace

TEST_CASE("lab server: answers the API and the page over HTTP", "[lab][server]") {
  const RunningServer server;
  const std::string page = round_trip(server.port(), request("GET", "/"));
  CHECK(status_of(page) == 200);
  CHECK_THAT(page, Catch::Contains("Content-Type: text/html") && Catch::Contains("tokenlab lab"));
  const std::string encoded =
      round_trip(server.port(), request("POST", "/api/encode", R"({"text": "The old mill."})"));
  CHECK(status_of(encoded) == 200);
  CHECK_THAT(encoded, Catch::Contains("\"token_count\""));
  // A path that climbs out is not a file: nothing is read from disk.
  CHECK(status_of(round_trip(server.port(), request("GET", "/../../etc/passwd"))) == 404);
}

TEST_CASE("lab server: bad requests get an error status and the server keeps serving",
          "[lab][server]") {
  const RunningServer server;
  const auto port = server.port();
  CHECK(status_of(round_trip(port, "NOT HTTP AT ALL\r\n\r\n")) == 400);
  CHECK(status_of(round_trip(port, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")) ==
        400);
  // A body over the limit is refused from its Content-Length, before it is read.
  CHECK(status_of(round_trip(port, "POST /api/encode HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                                       std::to_string(kMaxBodyBytes + 1) + "\r\n\r\n{")) == 413);
  CHECK(status_of(round_trip(port, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " +
                                       std::string(20000, 'a') + "\r\n\r\n")) == 431);
  CHECK(status_of(round_trip(port, request("POST", "/api/encode", "{\"text\": 1"))) == 400);
  CHECK(status_of(round_trip(port, request("POST", "/api/encode",
                                           R"({"text": "a", "tokenizers": ["nope"]})"))) == 404);
  // A client that connects and goes away.
  {
    net::io_context io;
    tcp::socket socket(io);
    socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }
  CHECK(status_of(round_trip(port, request("GET", "/api/tokenizers"))) == 200);
}

TEST_CASE("lab server: 200 concurrent requests are all answered", "[lab][server][load]") {
  const RunningServer server;
  std::atomic<int> answered = 0;
  std::atomic<int> failed = 0;
  std::vector<std::thread> clients;
  for (int i = 0; i < 200; ++i)
    clients.emplace_back([&, i] {
      try {
        const std::string body =
            R"({"text": "request )" + std::to_string(i) + R"( of the load test"})";
        const std::string reply = round_trip(server.port(), request("POST", "/api/encode", body));
        (status_of(reply) == 200 ? answered : failed)++;
      } catch (const std::exception&) {
        ++failed;
      }
    });
  for (auto& c : clients) c.join();
  CHECK(answered == 200);
  CHECK(failed == 0);
}

TEST_CASE("lab server: a port in use is a clear error", "[lab][server]") {
  const RunningServer server;
  try {
    LabServer second(test::fixture_api(), "127.0.0.1", server.port());
    FAIL("the second server bound a port in use");
  } catch (const Error& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("cannot listen on 127.0.0.1:") && Catch::Contains("--port 0"));
  }
  CHECK_THROWS_WITH(LabServer(test::fixture_api(), "not-an-ip", 0),
                    Catch::Contains("not an IP address"));
}
