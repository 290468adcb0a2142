// A tokenizer file's bytes in memory that a reader may rewrite (the in-situ
// JSON parse), NUL-terminated. Internal to tokenlab_pretrained: nothing here
// is installed.
//
// Why not a std::string: std::string(size, '\0') faults in and zeroes every
// 4 KiB page before read() copies the file over it; for Gemma 3's 33 MB
// tokenizer.json that was 24 ms, a sixth of loading it. Memory straight from
// mmap is zero already (the NUL after the last byte comes free). In ordinary
// pages, not huge ones: read once, in order, the bytes gain nothing from huge
// pages, and a lone command paid up to milliseconds for each on a virtual
// machine whose host takes freed memory back (docs/performance.md, thirteenth
// round).
//
//   FileBuffer file = FileBuffer::read(path);  // throws read_pretrained_file's errors
//   parse_in_place(file.data(), file.size());  // data()[size()] == '\0'
//
// Or in parts, for a load the compiled-model cache shortens (compiled/file_stamp.hpp):
//   FileBuffer file = FileBuffer::open(path);  // mapped, nothing read
//   file.read_range(0, head);                  // enough to tell its format
//   file.read_except(spans, threads);          // all but the bytes an entry stands for
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace tokenlab::pretrained_detail {

class FileBuffer {
 public:
  /// The whole file; Error naming it when it is a directory, unreadable, short,
  /// or larger than kMaxPretrainedFileBytes (read_pretrained_file's checks).
  /// With threads >= 2, a file of 8 MiB or more is read in two halves at once.
  static FileBuffer read(const std::filesystem::path& path, unsigned threads = 1);

  /// The file open and its buffer mapped (zero), nothing read yet: the same
  /// checks and errors as read. The bytes come with read_range and read_except.
  static FileBuffer open(const std::filesystem::path& path);

  FileBuffer(FileBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        mapped_(std::exchange(other.mapped_, 0)),
        fd_(std::exchange(other.fd_, -1)),
        status_(other.status_),
        stat_time_ns_(other.stat_time_ns_),
        path_(std::move(other.path_)) {}
  FileBuffer& operator=(FileBuffer&&) = delete;
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;
  ~FileBuffer();

  /// Reads bytes [begin, end) of the file (end <= size()) into the same
  /// places of the buffer; Error ("short read") when the file has fewer.
  void read_range(std::size_t begin, std::size_t end);
  /// Reads every byte from `from` on except those of the skipped ranges
  /// (sorted, not overlapping, within the file), whose pages are never
  /// touched: they stay zero, and cost neither a copy nor memory. With threads
  /// >= 2 a large stretch is read in two halves at once.
  void read_except(std::size_t from,
                   std::span<const std::pair<std::uint64_t, std::uint64_t>> skipped,
                   unsigned threads);
  /// The file is no longer read: its descriptor is closed.
  void close() noexcept;

  [[nodiscard]] char* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_, size_}; }
  /// What fstat said of the file when it was opened.
  [[nodiscard]] const struct stat& status() const noexcept { return status_; }
  /// CLOCK_REALTIME just before that fstat, in nanoseconds: how long the file
  /// had been left alone is measured to it (compiled/file_stamp.hpp).
  [[nodiscard]] std::int64_t stat_time_ns() const noexcept { return stat_time_ns_; }

 private:
  FileBuffer(char* data, std::size_t size, std::size_t mapped) noexcept
      : data_(data), size_(size), mapped_(mapped) {}
  void read_stretch(std::size_t begin, std::size_t end, unsigned threads);

  char* data_;
  std::size_t size_;
  std::size_t mapped_;  // bytes mapped: size_ + 1 rounded up to pages
  int fd_ = -1;
  struct stat status_ {};
  std::int64_t stat_time_ns_ = 0;
  std::string path_;
};

}  // namespace tokenlab::pretrained_detail
