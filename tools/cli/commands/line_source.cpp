#include "commands/line_source.hpp"

#include <filesystem>
#include <iostream>
#include <system_error>

#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"

namespace tokenlab::cli {

std::istream& open_text_input(const std::string& path, std::ifstream& file, std::string& name) {
  if (path.empty() || path == "-") {
    name = "<stdin>";
    return std::cin;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
  file.open(path, std::ios::binary);
  if (!file) throw Error(path + ": cannot open");
  name = path;
  return file;
}

LineSource::LineSource(const std::string& path) : in_(&open_text_input(path, file_, name_)) {}

bool LineSource::next(std::string& line) {
  // Ends only at the end: a read error or an overlong line throws.
  if (!read_bounded_line(*in_, line, name_, number_ + 1)) return false;
  ++number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace tokenlab::cli
