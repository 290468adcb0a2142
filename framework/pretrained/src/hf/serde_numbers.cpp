#include "hf/serde_numbers.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tokenlab::detail {

// HF tokenizers reads JSON numbers with serde_json's default parser, which is
// not correctly rounded: the digits as a u64, converted to double, then one
// multiplication or division by a power of ten (de.rs f64_from_parts without
// the float_roundtrip feature). A score can come out one ulp from the correctly
// rounded value RapidJSON gives, and Viterbi ties between two segmentations then
// go the other way (HF-trained Unigram, "AmIII" on Wikipedia). Files HF writes
// hold the shortest round-trip digits of each score (ryu), which std::to_chars
// gives back from the correctly rounded value, so serde's result is recomputed
// from those digits.
double as_serde_json_reads(double value) {
  if (!std::isfinite(value) || value == 0.0) return value;
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  if (ec != std::errc()) return value;
  return serde_json_parse(std::string_view(text, static_cast<std::size_t>(end - text)));
}

double serde_json_parse(std::string_view digits) {
  static const std::array<double, 309> kPow10 = [] {
    std::array<double, 309> table{};
    for (std::size_t k = 0; k < table.size(); ++k)
      table[k] = std::strtod(("1e" + std::to_string(k)).c_str(), nullptr);  // as rustc's literals
    return table;
  }();
  if (digits.empty()) return 0.0;
  const bool negative = digits.front() == '-';
  std::uint64_t significand = 0;
  std::int32_t exponent = 0;
  bool fraction = false;
  bool overflowed = false;
  std::size_t i = negative ? 1 : 0;
  for (; i < digits.size() && digits[i] != 'e' && digits[i] != 'E'; ++i) {
    if (digits[i] == '.') {
      fraction = true;
      continue;
    }
    const auto digit = static_cast<std::uint64_t>(digits[i] - '0');
    // serde: once the next digit would overflow, integer digits only scale the
    // exponent and fraction digits are dropped.
    if (overflowed || significand > (UINT64_MAX - digit) / 10) {
      overflowed = true;
      if (!fraction) ++exponent;
      continue;
    }
    significand = significand * 10 + digit;
    if (fraction) --exponent;
  }
  if (i < digits.size()) {
    std::string_view e = digits.substr(i + 1);
    if (!e.empty() && e.front() == '+') e.remove_prefix(1);
    int value = 0;
    std::from_chars(e.data(), e.data() + e.size(), value);
    exponent += value;
  }
  double f = static_cast<double>(significand);
  for (;;) {
    const std::size_t magnitude = static_cast<std::size_t>(exponent < 0 ? -exponent : exponent);
    if (magnitude < kPow10.size()) {
      if (exponent >= 0)
        f *= kPow10[magnitude];
      else
        f /= kPow10[magnitude];
      break;
    }
    if (f == 0.0 || exponent >= 0) break;
    f /= 1e308;
    exponent += 308;
  }
  return negative ? -f : f;
}

std::string serde_exact_digits(double score) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, score);
  std::string shortest(text, ec == std::errc() ? static_cast<std::size_t>(end - text) : 0);
  if (!std::isfinite(score) || serde_json_parse(shortest) == score) return shortest;
  // More digits than the shortest: serde's one rounding of the significand and
  // one of the scaling usually cancel at 17 to 19 significant digits.
  for (const int precision : {17, 18, 19}) {
    std::snprintf(text, sizeof text, "%.*g", precision, score);
    if (serde_json_parse(text) == score) return text;
  }
  return shortest;
}

}  // namespace tokenlab::detail
