// File: byte_level/short_key.hpp (private to tokenlab_pretrained)
// A byte string of at most 23 bytes packed into three 64-bit words, its length
// in the last byte: what the byte-level encoder's vocabulary table and piece
// cache key their slots by. Comparing two keys is three word compares and no
// pointer chase, which is why a probe touches one cache line.
//
//   const ShortKey k = ShortKey::of(" the");   // k.fits(), k.length() == 4
//   table_index = k.hash() >> shift;
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tokenlab::byte_level_detail {

struct ShortKey {
  static constexpr std::size_t kMaxBytes = 23;

  std::uint64_t w[3] = {0, 0, 0};

  /// The key of bytes; only meaningful when bytes.size() <= kMaxBytes.
  static ShortKey of(std::string_view bytes) noexcept {
    ShortKey k;
    std::memcpy(k.w, bytes.data(), bytes.size() <= kMaxBytes ? bytes.size() : 0);
    k.w[2] |= static_cast<std::uint64_t>(bytes.size()) << 56;
    return k;
  }
  /// The key of text.substr(start, size) (size <= kMaxBytes): three loads
  /// masked to the length where 24 bytes can be read, else a copy.
  static ShortKey of(std::string_view text, std::size_t start, std::size_t size) noexcept {
    if (text.size() - start < 24) return of(text.substr(start, size));
    ShortKey k;
    std::memcpy(k.w, text.data() + start, 24);
    const std::size_t n = size;
    k.w[0] &= mask(n);
    k.w[1] &= mask(n > 8 ? n - 8 : 0);
    k.w[2] &= mask(n > 16 ? n - 16 : 0);
    k.w[2] |= static_cast<std::uint64_t>(n) << 56;
    return k;
  }
  [[nodiscard]] std::size_t length() const noexcept { return w[2] >> 56; }
  [[nodiscard]] bool empty() const noexcept { return w[2] == 0 && w[0] == 0 && w[1] == 0; }
  friend bool operator==(const ShortKey& a, const ShortKey& b) noexcept {
    return ((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1]) | (a.w[2] ^ b.w[2])) == 0;
  }
  /// The low `bytes` bytes (at most 8) set.
  static std::uint64_t mask(std::size_t bytes) noexcept {
    return bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
  }
  /// Well mixed in the high bits, which both tables index by.
  [[nodiscard]] std::uint64_t hash() const noexcept {
    std::uint64_t h = (w[0] * 0x9E3779B97F4A7C15ull) ^ (w[1] * 0xC2B2AE3D27D4EB4Full) ^
                      (w[2] * 0x165667B19E3779F9ull);
    h ^= h >> 31;
    return h * 0xD6E8FEB86659FD93ull;
  }
};

}  // namespace tokenlab::byte_level_detail
