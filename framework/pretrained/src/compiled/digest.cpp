#include <bit>
#include <cstdio>
#include <cstring>

#include "compiled/compiled_file.hpp"

namespace tokenlab::compiled {

namespace {

// xxHash64's primes and round: each lane takes 8 bytes a step, and the four
// lanes do not wait on each other.
constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;

std::uint64_t round(std::uint64_t lane, std::uint64_t input) noexcept {
  lane += input * kPrime2;
  return std::rotl(lane, 31) * kPrime1;
}

std::uint64_t avalanche(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  return h ^ (h >> 32);
}

std::uint64_t load64(const unsigned char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

std::string Digest::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

Digest digest_of(std::string_view bytes) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::uint64_t lane[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) lane[k] = round(lane[k], load64(p + i + 8 * k));
  unsigned char tail[32] = {};
  if (n > i) std::memcpy(tail, p + i, n - i);  // (an empty view's data may be null)
  for (int k = 0; k < 4; ++k) lane[k] = round(lane[k], load64(tail + 8 * k));
  const std::uint64_t length = n * kPrime4;
  Digest d;
  d.low = avalanche(std::rotl(lane[0], 1) + std::rotl(lane[1], 7) + std::rotl(lane[2], 12) +
                    std::rotl(lane[3], 18) + length);
  d.high = avalanche(std::rotl(lane[3], 1) + std::rotl(lane[2], 7) + std::rotl(lane[1], 12) +
                     std::rotl(lane[0], 18) + (length ^ kPrime3));
  return d;
}

}  // namespace tokenlab::compiled
