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
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <utility>

namespace tokenlab::pretrained_detail {

class FileBuffer {
 public:
  /// The whole file; Error naming it when it is a directory, unreadable, short,
  /// or larger than kMaxPretrainedFileBytes (read_pretrained_file's checks).
  /// With threads >= 2, a file of 8 MiB or more is read in two halves at once.
  static FileBuffer read(const std::filesystem::path& path, unsigned threads = 1);

  FileBuffer(FileBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        mapped_(std::exchange(other.mapped_, 0)) {}
  FileBuffer& operator=(FileBuffer&&) = delete;
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;
  ~FileBuffer() {
    if (data_ != nullptr) (void)::munmap(data_, mapped_);
  }

  [[nodiscard]] char* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_, size_}; }

 private:
  FileBuffer(char* data, std::size_t size, std::size_t mapped) noexcept
      : data_(data), size_(size), mapped_(mapped) {}

  char* data_;
  std::size_t size_;
  std::size_t mapped_;  // bytes mapped: size_ + 1 rounded up to pages
};

}  // namespace tokenlab::pretrained_detail
