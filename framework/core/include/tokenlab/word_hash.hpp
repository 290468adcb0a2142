// File: word_hash.hpp
// The hash that counting tables place words by, and their word compare, inline: counting hashes
// every word of the corpus, and a call per word cost more than the hash itself.
//
// Words are short (most under 16 bytes), so it reads them in at most two
// overlapping loads and one 64x64-bit multiply; std::hash (MurmurHash2) took a
// sixth of counting. Tables keep their entries in insertion order, so no output
// depends on the hash, and it is not stable across versions.
#pragma once

#include <bit>
#include <cstddef>
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

// The first n <= 16 bytes at p as two 64-bit words in the machine's byte
// order, as if copied into 16 zero bytes and loaded from there, reading only
// those n bytes: little-endian machines put them together from at most two
// overlapping loads (three single bytes below 4).
inline void short_word_parts(const char* p, std::size_t n, std::uint64_t& low,
                             std::uint64_t& high) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    high = 0;
    if (n >= 8) {
      low = load_u64(p);
      // Bytes 8 to n-1 from the load ending at byte n, in two shifts of at
      // most 32 bits: for n == 8 one shift would be by 64, which is undefined.
      const unsigned drop = 8 * static_cast<unsigned>(16 - n);
      high = (load_u64(p + n - 8) >> (drop / 2)) >> (drop - drop / 2);
    } else if (n >= 4) {
      low = load_u32(p) | (load_u32(p + n - 4) << (8 * (n - 4)));
    } else if (n > 0) {
      low = static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) |
            (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n >> 1])) << (8 * (n >> 1))) |
            (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << (8 * (n - 1)));
    } else {
      low = 0;
    }
  } else {
    char padded[16] = {};
    std::memcpy(padded, p, n);
    low = load_u64(padded);
    high = load_u64(padded + 8);
  }
}

// Masks that keep the first n bytes (n <= 16) of two little-endian loads of 8.
struct ShortWordMasks {
  std::uint64_t low[17] = {};
  std::uint64_t high[17] = {};
  constexpr ShortWordMasks() {
    for (std::size_t n = 0; n <= 16; ++n) {
      const std::size_t in_low = n < 8 ? n : 8;
      const std::size_t in_high = n - in_low;
      low[n] = in_low == 8 ? ~0ULL : (1ULL << (8 * in_low)) - 1;
      high[n] = in_high == 8 ? ~0ULL : (1ULL << (8 * in_high)) - 1;
    }
  }
};
inline constexpr ShortWordMasks kShortWordMasks{};

inline constexpr std::uint64_t kHashK0 = 0xa0761d6478bd642fULL;
inline constexpr std::uint64_t kHashK1 = 0xe7037ed1a0b428dbULL;

inline std::uint64_t hash_start(std::size_t n, std::uint64_t seed) noexcept {
  return kHashK0 ^ n ^ (seed * 0x8ebc6af09c88c6e3ULL);
}

// word_hash of a word of n <= 16 bytes from its two numbers (short_word_parts):
// for a table that keeps those numbers to compare words by.
inline std::uint64_t short_word_hash(std::uint64_t low, std::uint64_t high, std::size_t n,
                                     std::uint64_t seed) noexcept {
  return fold_multiply(low ^ kHashK1, high ^ hash_start(n, seed));
}

// word_hash of a word longer than 16 bytes.
inline std::uint64_t long_word_hash(const char* p, std::size_t n, std::uint64_t seed) noexcept {
  std::uint64_t mixed = hash_start(n, seed);
  for (std::size_t i = 0; i + 16 < n; i += 16)
    mixed = fold_multiply(load_u64(p + i) ^ kHashK1, load_u64(p + i + 8) ^ mixed);
  return fold_multiply(load_u64(p + n - 16) ^ kHashK1, load_u64(p + n - 8) ^ mixed);
}

}  // namespace detail

/// A 64-bit hash of word. Different seeds give unrelated hashes of the same
/// bytes (a table keys a word and a flag by hashing the word with the flag).
/// A word of up to 16 bytes is hashed as its bytes zero-padded to 16, read
/// as two numbers, with one multiply; a longer one 16 bytes a multiply.
[[nodiscard]] inline std::uint64_t word_hash(std::string_view word,
                                             std::uint64_t seed = 0) noexcept {
  const std::size_t n = word.size();
  if (n > 16) return detail::long_word_hash(word.data(), n, seed);
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  detail::short_word_parts(word.data(), n, low, high);
  return detail::short_word_hash(low, high, n, seed);
}

/// word_hash(word, seed), for a word followed by at least 16 - word.size()
/// readable bytes (whatever they hold): a word of up to 16 bytes is then read
/// as two whole loads, masked, with no branch on its length, which a corpus's
/// mix of lengths mispredicts.
[[nodiscard]] inline std::uint64_t word_hash_16_readable(std::string_view word,
                                                         std::uint64_t seed = 0) noexcept {
  const std::size_t n = word.size();
  if (n > 16) return detail::long_word_hash(word.data(), n, seed);
  if constexpr (std::endian::native != std::endian::little) {
    return word_hash(word, seed);  // the masks keep a little-endian load's first bytes
  } else {
    const std::uint64_t low = detail::load_u64(word.data()) & detail::kShortWordMasks.low[n];
    const std::uint64_t high = detail::load_u64(word.data() + 8) & detail::kShortWordMasks.high[n];
    return detail::short_word_hash(low, high, n, seed);
  }
}

}  // namespace tokenlab
