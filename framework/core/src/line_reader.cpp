#include "tokenlab/line_reader.hpp"

#include <array>
#include <istream>

#include "tokenlab/error.hpp"

namespace tokenlab {

std::string line_too_long_message(std::size_t max_bytes) {
  return "a line longer than " + std::to_string(max_bytes) +
         " bytes, tokenlab's limit for one line (is this a binary file, or text without line "
         "breaks?)";
}

bool read_bounded_line(std::istream& in, std::string& line, const std::string& name,
                       std::uint64_t number, std::size_t max_bytes) {
  line.clear();
  std::array<char, 64 * 1024> chunk;  // NOLINT: filled by getline before it is read
  for (;;) {
    // istream::getline stores at most size - 1 characters and sets failbit when
    // it stops for that reason; libstdc++ scans the stream's buffer with memchr.
    in.getline(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw Error(name + ":" + std::to_string(number) + ": read error (an I/O error)");
    const bool at_end = in.eof();                                     // no '\n' was extracted
    const bool chunk_full = !at_end && in.fail();                     // nor here: the line goes on
    line.append(chunk.data(), at_end || chunk_full ? got : got - 1);  // got counts a '\n'
    if (line.size() > max_bytes)
      throw Error(name + ":" + std::to_string(number) + ": " + line_too_long_message(max_bytes));
    if (!chunk_full) return !at_end || !line.empty();
    in.clear();
  }
}

}  // namespace tokenlab
