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
#include <limits>

#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
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

// A file read through a decompressor, by its name: what the reader decodes,
// what a byte range cannot cut and what the size hint scales.
bool is_compressed(const std::string& name) {
  return ends_with(name, ".gz") || ends_with(name, ".xz");
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
  // The current block's lines as (offset in its text, length), made views when
  // the block is complete: the text may move while it grows.
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::vector<char> buffer = std::vector<char>(std::size_t{1} << 20);
  bool file_done = true;
  std::uint64_t bytes = 0;
  std::uint64_t size_hint = 0;
  std::uint64_t lines = 0;
  std::uint64_t non_empty_lines = 0;
  bool finished = false;
  // A range: the lines starting in [range_begin, range_end) of the one file.
  bool ranged = false;
  std::uint64_t range_begin = 0;
  std::uint64_t range_end = std::numeric_limits<std::uint64_t>::max();
  bool skipping_partial_line = false;  // the line that starts before the range
  std::uint64_t offset = 0;            // file offset of the next byte read
  std::uint64_t pending_start = 0;     // file offset where the pending line starts

  // "name:line" for a message about the pending line. A range that starts inside
  // the file does not know how many lines precede it; only then, on an error,
  // are they counted.
  std::string where(std::uint64_t number) const {
    std::uint64_t line = number;
    if (ranged && range_begin > 0) {
      std::ifstream again(current_name, std::ios::binary);
      std::vector<char> chunk(std::size_t{1} << 20);
      std::uint64_t left = pending_start;
      line = 1;
      while (left > 0 && again) {
        again.read(chunk.data(),
                   static_cast<std::streamsize>(std::min<std::uint64_t>(left, chunk.size())));
        const auto got = static_cast<std::size_t>(again.gcount());
        if (got == 0) break;
        line += static_cast<std::uint64_t>(std::count(chunk.data(), chunk.data() + got, '\n'));
        left -= got;
      }
    }
    return current_name + ":" + std::to_string(line);
  }
  std::string where() const { return where(line_number); }

  // The pending line, not yet complete, must not grow without bound (/dev/zero,
  // a binary file, a 3 GB line): refused at kMaxLineBytes, naming its number.
  void check_pending_length() const {
    if (pending.size() > kMaxLineBytes)
      throw Error(where(line_number + 1) + ": " + line_too_long_message(kMaxLineBytes));
  }

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
      if (ranged && range_begin > 0) {
        // Start one byte early: the range's first line starts after the first
        // newline from there (at range_begin itself if that byte is one).
        file_stream->seekg(static_cast<std::streamoff>(range_begin - 1));
        if (!*file_stream)
          throw Error(name + ": cannot seek to byte " + std::to_string(range_begin));
        offset = range_begin - 1;
        skipping_partial_line = true;
      }
      if (is_compressed(name)) {
        if (ends_with(name, ".gz")) stream->push(io::gzip_decompressor());
        if (ends_with(name, ".xz")) stream->push(io::lzma_decompressor());
        stream->push(*file_stream);
        in = stream.get();
      } else {
        in = file_stream.get();  // read straight into the buffer, without a filter's copy
      }
    }
    pending_start = offset;
    file_done = false;
  }

  // Validates one line (its CR already dropped) and appends what it becomes to
  // the block's text: itself, its repair, or nothing if it is skipped.
  void append_checked(std::string_view line, CorpusBlock& block) {
    auto bad = utf8::find_invalid(line);
    const auto nul = line.find('\0');
    if (!bad && nul == std::string_view::npos) {
      block.text.insert(block.text.end(), line.begin(), line.end());
      return;
    }
    switch (options.invalid_utf8) {
      case InvalidUtf8Policy::error:
        if (nul != std::string_view::npos && (!bad || nul < *bad))
          throw Error(where() + ": NUL byte at byte offset " + std::to_string(nul) +
                      " (binary file?); use --invalid-utf8=replace|skip to continue");
        throw Error(where() + ": invalid UTF-8 at byte offset " + std::to_string(*bad) +
                    "; use --invalid-utf8=replace|skip to continue");
      case InvalidUtf8Policy::replace: {
        std::string repaired = utf8::replace_invalid(line);
        for (auto& c : repaired)
          if (c == '\0') c = ' ';
        block.text.insert(block.text.end(), repaired.begin(), repaired.end());
        return;
      }
      case InvalidUtf8Policy::skip:
        return;  // an empty line stands for it, which keeps the numbering
    }
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
    const char* data = buffer.data();
    std::size_t start = 0;
    if (skipping_partial_line) {
      const auto* newline = static_cast<const char*>(std::memchr(data, '\n', got));
      start = newline == nullptr ? got : static_cast<std::size_t>(newline - data) + 1;
      if (newline != nullptr) {
        skipping_partial_line = false;
        pending_start = offset + start;
      }
    }
    while (start < got) {
      const auto* newline = static_cast<const char*>(std::memchr(data + start, '\n', got - start));
      if (newline == nullptr) break;
      const auto end = static_cast<std::size_t>(newline - data);
      if (pending_start >= range_end) {  // the next range's first line
        pending.clear();
        offset += got;
        file_done = true;
        return;
      }
      if (pending.empty()) {  // the whole line is in the buffer: no copy to make first
        add_line(block, std::string_view(data + start, end - start));
      } else {
        pending.append(data + start, end - start);
        check_pending_length();
        add_line(block, pending);
        pending.clear();
      }
      start = end + 1;
      pending_start = offset + start;
    }
    pending.append(data + start, got - start);
    check_pending_length();
    offset += got;
    if (got == 0 || in->eof()) {
      if (!pending.empty() && pending_start < range_end) add_line(block, pending);
      pending.clear();
      file_done = true;
    }
  }

  void add_line(CorpusBlock& block, std::string_view line) {
    ++line_number;
    ++lines;
    if (spans.empty()) block.first_line = line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t begin = block.text.size();
    append_checked(line, block);
    const std::size_t size = block.text.size() - begin;
    if (size > 0) ++non_empty_lines;
    block.bytes += size + 1;
    spans.emplace_back(begin, size);
  }

  // The block's lines as views, now that its text no longer grows.
  void finish_block(CorpusBlock& block) {
    block.lines.resize(spans.size());
    for (std::size_t k = 0; k < spans.size(); ++k)
      block.lines[k] = std::string_view(block.text.data() + spans[k].first, spans[k].second);
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
    const std::uintmax_t size = std::filesystem::file_size(f, ec);
    if (ec) continue;  // a pipe or a device: no size to go by
    // Text compresses about four times (xz and gzip on Wikipedia: 3.5 to 5).
    impl_->size_hint += is_compressed(f) ? 4 * size : size;
  }
}

CorpusReader CorpusReader::of_range(const CorpusRange& range, CorpusOptions options) {
  return CorpusReader(RangeTag{}, range, options);
}

CorpusReader::CorpusReader(RangeTag, const CorpusRange& range, CorpusOptions options)
    : CorpusReader(std::vector<std::string>{range.file}, options) {
  const bool whole = range.begin == 0 && range.end == std::numeric_limits<std::uint64_t>::max();
  if (!whole && (range.file == "-" || is_compressed(range.file)))
    throw Error(range.file +
                ": a compressed file or standard input is read whole, not in byte "
                "ranges");
  if (range.begin > range.end)
    throw Error(range.file + ": byte range " + std::to_string(range.begin) + ".." +
                std::to_string(range.end) + " ends before it begins");
  impl_->ranged = !whole;
  impl_->range_begin = range.begin;
  impl_->range_end = range.end;
  impl_->size_hint =
      std::min(impl_->size_hint, range.end) - std::min(impl_->size_hint, range.begin);
}

CorpusReader::~CorpusReader() = default;

bool CorpusReader::next_block(CorpusBlock& block) {
  block.clear();
  Impl& d = *impl_;
  d.spans.clear();
  if (d.finished) return false;
  if (block.text.capacity() < d.options.block_bytes)
    block.text.reserve(d.options.block_bytes + 4096);
  for (;;) {
    if (d.file_done) {
      if (!d.spans.empty()) {  // a block never spans two files
        d.finish_block(block);
        return true;
      }
      if (d.file_index > 0 || d.in != nullptr) ++d.file_index;
      if (d.file_index >= d.files.size()) {
        d.finished = true;
        if (d.non_empty_lines == 0 && !d.options.allow_empty) {
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
    if (!d.spans.empty() && (block.bytes >= d.options.block_bytes || d.file_done)) {
      d.finish_block(block);
      return true;
    }
  }
}

std::uint64_t CorpusReader::bytes_read() const noexcept {
  return impl_->bytes;
}
std::uint64_t CorpusReader::size_hint() const noexcept {
  return impl_->size_hint;
}
std::uint64_t CorpusReader::lines_read() const noexcept {
  return impl_->lines;
}
std::uint64_t CorpusReader::non_empty_lines() const noexcept {
  return impl_->non_empty_lines;
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
