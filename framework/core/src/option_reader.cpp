#include "tokenlab/option_reader.hpp"

#include <charconv>
#include <sstream>

#include "tokenlab/error.hpp"

namespace tokenlab {

OptionReader::OptionReader(std::string plugin, const std::map<std::string, std::string>& values,
                           Spec spec)
    : plugin_(std::move(plugin)), values_(values), spec_(std::move(spec)) {
  for (const auto& [key, value] : values_) {
    bool known = false;
    for (const auto& s : spec_) known = known || s.first == key;
    if (!known) {
      throw Error("unknown option '" + key + "' for " + plugin_ +
                  "; valid options: " + (spec_.empty() ? std::string("(none)") : describe()));
    }
  }
}

bool OptionReader::has(const std::string& key) const {
  return values_.count(key) > 0;
}

std::string OptionReader::get_string(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::string OptionReader::get_choice(const std::string& key,
                                     const std::vector<std::string>& choices,
                                     const std::string& fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  for (const auto& c : choices)
    if (c == it->second) return c;
  std::string expected;
  for (const auto& c : choices) expected += (expected.empty() ? "" : "|") + c;
  fail(key, it->second, expected);
}

double OptionReader::get_double(const std::string& key, double fallback, double min,
                                double max) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::istringstream in(it->second);
  double v = 0;
  in >> v;
  if (!in || !in.eof() || v < min || v > max) {
    std::ostringstream expected;
    expected << "a number in [" << min << ", " << max << "]";
    fail(key, it->second, expected.str());
  }
  return v;
}

std::uint64_t OptionReader::get_uint(const std::string& key, std::uint64_t fallback,
                                     std::uint64_t min, std::uint64_t max) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::uint64_t v = 0;
  const auto& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < min || v > max)
    fail(key, s, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

bool OptionReader::get_bool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto& v = it->second;
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  fail(key, v, "true|false");
}

std::string OptionReader::describe() const {
  std::string out;
  for (const auto& [key, help] : spec_) {
    if (!out.empty()) out += ", ";
    out += key + " (" + help + ")";
  }
  return out;
}

void OptionReader::fail(const std::string& key, const std::string& value,
                        const std::string& expected) const {
  throw Error("bad value '" + value + "' for " + plugin_ + " option '" + key + "': expected " +
              expected);
}

}  // namespace tokenlab
