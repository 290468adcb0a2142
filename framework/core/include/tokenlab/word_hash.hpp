// File: word_hash.hpp
// The hash that counting tables place words by, and their word compare, inline: counting hashes
// every word of the corpus, and a call per word cost more than the hash itself.
//
// Words are short (most under 16 bytes), so it reads them in at most two
// overlapping loads and one 64x64-bit multiply; std::hash (MurmurHash2) took a
// sixth of counting. Tables keep their entries in insertion order, so no output
// depends on the hash, and it is not stable across versions.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tokenlab {

namespace detail {

inline std::uint64_t load_u64(const char* p) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint64_t load_u32(const char* p) noexcept {
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

// The high and low halves of a 64x64-bit product, folded: one multiply mixes
// every input bit into every output bit.
__extension__ typedef unsigned __int128 uint128;  // GCC and Clang; __extension__: not ISO
inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) noexcept {
  const uint128 product = static_cast<uint128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

// a[0, n) == b[0, n) for the short words of a corpus without a call to memcmp:
// two overlapping loads cover up to 16 bytes, and below 4 the first, middle and
// last bytes are all of them.
inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return load_u64(a) == load_u64(b) && load_u64(a + n - 8) == load_u64(b + n - 8);
  }
  if (n >= 4) return load_u32(a) == load_u32(b) && load_u32(a + n - 4) == load_u32(b + n - 4);
  return n == 0 || (a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1]);
}

}  // namespace detail

/// A 64-bit hash of word. Different seeds give unrelated hashes of the same
/// bytes (a table keys a word and a flag by hashing the word with the flag).
[[nodiscard]] inline std::uint64_t word_hash(std::string_view word,
                                             std::uint64_t seed = 0) noexcept {
  using detail::fold_multiply;
  using detail::load_u32;
  using detail::load_u64;
  constexpr std::uint64_t k0 = 0xa0761d6478bd642fULL;
  constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbULL;
  const char* p = word.data();
  const std::size_t n = word.size();
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint64_t mixed = k0 ^ n ^ (seed * 0x8ebc6af09c88c6e3ULL);
  if (n >= 8) {
    std::size_t i = 0;
    for (; i + 16 < n; i += 16)
      mixed = fold_multiply(load_u64(p + i) ^ k1, load_u64(p + i + 8) ^ mixed);
    a = load_u64(p + (n >= 16 ? n - 16 : 0));
    b = load_u64(p + n - 8);
  } else if (n >= 4) {
    a = load_u32(p);
    b = load_u32(p + n - 4);
  } else if (n > 0) {
    a = (static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) << 16) |
        (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n >> 1])) << 8) |
        static_cast<unsigned char>(p[n - 1]);
  }
  return fold_multiply(a ^ k1, b ^ mixed);
}

}  // namespace tokenlab
