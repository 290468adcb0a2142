// The lines `tokenlab encode` reads a block at a time (commands/line_batches.hpp)
// are the lines every other command reads one at a time (read_bounded_line via
// LineSource): cut at '\n', a '\r' before it dropped, a last line without '\n'
// kept unless empty, numbered from 1; whatever the batch size in lines or bytes,
// and wherever the reads of 1 MiB and the batches fall inside a line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/line_batches.hpp"
#include "commands/line_source.hpp"
#include "common/temp_files.hpp"

using tokenlab::cli::LineBatch;
using tokenlab::cli::LineBatchReader;
using tokenlab::cli::LineSource;

namespace {

using NumberedLines = std::vector<std::pair<std::uint64_t, std::string>>;

NumberedLines read_one_at_a_time(const std::string& path) {
  LineSource source(path);
  NumberedLines lines;
  std::string line;
  while (source.next(line)) lines.emplace_back(source.line_number(), line);
  return lines;
}

// Whole: the file read into one buffer (a small file), or not (a large one).
enum class Reading { whole, batches };

NumberedLines read_in_batches(const std::string& path, std::size_t max_lines,
                              std::size_t max_bytes = LineBatchReader::kBatchBytes,
                              Reading reading = Reading::batches) {
  LineBatchReader reader(path, reading == Reading::whole ? SIZE_MAX : 0);
  NumberedLines lines;
  LineBatch batch;
  while (reader.next(batch, max_lines, max_bytes)) {
    REQUIRE(!batch.lines.empty());
    REQUIRE(batch.lines.size() <= max_lines);
    REQUIRE(batch.first_line == lines.size() + 1);
    // Only the last line may start at or past max_bytes: a batch stops there.
    const std::string_view last = batch.lines.back();
    REQUIRE(static_cast<std::size_t>(last.data() - batch.lines.front().data()) <
            std::max<std::size_t>(max_bytes, 1));
    for (std::size_t i = 0; i < batch.lines.size(); ++i)
      lines.emplace_back(batch.first_line + i, std::string(batch.lines[i]));
  }
  REQUIRE(!reader.next(batch, max_lines));  // the end stays the end
  return lines;
}

// Text with empty lines, "\r\n" and lone '\r', lines of a few bytes and lines
// longer than a read or a batch, ending with or without '\n'.
std::string text_of_every_shape(std::uint64_t seed, bool final_newline) {
  std::mt19937_64 random(seed);
  std::string text;
  for (int line = 0; line < 300; ++line) {
    const auto kind = random() % 20;
    std::size_t length = random() % 40;
    if (kind == 0) length = 0;
    if (kind == 1) length = (std::size_t{1} << 20) - 2 + random() % 5;    // about one read
    if (kind == 2 && seed % 2 == 0) length = 5'000'000 + random() % 100;  // over a batch
    for (std::size_t i = 0; i < length; ++i) text += static_cast<char>('a' + random() % 26);
    if (random() % 7 == 0) text += '\r';
    if (random() % 11 == 0) text += "\rmid";
    text += '\n';
  }
  if (!final_newline) text += "last line\r";
  return text;
}

}  // namespace

TEST_CASE("lines read in batches are the lines read one at a time", "[cli][line-batches]") {
  tokenlab::test::TempDir dir;
  const std::string path = (dir / "text.txt").string();
  for (const std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    for (const bool final_newline : {true, false}) {
      tokenlab::test::write_bytes(path, text_of_every_shape(seed, final_newline));
      const NumberedLines expected = read_one_at_a_time(path);
      for (const Reading reading : {Reading::batches, Reading::whole}) {
        for (const std::size_t max_lines : {1u, 7u, 8192u}) {
          CAPTURE(seed, final_newline, max_lines, reading == Reading::whole);
          REQUIRE(read_in_batches(path, max_lines, LineBatchReader::kBatchBytes, reading) ==
                  expected);
        }
        // Batches cut by size: one byte (a line each), a few lines, a small
        // first batch and the usual batch.
        // And no limit at all: what a batch still needs must not wrap around.
        for (const std::size_t max_bytes :
             {std::size_t{1}, std::size_t{100}, std::size_t{128} << 10, std::size_t{1} << 20,
              SIZE_MAX - 10}) {
          CAPTURE(seed, final_newline, max_bytes, reading == Reading::whole);
          REQUIRE(read_in_batches(path, 8192, max_bytes, reading) == expected);
        }
      }
    }
  }
}

TEST_CASE("an empty file, a lone newline and a lone CR are read as one at a time",
          "[cli][line-batches]") {
  tokenlab::test::TempDir dir;
  const std::string path = (dir / "text.txt").string();
  for (const std::string text : {"", "\n", "\r", "\r\n", "\n\n", "a", "a\nb", "\r\r\n"}) {
    CAPTURE(text);
    tokenlab::test::write_bytes(path, text);
    REQUIRE(read_in_batches(path, 8192) == read_one_at_a_time(path));
    REQUIRE(read_in_batches(path, 8192, LineBatchReader::kBatchBytes, Reading::whole) ==
            read_one_at_a_time(path));
  }
}

TEST_CASE("a batch's lines stay valid while the next batch is read, as encode needs them",
          "[cli][line-batches]") {
  tokenlab::test::TempDir dir;
  const std::string path = (dir / "text.txt").string();
  tokenlab::test::write_bytes(path, text_of_every_shape(3, false));
  const NumberedLines expected = read_one_at_a_time(path);
  for (const std::size_t limit : {std::size_t{0}, LineBatchReader::kWholeFileLimit, SIZE_MAX}) {
    CAPTURE(limit);
    LineBatchReader reader(path, limit);
    LineBatch batches[2];
    NumberedLines lines;
    bool more = reader.next(batches[0], 64, 100);
    for (std::size_t current = 0; more; current = 1 - current) {
      more = reader.next(batches[1 - current], 64, 100);
      const LineBatch& done = batches[current];
      for (std::size_t i = 0; i < done.lines.size(); ++i)
        lines.emplace_back(done.first_line + i, std::string(done.lines[i]));
    }
    REQUIRE(lines == expected);
  }
}

TEST_CASE("a small file that grows after it is opened is read to its new end",
          "[cli][line-batches]") {
  tokenlab::test::TempDir dir;
  const std::string path = (dir / "text.txt").string();
  const std::string before = "one\ntwo\nthree, a line the file is cut in the middle of";
  const std::string after = " and goes on\nfour\n" + std::string(3 << 20, 'x') + "\nlast";
  for (const std::size_t max_bytes : {std::size_t{1}, std::size_t{1} << 20}) {
    CAPTURE(max_bytes);
    tokenlab::test::write_bytes(path, before);
    LineBatchReader reader(path);  // small: read whole, into room for its size
    tokenlab::test::write_bytes(path, before + after);
    tokenlab::test::write_bytes((dir / "expected.txt").string(), before + after);
    NumberedLines lines;
    LineBatch batch;
    while (reader.next(batch, 8192, max_bytes))
      for (std::size_t i = 0; i < batch.lines.size(); ++i)
        lines.emplace_back(batch.first_line + i, std::string(batch.lines[i]));
    REQUIRE(lines == read_one_at_a_time((dir / "expected.txt").string()));
    REQUIRE(lines.size() == 6);
  }
}

TEST_CASE("batches of short lines are read into buffers that never grow", "[cli][line-batches]") {
  // Each batch reads what it still needs and a little more for the line that
  // crosses its end, so its buffer, made once at kBufferBytes, holds it. A
  // batch that read a whole MiB whenever it needed more read 2 MiB to keep 1
  // and grew every buffer to 4 MiB: fresh memory to fault in, batch after batch.
  tokenlab::test::TempDir dir;
  const std::string path = (dir / "text.txt").string();
  std::mt19937_64 random(7);
  std::string text;
  while (text.size() < (std::size_t{6} << 20)) {
    const std::size_t length = 1 + random() % 3000;  // paragraphs, as in Wikipedia
    for (std::size_t i = 0; i < length; ++i) text += static_cast<char>('a' + random() % 26);
    text += '\n';
  }
  tokenlab::test::write_bytes(path, text);
  LineBatchReader reader(path, 0);  // in batches, not whole
  LineBatch batches[2];
  std::size_t bytes = 0;
  std::size_t count = 0;
  // The first batch small, as encode's is, then the usual ones, alternating
  // between two batches as encode does.
  for (std::size_t current = 0;
       reader.next(batches[current], 8192,
                   count == 0 ? std::size_t{128} << 10 : LineBatchReader::kBatchBytes);
       current = 1 - current, ++count) {
    const LineBatch& batch = batches[current];
    CAPTURE(count);
    REQUIRE(batch.text.capacity() <= LineBatchReader::kBufferBytes);
    for (const std::string_view line : batch.lines) bytes += line.size() + 1;
  }
  REQUIRE(bytes == text.size());
  REQUIRE(count >= 6);
}
