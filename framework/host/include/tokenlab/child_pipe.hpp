// File: child_pipe.hpp
// The line protocol a forked child (check-plugin's isolated run, tokenlab grade's
// items) reports through to its parent: whole writes, whole reads, one event per
// line with tab-separated fields.
//
//   write_all(fd, "R\t" + one_line(detail) + "\n");   // in the child
//   const std::string lines = read_all(fd);           // in the parent, to EOF
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <string>

namespace tokenlab {

/// text as one field of a line: newlines and tabs become spaces.
inline std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

/// Writes all of text to fd, retrying interrupted writes; stops quietly if the
/// reader has gone (the parent then sees a report without its end marker).
inline void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

/// Everything fd delivers until end of file (or an error).
inline std::string read_all(int fd) {
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

}  // namespace tokenlab
