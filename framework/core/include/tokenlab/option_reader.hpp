// File: option_reader.hpp
// Typed, validated access to TrainOptions::extra for plugin authors.
//
//   OptionReader reader("bpe", options.extra, {{"units", "chars|bytes (default chars)"},
//                                              {"dropout", "0..1 (default 0)"}});
//   std::string units = reader.get_choice("units", {"chars", "bytes"}, "chars");
//   double p = reader.get_double("dropout", 0.0, 0.0, 1.0);
//
// The constructor throws Error if extra holds a key not in the list; the message
// names the plugin, the bad key and every valid key with its help text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

class TOKENLAB_API OptionReader {
 public:
  using Spec = std::vector<std::pair<std::string, std::string>>;  // key, help

  OptionReader(std::string plugin, const std::map<std::string, std::string>& values, Spec spec);

  [[nodiscard]] bool has(const std::string& key) const;
  [[nodiscard]] std::string get_string(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] std::string get_choice(const std::string& key,
                                       const std::vector<std::string>& choices,
                                       const std::string& fallback) const;
  [[nodiscard]] double get_double(const std::string& key, double fallback, double min,
                                  double max) const;
  [[nodiscard]] std::uint64_t get_uint(const std::string& key, std::uint64_t fallback,
                                       std::uint64_t min, std::uint64_t max) const;
  [[nodiscard]] bool get_bool(const std::string& key, bool fallback) const;

  /// "key (help), key (help), ..." for messages and --help.
  [[nodiscard]] std::string describe() const;

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& value,
                         const std::string& expected) const;

  std::string plugin_;
  const std::map<std::string, std::string>& values_;
  Spec spec_;
};

}  // namespace tokenlab
