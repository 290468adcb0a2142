// Base64 (RFC 4648, padded) for the tests that write tiktoken rank files:
//   base64("he") == "aGU="
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace tokenlab::test {

inline constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

inline std::string base64(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t j = 0; j < 3; ++j)
      chunk = (chunk << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    for (std::size_t j = 0; j < 4; ++j)
      out += j <= n ? kBase64Alphabet[(chunk >> (18 - 6 * j)) & 63] : '=';
  }
  return out;
}

}  // namespace tokenlab::test
