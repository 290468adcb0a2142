// Runs the tokenlab executable as a subprocess and captures what it prints.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/temp_files.hpp"

extern char** environ;

namespace tokenlab::test {

// The fields of one CSV line (RFC 4180): a quoted field (a note with commas) is
// one field, its doubled quotes read as one.
inline std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;

  [[nodiscard]] std::vector<std::string> out_lines() const { return split_lines(out); }
  [[nodiscard]] std::string first_error_line() const {
    const auto lines = split_lines(err);
    return lines.empty() ? std::string() : lines.front();
  }
};

/// Runs program with args; stdin comes from stdin_text, stdout and stderr are
/// captured through files (no deadlock whatever the output size).
inline RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& stdin_text = {}) {
  TempDir io;
  const std::string in_path = io / "stdin";
  const std::string out_path = io / "stdout";
  const std::string err_path = io / "stderr";
  write_bytes(in_path, stdin_text);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_storage{program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + program);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_bytes(out_path);
  result.err = read_bytes(err_path);
  return result;
}

inline const std::string& cli_path() {
  static const std::string path = TOKENLAB_CLI_PATH;
  return path;
}

inline RunResult run_tokenlab(std::initializer_list<std::string> args,
                              const std::string& stdin_text = {}) {
  return run_program(cli_path(), std::vector<std::string>(args), stdin_text);
}

inline RunResult run_tokenlab(const std::vector<std::string>& args,
                              const std::string& stdin_text = {}) {
  return run_program(cli_path(), args, stdin_text);
}

inline std::string data_file(const std::string& relative) {
  return std::string(TOKENLAB_TEST_DATA_DIR) + "/" + relative;
}

// The contract for a failure: exit code 1, stderr starts with one "error: " line
// (nothing before it), and that line says what it must say.
inline void check_failure(const RunResult& r, const std::vector<std::string>& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 1);
  const std::string first = r.first_error_line();
  CHECK_THAT(first, Catch::StartsWith("error: "));
  for (const auto& word : must_mention) CHECK_THAT(first, Catch::Contains(word));
  const auto lines = split_lines(r.err);
  CHECK(std::count_if(lines.begin(), lines.end(),
                      [](const std::string& l) { return l.rfind("error:", 0) == 0; }) == 1);
}

}  // namespace tokenlab::test
