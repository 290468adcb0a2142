#include "tokenlab/utf8.hpp"

namespace tokenlab::utf8 {

std::size_t sequence_length(std::string_view s, std::size_t pos) noexcept {
  return decode_sequence(s, pos).length;
}

// Flattened: GCC kept decode_sequence out of line, a call per non-ASCII
// character of every line a corpus reader checks (a tenth of counting Hindi).
[[gnu::flatten]] std::optional<std::size_t> find_invalid(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // Skip ASCII eight bytes at a time: most corpus text is mostly ASCII.
    while (i + 8 <= n) {
      std::uint64_t chunk;
      __builtin_memcpy(&chunk, s.data() + i, 8);
      if (chunk & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    const std::size_t len = decode_sequence(s, i).length;
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

namespace {

// Bytes of the ill-formed sequence at s[i] that get one U+FFFD: the longest prefix
// of a well-formed sequence ("maximal subpart", Unicode 3.9 / W3C), at least 1.
std::size_t maximal_subpart(std::string_view s, std::size_t i) noexcept {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = at(i);
  std::size_t expected = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    expected = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF)
    expected = 3;
  else if (b0 >= 0xF0 && b0 <= 0xF4)
    expected = 4;
  if (expected == 0) return 1;
  if (b0 == 0xE0) lo = 0xA0;
  if (b0 == 0xED) hi = 0x9F;
  if (b0 == 0xF0) lo = 0x90;
  if (b0 == 0xF4) hi = 0x8F;
  if (i + 1 >= s.size() || at(i + 1) < lo || at(i + 1) > hi) return 1;
  std::size_t n = 2;
  while (n < expected && i + n < s.size() && (at(i + n) & 0xC0) == 0x80) ++n;
  return n;
}

}  // namespace

std::string replace_invalid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = sequence_length(s, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      i += maximal_subpart(s, i);
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

char32_t decode_at(std::string_view s, std::size_t pos) noexcept {
  const auto b = [&](std::size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i]));
  };
  const char32_t b0 = b(pos);
  if (b0 < 0x80) return b0;
  if (b0 < 0xE0) return ((b0 & 0x1F) << 6) | (b(pos + 1) & 0x3F);
  if (b0 < 0xF0) return ((b0 & 0x0F) << 12) | ((b(pos + 1) & 0x3F) << 6) | (b(pos + 2) & 0x3F);
  return ((b0 & 0x07) << 18) | ((b(pos + 1) & 0x3F) << 12) | ((b(pos + 2) & 0x3F) << 6) |
         (b(pos + 3) & 0x3F);
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::size_t count_code_points(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::vector<std::string_view> split_code_points(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = sequence_length(s, i);
    if (len == 0) len = 1;  // tolerate bad bytes: one unit each
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace tokenlab::utf8
