#include "lab_server.hpp"

#include <sys/resource.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <iostream>
#include <list>
#include <mutex>
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

constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;
// After an error answer the client may still be sending the body we refused;
// reading (and dropping) a little of it before closing lets the client read the
// answer instead of a reset.
constexpr std::size_t kMaxDrainBytes = 1024 * 1024;
constexpr std::chrono::seconds kDrainTimeout{2};
// A failed accept (EMFILE, ENFILE, ENOBUFS) fails again at once: wait instead of
// spinning a core until a descriptor is free.
constexpr std::chrono::milliseconds kAcceptBackoff{100};

// Threads that run API work, with a bound on what may wait for them.
class WorkPool {
 public:
  WorkPool(unsigned threads, std::size_t max_queued) : max_queued_(max_queued) {
    for (unsigned i = 0; i < std::max(1U, threads); ++i) threads_.emplace_back([this] { work(); });
  }
  ~WorkPool() { shutdown(); }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // False when the queue is full: the caller answers 503 at once.
  bool try_submit(std::function<void()> job) {
    {
      const std::lock_guard lock(mutex_);
      if (stopping_ || queue_.size() >= max_queued_) return false;
      queue_.push_back(std::move(job));
    }
    ready_.notify_one();
    return true;
  }

  // Drops what waits and joins the threads (each job checks its deadline).
  void shutdown() {
    std::deque<std::function<void()>> dropped;
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(queue_);
    }
    ready_.notify_all();
    dropped.clear();  // outside the lock: a job's captures may be the last owners of sessions
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      try {
        job();
      } catch (const std::exception& e) {
        std::cerr << "lab: a request failed in a worker: " << e.what() << '\n';
      } catch (...) {
        std::cerr << "lab: a request failed in a worker\n";
      }
    }
  }

  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

class Session;

// What the sessions share: the API, the options, the pools, and the connections
// waiting for a request (the ones to close first when connections run out).
struct ServerState {
  ServerState(const LabApi& api_in, const LabServerOptions& options_in)
      : api(api_in),
        options(options_in),
        limits(options_in.client),
        work(options_in.workers, options_in.max_queued),
        walkthroughs(options_in.walkthrough_workers, options_in.max_queued) {}

  const LabApi& api;
  const LabServerOptions options;
  std::size_t max_connections = 0;
  std::atomic<std::size_t> open{0};
  std::mutex idle_mutex;
  std::list<std::weak_ptr<Session>> idle;  // oldest first
  ClientLimits limits;                     // before the pools: their jobs hold slots
  WorkPool work;
  WorkPool walkthroughs;
};

// Beast 1.74 has its own string_view.
std::string_view view(beast::string_view text) {
  return {text.data(), text.size()};
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return beast::iequals(beast::string_view(a.data(), a.size()),
                        beast::string_view(b.data(), b.size()));
}

bool is_json(std::string_view content_type) {
  const auto end = content_type.find(';');
  std::string_view type = content_type.substr(0, end);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  return same_ignoring_case(type, "application/json");
}

// One connection: read a request, answer it, until the client closes, a
// request is refused, or a time limit passes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, ServerState& state)
      : stream_(std::move(socket)), deadline_(stream_.get_executor()), state_(state) {
    ++state_.open;
    beast::error_code ec;
    auto address = stream_.socket().remote_endpoint(ec).address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
      address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
    client_ = ec ? std::string("unknown") : address.to_string();
  }
  ~Session() {
    --state_.open;
    stop_waiting();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }

  // From any thread: closes the connection if it is still waiting for a request.
  void evict() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->waiting_) return;
      beast::error_code ignored;
      self->stream_.socket().close(ignored);  // the read ends with operation_aborted
    });
  }

 private:
  void read_header() {
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    parser_->header_limit(kMaxHeaderBytes);
    stream_.expires_after(state_.options.idle_timeout);
    start_waiting();
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void start_waiting() {
    waiting_ = true;
    const std::lock_guard lock(state_.idle_mutex);
    idle_entry_ = state_.idle.insert(state_.idle.end(), weak_from_this());
    listed_ = true;
  }
  void stop_waiting() {
    waiting_ = false;
    const std::lock_guard lock(state_.idle_mutex);
    if (listed_) state_.idle.erase(idle_entry_);
    listed_ = false;
  }

  // true when ec ended the connection (answered or closed).
  bool read_failed(beast::error_code ec) {
    if (!ec) return false;
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset ||
        ec == net::error::eof)
      close();
    else if (ec == http::error::body_limit)
      refuse(413, "the request body is over " + std::to_string(kMaxBodyBytes) + " bytes");
    else if (ec == http::error::header_limit)
      refuse(431, "the request headers are over 16 KiB");
    else
      refuse(400, "malformed HTTP request: " + ec.message());
    return true;
  }

  void on_header(beast::error_code ec) {
    stop_waiting();
    if (read_failed(ec)) return;
    const auto& message = parser_->get();
    keep_alive_ = message.keep_alive();
    version_ = message.version();
    if (const auto refused = check_header()) return refuse(refused->first, refused->second);
    if (const auto refused = check_client()) return refuse(refused->first, refused->second, retry_);
    if (parser_->is_done()) return on_request();
    stream_.expires_after(state_.options.request_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code read_ec, std::size_t) {
                       if (!self->read_failed(read_ec)) self->on_request();
                     });
  }

  // The Host values that name this server: the address the client connected
  // to, with the port (without it on port 80), and localhost on loopback.
  [[nodiscard]] bool is_our_host(std::string_view host) const {
    beast::error_code ec;
    const tcp::endpoint local = stream_.socket().local_endpoint(ec);
    if (ec) return false;
    auto address = local.address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
      address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
    const std::string port = std::to_string(local.port());
    const std::string ip = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
    std::vector<std::string> names = {ip};
    if (address.is_loopback()) names.emplace_back("localhost");
    for (const auto& name : names)
      if (same_ignoring_case(host, name + ":" + port) ||
          (local.port() == 80 && same_ignoring_case(host, name)))
        return true;
    return false;
  }

  [[nodiscard]] std::optional<std::pair<int, std::string>> check_header() const {
    const auto& message = parser_->get();
    const auto host = message.find(http::field::host);
    if (host == message.end()) return std::pair(400, std::string("a Host header is required"));
    // DNS rebinding: a foreign name resolved to our address.
    if (!is_our_host(view(host->value())))
      return std::pair(
          421, "this server does not answer for the host '" + std::string(host->value()) + "'");
    // A page of another site; a browser sends its Origin on every POST.
    const auto origin = message.find(http::field::origin);
    if (origin != message.end()) {
      const std::string_view value = view(origin->value());
      if (!(value.size() > 7 && same_ignoring_case(value.substr(0, 7), "http://") &&
            is_our_host(value.substr(7))))
        return std::pair(403, "requests from the origin '" + std::string(value) +
                                  "' are refused: only the lab's own page may call it");
    }
    if (parser_->chunked())
      return std::pair(411, std::string("the lab takes request bodies with Content-Length, "
                                        "not chunked"));
    // A cross-site form or a fetch without preflight can send text/plain but
    // not application/json.
    if (message.method() == http::verb::post && !is_json(view(message[http::field::content_type])))
      return std::pair(415, std::string("a POST must have Content-Type: application/json"));
    return std::nullopt;
  }

  // The client's share (429) and the access code (401), before the body is read.
  [[nodiscard]] std::optional<std::pair<int, std::string>> check_client() {
    const auto& message = parser_->get();
    if (state_.limits.enabled()) {
      const auto length = parser_->content_length();
      const Admission a = state_.limits.admit(
          client_, std::chrono::steady_clock::now(),
          ClientLimits::cost_of(length ? static_cast<std::size_t>(*length) : 0));
      if (!a.admitted) {
        retry_ = a.retry_after_seconds;
        return std::pair(429, "too many requests from " + client_ +
                                  ": the lab gives each "
                                  "computer its share; try again in " +
                                  std::to_string(a.retry_after_seconds) + " s");
      }
    }
    const std::string_view target = view(message.target());
    if (!state_.options.access_code.empty() && target.starts_with("/api/")) {
      const auto header = message.find("X-Access-Code");
      const std::string given =
          header != message.end() ? std::string(header->value()) : query_parameter(target, "code");
      if (!constant_time_equal(given, state_.options.access_code))
        return std::pair(401, std::string(given.empty() ? "this lab needs an access code: ask "
                                                          "your instructor"
                                                        : "wrong access code"));
    }
    return std::nullopt;
  }

  void on_request() {
    const auto& message = parser_->get();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = std::move(parser_->get().body());
    const Cost cost = LabApi::cost(request);
    if (cost == Cost::instant) return reply(state_.api.handle(request), keep_alive_);
    request.deadline = std::chrono::steady_clock::now() + state_.options.deadline;
    WorkPool& pool = cost == Cost::walkthrough ? state_.walkthroughs : state_.work;
    // Held until the job is done or dropped: the client's requests at once.
    auto slot = state_.limits.start_work(client_);
    if (!slot)
      return refuse(429,
                    "too many requests at once from " + client_ +
                        ": wait for the answers (at most " +
                        std::to_string(state_.limits.options().in_flight) + " at a time)",
                    1);
    const std::uint64_t id = ++request_id_;
    pending_ = true;
    const bool queued = pool.try_submit(
        [self = shared_from_this(), request = std::move(request), id, slot = std::move(slot)] {
          // Waited past its deadline: answered 503 already.
          if (std::chrono::steady_clock::now() > request.deadline) return;
          Response response = self->state_.api.handle(request);
          net::post(self->stream_.get_executor(),
                    [self, id, response = std::move(response)] { self->on_result(id, response); });
        });
    if (!queued) {
      pending_ = false;
      return refuse(503, "the lab is busy: try again in a moment");
    }
    deadline_.expires_after(state_.options.deadline);
    deadline_.async_wait([self = shared_from_this(), id](beast::error_code ec) {
      if (ec || !self->pending_ || id != self->request_id_) return;
      self->pending_ = false;
      const auto seconds =
          std::chrono::duration_cast<std::chrono::duration<double>>(self->state_.options.deadline);
      self->refuse(503, "the request took over " + std::to_string(seconds.count()) +
                            " s and was given up: ask for less");
    });
  }

  void on_result(std::uint64_t id, const Response& response) {
    if (!pending_ || id != request_id_) return;  // answered 503 at the deadline
    pending_ = false;
    deadline_.cancel();
    reply(response, keep_alive_);
  }

  // An error that ends the connection (the body may be unread).
  void refuse(int status, const std::string& message, unsigned retry_after = 0) {
    reply(error_response(status, message), false, retry_after);
  }

  void reply(const Response& r, bool keep_alive, unsigned retry_after = 0) {
    response_ = {};
    response_.version(version_);
    response_.result(static_cast<http::status>(r.status));
    response_.set(http::field::server, "tokenlab lab");
    response_.set(http::field::content_type, r.content_type);
    response_.set(http::field::cache_control, "no-store");
    response_.set("X-Content-Type-Options", "nosniff");
    if (r.status == 503) response_.set(http::field::retry_after, "1");
    if (retry_after > 0) response_.set(http::field::retry_after, std::to_string(retry_after));
    response_.keep_alive(keep_alive);
    response_.body() = r.body;
    response_.prepare_payload();
    stream_.expires_after(state_.options.request_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
                        if (ec) return self->close();
                        if (!keep_alive) return self->drain_and_close();
                        self->read_header();
                      });
  }

  // Stops sending, then reads what the client still sends (up to a limit)
  // until it closes, so that closing does not reset the connection before the
  // client has read the answer.
  void drain_and_close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kDrainTimeout);
    drain();
  }
  void drain() {
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (!ec && self->drained_ < kMaxDrainBytes) self->drain();
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  net::steady_timer deadline_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  ServerState& state_;
  std::string client_;  // the peer's IP address: whose share a request takes
  unsigned retry_ = 0;
  bool keep_alive_ = false;
  unsigned version_ = 11;
  // On the strand:
  bool waiting_ = false;  // for a request's header
  bool pending_ = false;  // a worker has the request
  std::uint64_t request_id_ = 0;
  std::size_t drained_ = 0;
  // Under state_.idle_mutex:
  bool listed_ = false;
  std::list<std::weak_ptr<Session>>::iterator idle_entry_;
};

std::size_t connections_allowed() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 4096;
  const auto files = static_cast<std::size_t>(limit.rlim_cur);
  return std::clamp<std::size_t>(files > 64 ? files - 64 : 16, 16, 4096);
}

}  // namespace

struct LabServer::Impl {
  Impl(const LabApi& api_in, const std::string& address, std::uint16_t port,
       const LabServerOptions& options)
      : state(api_in, options), acceptor(io), backoff(io) {
    state.max_connections =
        options.max_connections != 0 ? options.max_connections : connections_allowed();
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

  ~Impl() {
    // Before io and the sessions it holds: the workers hold sessions too.
    state.work.shutdown();
    state.walkthroughs.shutdown();
  }

  void accept() {
    acceptor.async_accept(net::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        backoff.expires_after(kAcceptBackoff);
        backoff.async_wait([this](beast::error_code wait_ec) {
          if (!wait_ec) accept();
        });
        return;
      }
      if (state.open >= state.max_connections && !evict_one()) {
        beast::error_code ignored;
        socket.close(ignored);  // every connection is busy with a request
      } else {
        std::make_shared<Session>(std::move(socket), state)->start();
      }
      accept();
    });
  }

  // Closes the connection that has waited longest for a request.
  bool evict_one() {
    std::shared_ptr<Session> victim;
    {
      const std::lock_guard lock(state.idle_mutex);
      while (!victim && !state.idle.empty()) {
        victim = state.idle.front().lock();
        // Expired, or about to be: either way not a candidate again.
        state.idle.splice(state.idle.end(), state.idle, state.idle.begin());
      }
    }
    if (!victim) return false;
    victim->evict();
    return true;
  }

  // An exception out of a handler must not end the server: unwinding run()
  // would destroy joinable threads (std::terminate).
  void run_io() {
    for (;;) {
      try {
        io.run();
        return;
      } catch (const std::exception& e) {
        std::cerr << "lab: " << e.what() << " (the server goes on)\n";
      } catch (...) {
        std::cerr << "lab: an unknown exception (the server goes on)\n";
      }
    }
  }

  ServerState state;  // outlives io, whose handlers own sessions
  net::io_context io;
  tcp::acceptor acceptor;
  net::steady_timer backoff;
  tcp::endpoint bound;
};

LabServer::LabServer(const LabApi& api, const std::string& address, std::uint16_t port,
                     const LabServerOptions& options)
    : impl_(std::make_unique<Impl>(api, address, port, options)) {}

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
  std::vector<std::thread> io_threads;
  for (unsigned i = 1; i < threads; ++i) io_threads.emplace_back([this] { impl_->run_io(); });
  impl_->run_io();
  for (auto& t : io_threads) t.join();
}

void LabServer::stop() {
  net::post(impl_->io, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->backoff.cancel();
    impl_->io.stop();
  });
}

}  // namespace tokenlab::lab
