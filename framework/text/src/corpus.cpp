#include "tokenlab/corpus.hpp"

#include <algorithm>
#include <boost/iostreams/device/file_descriptor.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace io = boost::iostreams;

InvalidUtf8Policy parse_invalid_utf8_policy(std::string_view text) {
  if (text == "error") return InvalidUtf8Policy::error;
  if (text == "replace") return InvalidUtf8Policy::replace;
  if (text == "skip") return InvalidUtf8Policy::skip;
  throw Error("bad --invalid-utf8 value '" + std::string(text) + "': expected error|replace|skip");
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

struct CorpusReader::Impl {
  std::vector<std::string> files;
  CorpusOptions options;
  std::size_t file_index = 0;
  std::unique_ptr<std::ifstream> file_stream;
  std::unique_ptr<io::filtering_istream> stream;
  std::istream* in = nullptr;
  std::string current_name;
  std::uint64_t line_number = 0;
  std::string pending;  // bytes after the last newline of the previous read
  std::vector<char> buffer = std::vector<char>(std::size_t{1} << 20);
  bool file_done = true;
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t non_empty_lines = 0;
  bool finished = false;

  void open_next() {
    const std::string& name = files[file_index];
    current_name = name == "-" ? std::string("<stdin>") : name;
    line_number = 0;
    pending.clear();
    stream = std::make_unique<io::filtering_istream>();
    if (name == "-") {
      in = &std::cin;
    } else {
      std::error_code ec;
      const std::filesystem::path path(name);
      if (!std::filesystem::exists(path, ec)) throw Error(name + ": no such file");
      if (std::filesystem::is_directory(path, ec))
        throw Error(name + ": is a directory, not a corpus file");
      file_stream = std::make_unique<std::ifstream>(path, std::ios::binary);
      if (!*file_stream) throw Error(name + ": cannot open: " + std::strerror(errno));
      if (ends_with(name, ".gz")) stream->push(io::gzip_decompressor());
      if (ends_with(name, ".xz")) stream->push(io::lzma_decompressor());
      stream->push(*file_stream);
      in = stream.get();
    }
    file_done = false;
  }

  // Validates one line; returns false if it must be skipped. May rewrite it.
  bool check_line(std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto bad = utf8::find_invalid(line);
    const auto nul = line.find('\0');
    if (!bad && nul == std::string::npos) return true;
    switch (options.invalid_utf8) {
      case InvalidUtf8Policy::error:
        if (nul != std::string::npos && (!bad || nul < *bad))
          throw Error(current_name + ":" + std::to_string(line_number) +
                      ": NUL byte at byte offset " + std::to_string(nul) +
                      " (binary file?); use --invalid-utf8=replace|skip to continue");
        throw Error(current_name + ":" + std::to_string(line_number) +
                    ": invalid UTF-8 at byte offset " + std::to_string(*bad) +
                    "; use --invalid-utf8=replace|skip to continue");
      case InvalidUtf8Policy::replace:
        line = utf8::replace_invalid(line);
        for (auto& c : line)
          if (c == '\0') c = ' ';
        return true;
      case InvalidUtf8Policy::skip:
        return false;
    }
    return false;
  }

  // Reads one chunk from the current file; appends whole lines to block.
  void read_chunk(CorpusBlock& block) {
    // Never read more than a block's worth, so small blocks stay small.
    const std::size_t room =
        options.block_bytes > block.bytes ? options.block_bytes - block.bytes : 0;
    const std::size_t want = std::min(buffer.size(), std::max<std::size_t>(room, 1));
    in->read(buffer.data(), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in->gcount());
    if (in->bad()) throw Error(current_name + ": read error");
    bytes += got;
    std::size_t start = 0;
    for (std::size_t i = 0; i < got; ++i) {
      if (buffer[i] != '\n') continue;
      pending.append(buffer.data() + start, i - start);
      add_line(block);
      start = i + 1;
    }
    pending.append(buffer.data() + start, got - start);
    if (got == 0 || in->eof()) {
      if (!pending.empty()) add_line(block);
      file_done = true;
    }
  }

  void add_line(CorpusBlock& block) {
    ++line_number;
    ++lines;
    if (block.lines.empty()) block.first_line = line_number;
    std::string line;
    line.swap(pending);
    if (!check_line(line)) line.clear();  // keep numbering: an empty line stands for it
    if (!line.empty()) ++non_empty_lines;
    block.bytes += line.size() + 1;
    block.lines.push_back(std::move(line));
  }
};

CorpusReader::CorpusReader(std::vector<std::string> files, CorpusOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (files.empty()) throw Error("no corpus files given");
  impl_->files = std::move(files);
  impl_->options = options;
  // Fail fast on missing files and directories, before any work is done.
  for (const auto& f : impl_->files) {
    if (f == "-") continue;
    std::error_code ec;
    if (!std::filesystem::exists(f, ec)) throw Error(f + ": no such file");
    if (std::filesystem::is_directory(f, ec))
      throw Error(f + ": is a directory, not a corpus file");
  }
}

CorpusReader::~CorpusReader() = default;

bool CorpusReader::next_block(CorpusBlock& block) {
  block.clear();
  Impl& d = *impl_;
  if (d.finished) return false;
  for (;;) {
    if (d.file_done) {
      if (!block.lines.empty()) return true;  // a block never spans two files
      if (d.file_index > 0 || d.in != nullptr) ++d.file_index;
      if (d.file_index >= d.files.size()) {
        d.finished = true;
        if (d.non_empty_lines == 0) {
          std::string names;
          for (const auto& f : d.files) names += (names.empty() ? "" : ", ") + f;
          throw Error("corpus is empty (no non-empty line): " + names);
        }
        return false;
      }
      d.open_next();
    }
    block.file = d.current_name;
    while (!d.file_done && block.bytes < d.options.block_bytes) d.read_chunk(block);
    if (!block.lines.empty() && (block.bytes >= d.options.block_bytes || d.file_done)) return true;
  }
}

std::uint64_t CorpusReader::bytes_read() const noexcept {
  return impl_->bytes;
}
std::uint64_t CorpusReader::lines_read() const noexcept {
  return impl_->lines;
}

std::uint64_t stable_hash(std::string_view bytes) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

HeldOutSplit::HeldOutSplit(double fraction) : fraction_(fraction) {
  if (!(fraction >= 0.0 && fraction < 1.0))
    throw Error("held-out fraction must be in [0, 1), got " + std::to_string(fraction));
  threshold_ = static_cast<std::uint64_t>(std::ldexp(fraction, 64) >= 18446744073709551615.0
                                              ? 18446744073709551615.0
                                              : std::ldexp(fraction, 64));
}

bool HeldOutSplit::is_held_out(std::string_view line) const noexcept {
  return threshold_ != 0 && stable_hash(line) < threshold_;
}

}  // namespace tokenlab
