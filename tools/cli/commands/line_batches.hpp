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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenlab::cli {

// A byte buffer whose resize() leaves new bytes uninitialized: a read fills
// them at once, and zeroing 1 MiB before each read (std::string, or a vector's
// value-initialization) was a tenth of encoding a small file.
class ByteBuffer {
 public:
  [[nodiscard]] char* data() noexcept { return bytes_.get(); }
  [[nodiscard]] const char* data() const noexcept { return bytes_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  void clear() noexcept { size_ = 0; }
  /// Room for n bytes, the first size() kept.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    auto grown = std::make_unique_for_overwrite<char[]>(n);
    if (size_ != 0) std::memcpy(grown.get(), bytes_.get(), size_);
    bytes_ = std::move(grown);
    capacity_ = n;
  }
  /// n bytes; those past the old size are uninitialized. Grows by doubling.
  void resize(std::size_t n) {
    if (n > capacity_) reserve(std::max(n, 2 * capacity_));
    size_ = n;
  }
  void assign(const char* first, std::size_t n) {
    resize(0);
    reserve(n);
    if (n != 0) std::memcpy(bytes_.get(), first, n);
    size_ = n;
  }
  void swap(ByteBuffer& other) noexcept {
    std::swap(bytes_, other.bytes_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  std::unique_ptr<char[]> bytes_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

struct LineBatch {
  ByteBuffer text;                      // the bytes the lines are views into
  std::vector<std::string_view> lines;  // without '\n' and a '\r' before it
  std::uint64_t first_line = 1;         // the 1-based number of lines[0]
};

class LineBatchReader {
 public:
  /// Opens path, or stdin for "" and "-". Throws Error for a directory or a file
  /// that cannot be opened. A regular file of at most whole_file_limit bytes is
  /// read into one buffer, which every batch's lines view (see whole_).
  explicit LineBatchReader(const std::string& path, std::size_t whole_file_limit = kWholeFileLimit);
  /// Fills batch with the next lines: at most max_lines, and fewer once the
  /// batch holds max_bytes (a batch of long lines stays about that size; one
  /// line is taken whatever its length). Returns false, with no lines, at the
  /// end of the input. Throws Error naming "<name>:<line>" for a line longer
  /// than kMaxLineBytes or a read error.
  bool next(LineBatch& batch, std::size_t max_lines, std::size_t max_bytes = kBatchBytes);
  /// "<stdin>" or the path, as errors name it.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  // A batch's usual size, about a read: `tokenlab encode`'s last batch is
  // written after every thread has finished, so it is kept small.
  static constexpr std::size_t kBatchBytes = std::size_t{1} << 20;
  static constexpr std::size_t kReadBytes = std::size_t{1} << 20;
  // A batch reads what it still needs and this much more, for the line that
  // crosses its end; what is left after that line is carried into the next
  // batch's buffer (a copy). Reading a whole kReadBytes whenever a batch
  // needed more had every batch read 2 MiB to keep 1, copy the other 1 MiB
  // into the next buffer, and grow each of the three buffers to 4 MiB: 6.6 MB
  // of fresh pages (1,700 page faults) to encode 10 MB.
  static constexpr std::size_t kLineSlack = std::size_t{64} << 10;
  // A batch's buffer: a batch, the slack read for its crossing line, and 64
  // KiB of room more, so that a batch that still wants a little reads into
  // that room (read_more) instead of growing the buffer.
  static constexpr std::size_t kBufferBytes = kBatchBytes + 2 * kLineSlack;
  // Batches of their own took two to three times a small file's size (the
  // bytes after a batch's last line copied into the next batch's buffer, and
  // that buffer grown by doubling for the next read): 4.7 MB for 1.4 MB of
  // Hindi. Each new megabyte of heap is a few hundred page faults, about a
  // millisecond of a virtual machine's time.
  static constexpr std::size_t kWholeFileLimit = std::size_t{8} << 20;

 private:
  // Appends up to want bytes to text (whole_: within its capacity); false at
  // the end of the input.
  bool read_more(ByteBuffer& text, std::size_t want);
  // Throws Error for a line of more than kMaxLineBytes, numbered as the
  // line'th of the batch being made.
  void check_line_length(std::size_t bytes, std::size_t line) const;

  // In this order: the constructor opens file_ and names name_ to set in_.
  std::ifstream file_;
  std::string name_;
  std::istream* in_ = nullptr;
  ByteBuffer carry_;  // bytes read after the last batch's last line
  // Each batch buffer's size, made once: kBufferBytes, or a smaller file's size.
  std::size_t buffer_capacity_ = kBufferBytes;
  // A small regular file, read into one buffer of its size (plus one byte, to
  // see its end) a read at a time, never reallocated, so that the lines of
  // every batch handed out stay valid while the reader lives. A file that has
  // grown since it was opened fills the buffer: the rest is read into
  // batches of their own, from carry_.
  ByteBuffer whole_;
  bool reading_whole_ = false;
  std::size_t whole_start_ = 0;  // the first byte of whole_ no batch has taken
  bool at_end_ = false;
  std::uint64_t next_line_ = 1;
};

}  // namespace tokenlab::cli
