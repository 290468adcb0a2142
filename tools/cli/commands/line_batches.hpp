// File: commands/line_batches.hpp
// The lines of --input or stdin, read a block at a time for `tokenlab encode`.
//
// LineSource (line_source.hpp) hands out one std::string a line: a getline into
// a buffer, a copy into the line, another into the caller's batch, and the
// UTF-8 check after it, all on the thread that then waits for the batch's
// encoding. Here a batch is one buffer filled by large reads and the lines are
// views into it, so the reading thread only cuts lines (memchr) and the
// encoding threads check them. Lines are what read_bounded_line gives: cut at
// '\n', a '\r' before it dropped, a last line without '\n' kept when not
// empty, a line over kMaxLineBytes an Error naming its number.
//
//   LineBatchReader reader(path);   // "" or "-": stdin
//   LineBatch batch;
//   while (reader.next(batch, 8192)) use(batch.lines, batch.first_line);
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace tokenlab::cli {

struct LineBatch {
  std::string text;                     // the bytes the lines are views into
  std::vector<std::string_view> lines;  // without '\n' and a '\r' before it
  std::uint64_t first_line = 1;         // the 1-based number of lines[0]
};

class LineBatchReader {
 public:
  /// Opens path, or stdin for "" and "-". Throws Error for a directory or a file
  /// that cannot be opened.
  explicit LineBatchReader(const std::string& path);
  /// Fills batch with the next lines: at most max_lines, and fewer once the
  /// batch holds kBatchBytes (a batch of long lines stays a few MiB). Returns
  /// false, with no lines, at the end of the input. Throws Error naming
  /// "<name>:<line>" for a line longer than kMaxLineBytes or a read error.
  bool next(LineBatch& batch, std::size_t max_lines);
  /// "<stdin>" or the path, as errors name it.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  static constexpr std::size_t kBatchBytes = std::size_t{4} << 20;
  static constexpr std::size_t kReadBytes = std::size_t{1} << 20;

 private:
  // Appends up to kReadBytes to text; false at the end of the input.
  bool read_more(std::string& text);

  std::ifstream file_;
  std::istream* in_ = nullptr;
  std::string name_;
  std::string carry_;  // bytes read after the last batch's last line
  bool at_end_ = false;
  std::uint64_t next_line_ = 1;
};

}  // namespace tokenlab::cli
