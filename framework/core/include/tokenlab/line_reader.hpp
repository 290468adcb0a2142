// File: line_reader.hpp
// Reading a text stream line by line with a bound on the line's length.
//
// std::getline buffers a line whole, however long: `count --corpus /dev/zero`
// grew to 4.2 GB before bad_alloc, and a loop `while (getline(in, line))` takes
// that bad_alloc (or an I/O error) for the end of the input and reports success
// on a truncated text. Every reader of user text uses read_bounded_line, which
// refuses a line longer than a limit before buffering more than the limit, and
// throws on a read error, so the end of the input is only ever the end.
//
//   std::string line;
//   for (std::uint64_t number = 1; read_bounded_line(in, line, path, number); ++number)
//     use(line);   // throws Error("corpus.txt:3: a line longer than ...") on abuse
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// Longest line tokenlab reads from a text file, in bytes: far above any line of
/// real text (the longest English Wikipedia article is under 2 MB), and a bound on
/// what one line can make a reader hold in memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

/// Reads the next line of in into line, without its '\n' (a '\r' before it is
/// kept: the caller decides what a CR means). Returns false at the end of the
/// input; a last line without '\n' is a line. Throws Error naming
/// "<name>:<number>" when the line is longer than max_bytes, having buffered at
/// most max_bytes + 64 KiB of it, and when the stream fails (an I/O error):
/// never returns false for anything but the end.
TOKENLAB_API bool read_bounded_line(std::istream& in, std::string& line, const std::string& name,
                                    std::uint64_t number, std::size_t max_bytes = kMaxLineBytes);

/// "a line longer than N bytes (... 64 MiB ...)": the message every reader gives.
[[nodiscard]] TOKENLAB_API std::string line_too_long_message(std::size_t max_bytes);

}  // namespace tokenlab
