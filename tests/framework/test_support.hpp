// Helpers shared by the framework tests: scratch directories and small files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/temp_files.hpp"

namespace tokenlab::test {

/// Runs a shell command (used to make .gz and .xz files with the real tools).
inline void shell(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("command failed: " + command);
}

/// Quotes a path for the shell.
inline std::string quoted(const std::filesystem::path& path) {
  std::string out = "'";
  for (const char c : path.string()) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace tokenlab::test
