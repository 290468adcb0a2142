// File: utf8.hpp
// Minimal, fast UTF-8 helpers used in hot loops (no ICU calls).
//
//   for (std::size_t i = 0; i < s.size();) { auto len = utf8::sequence_length(s, i); ... i += len;
//   }
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tokenlab/export.hpp"

namespace tokenlab::utf8 {

/// A decoded sequence: its code point and its length in bytes, 0 when the bytes
/// are not well-formed UTF-8.
struct Sequence {
  char32_t code_point;
  std::size_t length;
};

/// The sequence starting at s[pos] (pos < s.size()): its code point and length,
/// or length 0 (code point 0) if it is not well-formed (overlong, surrogate,
/// past U+10FFFF, truncated, a stray continuation byte). Inline, for the loops
/// that decode every character of a corpus; the one definition of well-formed
/// UTF-8 in the project.
inline Sequence decode_sequence(std::string_view s, std::size_t pos) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  const char32_t b0 = p[pos];
  const auto continuation = [&](std::size_t k) {
    return pos + k < n && (p[pos + k] & 0xC0) == 0x80;
  };
  if (b0 < 0x80) return {b0, 1};
  if (b0 < 0xC2) return {0, 0};  // a continuation byte, or an overlong 2-byte lead
  if (b0 < 0xE0) {
    if (continuation(1)) return {((b0 & 0x1F) << 6) | (p[pos + 1] & 0x3Fu), 2};
  } else if (b0 < 0xF0) {
    if (continuation(1) && continuation(2)) {
      const char32_t b1 = p[pos + 1];
      if (!(b0 == 0xE0 && b1 < 0xA0) && !(b0 == 0xED && b1 >= 0xA0))  // overlong, surrogate
        return {((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (p[pos + 2] & 0x3Fu), 3};
    }
  } else if (b0 < 0xF5) {
    if (continuation(1) && continuation(2) && continuation(3)) {
      const char32_t b1 = p[pos + 1];
      if (!(b0 == 0xF0 && b1 < 0x90) && !(b0 == 0xF4 && b1 >= 0x90))  // overlong, past U+10FFFF
        return {((b0 & 0x07) << 18) | ((b1 & 0x3F) << 12) | ((p[pos + 2] & 0x3Fu) << 6) |
                    (p[pos + 3] & 0x3Fu),
                4};
    }
  }
  return {0, 0};
}

/// decode_sequence for text known to be well-formed UTF-8 (a CorpusReader's
/// lines, ICU's output), p at the lead byte of a sequence of two or more bytes:
/// the lead byte alone gives the length, and nothing is checked, so malformed
/// text gives a wrong answer or a read past its end. A sixth of the
/// instructions of counting Japanese's blocks (count_block) were checks of what
/// the reader had checked already.
inline Sequence decode_well_formed(const unsigned char* p) noexcept {
  const char32_t b0 = p[0];
  if (b0 < 0xE0) return {((b0 & 0x1F) << 6) | (p[1] & 0x3Fu), 2};
  if (b0 < 0xF0) return {((b0 & 0x0F) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu), 3};
  return {((b0 & 0x07) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu), 4};
}

/// Length in bytes of the well-formed sequence starting at s[pos], or 0 if the
/// bytes there are not well-formed UTF-8 (decode_sequence's length).
TOKENLAB_API std::size_t sequence_length(std::string_view s, std::size_t pos) noexcept;

/// Byte offset of the first ill-formed sequence, or nullopt if s is valid UTF-8.
TOKENLAB_API std::optional<std::size_t> find_invalid(std::string_view s) noexcept;

namespace detail {
/// The two validators find_invalid chooses between, for tests that hold each
/// to decode_sequence's verdict: the portable DFA, and sixteen bytes at a time
/// with SSSE3 (the DFA again on a CPU or compiler without it).
TOKENLAB_API bool well_formed_portable(std::string_view s) noexcept;
TOKENLAB_API bool well_formed_vector(std::string_view s) noexcept;
}  // namespace detail

/// The length of s's leading run of ASCII bytes (below 0x80): s.size() when s is
/// all ASCII. Sixteen bytes a step with SSE2, else eight: the fast paths of
/// counting, normalizing and validating start with it.
[[nodiscard]] inline std::size_t ascii_prefix_length(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const auto high = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    if (high != 0) return i + static_cast<std::size_t>(std::countr_zero(high));
  }
#else
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= n; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      if (const std::uint64_t high = word & 0x8080808080808080ULL; high != 0)
        return i + static_cast<std::size_t>(std::countr_zero(high) >> 3);
    }
  }
#endif
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

/// s with every ill-formed sequence replaced by U+FFFD (maximal subparts, as ICU does).
TOKENLAB_API std::string replace_invalid(std::string_view s);

/// Decodes the valid sequence at s[pos]; pos must start a well-formed sequence.
TOKENLAB_API char32_t decode_at(std::string_view s, std::size_t pos) noexcept;

/// Appends the UTF-8 encoding of a code point.
TOKENLAB_API void append(std::string& out, char32_t code_point);

/// Number of code points in valid UTF-8 (counts lead bytes).
TOKENLAB_API std::size_t count_code_points(std::string_view s) noexcept;

/// Splits valid UTF-8 into one string_view per code point.
TOKENLAB_API std::vector<std::string_view> split_code_points(std::string_view s);

}  // namespace tokenlab::utf8
