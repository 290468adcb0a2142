// File: commands/id_text.hpp
// Token ids as the decimal text `tokenlab encode` writes: "15339 1917\n".
// An id below 10^7 becomes its digits and a space in one 8-byte word, built
// from four two-digit pairs (a 200-byte table that stays in L1) by divisions
// by constants, its leading zeros shifted out by the digit count, which is
// worked out by comparisons; larger ids (none in a valid encoding, but the
// caller checks that after) go through std::to_chars. std::to_chars on every
// id branched on its number of digits, which varies from id to id (a tenth of
// a whole `tokenlab encode` run); a table of every id's digits (1.6 MB for
// o200k) missed the cache on most ids (8% of a run, most of it waiting).
//
//   IdText text;
//   text.append_line(ids, out);   // out += "15339 1917\n"
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab::cli {

class IdText {
 public:
  /// Appends the ids separated by single spaces, then a newline.
  void append_line(const std::vector<TokenId>& ids, std::string& out) const {
    // Written in a scratch buffer that only grows, then appended: resizing out
    // for the worst case zero-filled 11 bytes an id, twice what is written.
    // Room for 8-byte stores, and for ten digits and a space past 10^7.
    thread_local std::string scratch;
    if (scratch.size() < ids.size() * 11 + 8) scratch.resize(ids.size() * 11 + 8);
    char* const first = scratch.data();
    char* p = first;
    for (const TokenId id : ids) {
      if (id < 10'000'000) {
        const std::uint64_t word = digits_and_space(id);
        std::memcpy(p, &word, 8);
        p += length_with_space(id);
      } else {
        p = std::to_chars(p, p + 10, id).ptr;
        *p++ = ' ';
      }
    }
    if (!ids.empty()) --p;  // the last space becomes the newline
    *p++ = '\n';
    out.append(first, static_cast<std::size_t>(p - first));
  }

 private:
  // "00" to "99", two bytes each, the first digit in the first byte.
  static constexpr std::array<std::uint16_t, 100> kPairs = [] {
    std::array<std::uint16_t, 100> pairs{};
    for (unsigned n = 0; n < 100; ++n)
      pairs[n] = static_cast<std::uint16_t>(('0' + n / 10) | (('0' + n % 10) << 8));
    return pairs;
  }();

  // The digits of id (below 10^7) and the space after them, as the bytes of a
  // little-endian word (the first digit first); the bytes past the space are
  // spaces too.
  static std::uint64_t digits_and_space(TokenId id) noexcept {
    const std::uint32_t high = id / 10'000;
    const std::uint32_t low = id % 10'000;
    const std::uint64_t eight = std::uint64_t{kPairs[high / 100]} |
                                std::uint64_t{kPairs[high % 100]} << 16 |
                                std::uint64_t{kPairs[low / 100]} << 32 |
                                std::uint64_t{kPairs[low % 100]} << 48;  // 8 digits, zero-padded
    const std::size_t zeros = 9 - length_with_space(id);                 // leading zeros (>= 1)
    return (eight >> (zeros * 8)) | (0x2020202020202020ull << ((8 - zeros) * 8));
  }

  // The digits of id (below 10^7) and the space after them.
  static std::size_t length_with_space(TokenId id) noexcept {
    return 2 + std::size_t{id >= 10} + std::size_t{id >= 100} + std::size_t{id >= 1000} +
           std::size_t{id >= 10000} + std::size_t{id >= 100000} + std::size_t{id >= 1000000};
  }
};

}  // namespace tokenlab::cli
