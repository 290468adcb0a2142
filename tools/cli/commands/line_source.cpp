#include "commands/line_source.hpp"

#include <filesystem>
#include <iostream>
#include <system_error>

#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"

namespace tokenlab::cli {

LineSource::LineSource(const std::string& path) {
  if (path.empty() || path == "-") {
    in_ = &std::cin;
    name_ = "<stdin>";
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
  file_.open(path, std::ios::binary);
  if (!file_) throw Error(path + ": cannot open");
  in_ = &file_;
  name_ = path;
}

bool LineSource::next(std::string& line) {
  // Ends only at the end: a read error or an overlong line throws.
  if (!read_bounded_line(*in_, line, name_, number_ + 1)) return false;
  ++number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace tokenlab::cli
