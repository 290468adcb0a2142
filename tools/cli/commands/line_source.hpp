// File: commands/line_source.hpp
// The text that encode and decode read: lines from --input or stdin.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <string>

namespace tokenlab::cli {

/// --input's stream: stdin for "" and "-" (named "<stdin>"), else path opened
/// into file (named path). Throws Error for a directory or a file that cannot
/// be opened. Shared by LineSource and LineBatchReader (line_batches.hpp).
std::istream& open_text_input(const std::string& path, std::ifstream& file, std::string& name);

// Reads lines from --input or stdin.
class LineSource {
 public:
  explicit LineSource(const std::string& path);
  bool next(std::string& line);
  [[nodiscard]] std::string where() const { return name_ + ":" + std::to_string(number_); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::uint64_t line_number() const noexcept { return number_; }

 private:
  // In this order: the constructor opens file_ and names name_ to set in_.
  std::ifstream file_;
  std::string name_;
  std::istream* in_ = nullptr;
  std::uint64_t number_ = 0;
};

}  // namespace tokenlab::cli
