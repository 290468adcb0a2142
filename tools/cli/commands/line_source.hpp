// File: commands/line_source.hpp
// The text that encode and decode read: lines from --input or stdin.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <string>

namespace tokenlab::cli {

// Reads lines from --input or stdin.
class LineSource {
 public:
  explicit LineSource(const std::string& path);
  bool next(std::string& line);
  [[nodiscard]] std::string where() const { return name_ + ":" + std::to_string(number_); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::uint64_t line_number() const noexcept { return number_; }

 private:
  std::ifstream file_;
  std::istream* in_ = nullptr;
  std::string name_;
  std::uint64_t number_ = 0;
};

}  // namespace tokenlab::cli
