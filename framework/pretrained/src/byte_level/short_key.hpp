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
  /// Always inlined, as load_partial and ByteTable's lookups by bytes are:
  /// GCC took them out of line once merge_of grew a branch, and the calls
  /// cost o200k's encoding 1.2% more instructions (cachegrind).
  [[gnu::always_inline]] static ShortKey of(std::string_view bytes) noexcept {
    // Loads into registers, not a memcpy of a variable length (a library call,
    // and a key stored in pieces that the next load of it could not forward).
    const std::size_t n = bytes.size();
    const char* p = bytes.data();
    ShortKey k;
    if (n <= kMaxBytes) {
      k.w[0] = load_partial(p, n < 8 ? n : 8);
      if (n > 8) k.w[1] = load_partial(p + 8, n < 16 ? n - 8 : 8);
      if (n > 16) k.w[2] = load_partial(p + 16, n - 16);
    }
    k.w[2] |= static_cast<std::uint64_t>(n) << 56;
    return k;
  }
  /// The n <= 8 bytes at p as the low bytes of a little-endian word, the rest 0.
  [[gnu::always_inline]] static std::uint64_t load_partial(const char* p, std::size_t n) noexcept {
    if (n >= 8) {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    if (n >= 4) {  // two 4-byte loads that overlap; the shared bytes agree
      std::uint32_t low;
      std::uint32_t high;
      std::memcpy(&low, p, 4);
      std::memcpy(&high, p + n - 4, 4);
      return low | static_cast<std::uint64_t>(high) << (8 * (n - 4));
    }
    if (n == 0) return 0;
    const auto byte = [&](std::size_t i) {
      return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    };
    return byte(0) | byte(n / 2) | byte(n - 1);
  }
  /// The key of text.substr(start, size) (size <= kMaxBytes): three loads
  /// masked to the length where 24 bytes can be read, else a copy.
  static ShortKey of(std::string_view text, std::size_t start, std::size_t size) noexcept {
    if (text.size() - start < 24) return of(text.substr(start, size));
    // Three loads into registers, masked there: copying the 24 bytes into the
    // key and masking it in place stored 8-byte words that the next 16-byte
    // load of the key could not forward (a stall per piece, a fifth of the
    // encode loop in the profile).
    const char* bytes = text.data() + start;
    std::uint64_t w0;
    std::uint64_t w1;
    std::uint64_t w2;
    std::memcpy(&w0, bytes, 8);
    std::memcpy(&w1, bytes + 8, 8);
    std::memcpy(&w2, bytes + 16, 8);
    const std::size_t n = size;
    ShortKey k;
    k.w[0] = w0 & mask(n);
    k.w[1] = w1 & mask(n > 8 ? n - 8 : 0);
    k.w[2] = (w2 & mask(n > 16 ? n - 16 : 0)) | static_cast<std::uint64_t>(n) << 56;
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
