// Base64 (RFC 4648, padded) for the tests that write tiktoken rank files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace tokenlab::test {

inline std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = 0;
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    for (std::size_t j = 0; j < 3; ++j)
      chunk = (chunk << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    for (std::size_t j = 0; j < 4; ++j)
      out += j <= n ? kAlphabet[(chunk >> (18 - 6 * j)) & 63] : '=';
  }
  return out;
}

}  // namespace tokenlab::test
