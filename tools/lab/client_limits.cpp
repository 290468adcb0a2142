#include "client_limits.hpp"

#include <algorithm>
#include <cmath>

namespace tokenlab::lab {

namespace {

// Buckets kept before the full, idle ones are forgotten.
constexpr std::size_t kForgetAbove = 4096;

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
               hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

ClientLimits::ClientLimits(const ClientLimitOptions& options) : options_(options) {}

double ClientLimits::cost_of(std::size_t body_bytes) noexcept {
  return 1.0 + static_cast<double>(body_bytes / kBodyBytesPerToken);
}

Admission ClientLimits::admit(const std::string& client, Clock::time_point now, double cost) {
  if (!enabled()) return {};
  const std::lock_guard lock(mutex_);
  if (buckets_.size() > kForgetAbove) forget_idle(now);
  auto [it, fresh] = buckets_.try_emplace(client);
  Bucket& b = it->second;
  if (fresh) {
    b.tokens = options_.burst;
  } else if (now > b.refilled) {
    const double seconds = std::chrono::duration<double>(now - b.refilled).count();
    b.tokens = std::min(options_.burst, b.tokens + seconds * options_.rate);
  }
  b.refilled = std::max(b.refilled, now);
  // A request dearer than a full bucket is taken from a full bucket (which it
  // then empties): a cap on size is the body limit's business, not this one's.
  const double needed = std::min(cost, options_.burst);
  if (b.tokens >= needed) {
    b.tokens -= needed;
    return {};
  }
  const double wait = (needed - b.tokens) / options_.rate;
  return {false, static_cast<unsigned>(std::max(1.0, std::ceil(wait)))};
}

std::shared_ptr<ClientLimits::Slot> ClientLimits::start_work(const std::string& client) {
  if (!enabled() || options_.in_flight == 0) return std::make_shared<Slot>(*this, std::string());
  const std::lock_guard lock(mutex_);
  Bucket& b = buckets_[client];
  if (b.in_flight >= options_.in_flight) return nullptr;
  ++b.in_flight;
  return std::make_shared<Slot>(*this, client);
}

ClientLimits::Slot::~Slot() {
  if (client_.empty()) return;
  const std::lock_guard lock(owner_.mutex_);
  const auto it = owner_.buckets_.find(client_);
  if (it != owner_.buckets_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

std::size_t ClientLimits::clients() const {
  const std::lock_guard lock(mutex_);
  return buckets_.size();
}

void ClientLimits::forget_idle(Clock::time_point now) {
  // A bucket that would be full by now and holds no request is the same as no
  // bucket.
  std::erase_if(buckets_, [&](const auto& entry) {
    const Bucket& b = entry.second;
    const double seconds = std::chrono::duration<double>(now - b.refilled).count();
    return b.in_flight == 0 && b.tokens + seconds * options_.rate >= options_.burst;
  });
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  // Every byte of b is compared whatever a holds; a's length shows only in the
  // result.
  unsigned difference = a.size() == b.size() ? 0U : 1U;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const unsigned char x = a.empty() ? 0 : static_cast<unsigned char>(a[i % a.size()]);
    difference |= static_cast<unsigned>(x ^ static_cast<unsigned char>(b[i]));
  }
  return difference == 0;
}

std::string query_parameter(std::string_view target, std::string_view name) {
  const auto question = target.find('?');
  if (question == std::string_view::npos) return {};
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    const auto equals = item.find('=');
    if (item.substr(0, equals) == name)
      return equals == std::string_view::npos ? std::string()
                                              : percent_decoded(item.substr(equals + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

}  // namespace tokenlab::lab
