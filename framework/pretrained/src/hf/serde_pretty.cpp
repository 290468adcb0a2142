#include "hf/serde_pretty.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace tokenlab::hf {
namespace {

void indent(std::string& out, int depth) {
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
}

void write(std::string& out, const rapidjson::Value& value, int depth) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      return;
    case rapidjson::kFalseType:
      out += "false";
      return;
    case rapidjson::kTrueType:
      out += "true";
      return;
    case rapidjson::kStringType:
      append_serde_string(out, {value.GetString(), value.GetStringLength()});
      return;
    case rapidjson::kNumberType:
      if (value.IsUint64())
        out += std::to_string(value.GetUint64());
      else if (value.IsInt64())
        out += std::to_string(value.GetInt64());
      else
        out += serde_float(value.GetDouble());
      return;
    case rapidjson::kArrayType: {
      if (value.Empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      bool first = true;
      for (const auto& element : value.GetArray()) {
        if (!first) out += ",\n";
        first = false;
        indent(out, depth + 1);
        write(out, element, depth + 1);
      }
      out += '\n';
      indent(out, depth);
      out += ']';
      return;
    }
    case rapidjson::kObjectType: {
      if (value.ObjectEmpty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      bool first = true;
      for (const auto& member : value.GetObject()) {
        if (!first) out += ",\n";
        first = false;
        indent(out, depth + 1);
        append_serde_string(out, {member.name.GetString(), member.name.GetStringLength()});
        out += ": ";
        write(out, member.value, depth + 1);
      }
      out += '\n';
      indent(out, depth);
      out += '}';
      return;
    }
  }
}

}  // namespace

void append_serde_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

std::string serde_float(double value) {
  if (!std::isfinite(value)) return "null";  // serde_json writes non-finite floats as null
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // The shortest round-trip digits and exponent, then ryu's layout rules.
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value),
                                       std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<std::size_t>(end - buffer));
  const std::size_t e = sci.find('e');
  std::string digits(sci.substr(0, e));
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int length = static_cast<int>(digits.size());
  const int k = exponent - length + 1;  // value = digits * 10^k
  const int kk = length + k;            // 10^(kk-1) <= value < 10^kk
  std::string out = value < 0 ? "-" : "";
  if (k >= 0 && kk <= 16) {
    out += digits;
    out.append(static_cast<std::size_t>(k), '0');
    out += ".0";
  } else if (kk > 0 && kk <= 16) {
    out += digits.substr(0, static_cast<std::size_t>(kk));
    out += '.';
    out += digits.substr(static_cast<std::size_t>(kk));
  } else if (kk > -5 && kk <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-kk), '0');
    out += digits;
  } else {
    out += digits.substr(0, 1);
    if (length > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += std::to_string(kk - 1);
  }
  return out;
}

std::string serde_pretty(const rapidjson::Value& value) {
  std::string out;
  write(out, value, 0);
  return out;
}

}  // namespace tokenlab::hf
