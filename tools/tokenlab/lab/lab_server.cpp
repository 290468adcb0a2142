#include "lab_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "lab_api.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::lab {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr std::chrono::seconds kRequestTimeout{30};
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;

// One connection: read a request, answer it, until the client closes, a
// request is malformed, or the time limit passes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const LabApi& api) : stream_(std::move(socket)), api_(api) {}

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read(); });
  }

 private:
  void read() {
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    parser_->header_limit(kMaxHeaderBytes);
    stream_.expires_after(kRequestTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset ||
        ec == net::error::eof)
      return close();
    if (ec == http::error::body_limit)
      return reply(error_response(
                       413, "the request body is over " + std::to_string(kMaxBodyBytes) + " bytes"),
                   false, 11);
    if (ec == http::error::header_limit)
      return reply(error_response(431, "the request headers are over 16 KiB"), false, 11);
    if (ec) return reply(error_response(400, "malformed HTTP request: " + ec.message()), false, 11);
    const auto& message = parser_->get();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    reply(api_.handle(request), message.keep_alive(), message.version());
  }

  void reply(const Response& r, bool keep_alive, unsigned version) {
    response_ = {};
    response_.version(version);
    response_.result(static_cast<http::status>(r.status));
    response_.set(http::field::server, "tokenlab lab");
    response_.set(http::field::content_type, r.content_type);
    response_.set(http::field::cache_control, "no-store");
    response_.set("X-Content-Type-Options", "nosniff");
    response_.keep_alive(keep_alive);
    response_.body() = r.body;
    response_.prepare_payload();
    http::async_write(stream_, response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
                        if (ec || !keep_alive) return self->close();
                        self->read();
                      });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  const LabApi& api_;
};

}  // namespace

struct LabServer::Impl {
  Impl(const LabApi& api_in, const std::string& address, std::uint16_t port)
      : api(api_in), acceptor(io) {
    beast::error_code ec;
    const auto ip = net::ip::make_address(address, ec);
    if (ec) throw Error("--host " + address + ": not an IP address");
    const tcp::endpoint endpoint(ip, port);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec)
      throw Error("cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message() +
                  (port != 0 ? " (another --port, or --port 0 for any free one)" : ""));
    bound = acceptor.local_endpoint();
  }

  void accept() {
    acceptor.async_accept(net::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (!ec) std::make_shared<Session>(std::move(socket), api)->start();
      accept();  // a failed accept (too many open files) must not stop the server
    });
  }

  const LabApi& api;
  net::io_context io;
  tcp::acceptor acceptor;
  tcp::endpoint bound;
};

LabServer::LabServer(const LabApi& api, const std::string& address, std::uint16_t port)
    : impl_(std::make_unique<Impl>(api, address, port)) {}

LabServer::~LabServer() = default;

std::uint16_t LabServer::port() const noexcept {
  return impl_->bound.port();
}

std::string LabServer::url() const {
  const auto address = impl_->bound.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return "http://" + host + ":" + std::to_string(port()) + "/";
}

void LabServer::run(unsigned threads, bool stop_on_signals) {
  std::optional<net::signal_set> signals;
  if (stop_on_signals) {
    signals.emplace(impl_->io, SIGINT, SIGTERM);
    signals->async_wait([this](beast::error_code, int) { stop(); });
  }
  impl_->accept();
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < threads; ++i) workers.emplace_back([this] { impl_->io.run(); });
  impl_->io.run();
  for (auto& w : workers) w.join();
}

void LabServer::stop() {
  net::post(impl_->io, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->io.stop();
  });
}

}  // namespace tokenlab::lab
