#include "commands/line_batches.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <utility>

#include "commands/line_source.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"

namespace tokenlab::cli {

LineBatchReader::LineBatchReader(const std::string& path, std::size_t whole_file_limit)
    : in_(&open_text_input(path, file_, name_)) {
  if (in_ == &std::cin) return;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return;
  if (size <= whole_file_limit) {
    whole_.reserve(static_cast<std::size_t>(size) + 1);
    reading_whole_ = true;
    return;
  }
  // Each batch's buffer sized once (grown by doubling, it was copied and
  // faulted in twice), no larger than the file.
  buffer_capacity_ = static_cast<std::size_t>(std::min<std::uintmax_t>(size + 1, kBufferBytes));
}

void LineBatchReader::check_line_length(std::size_t bytes, std::size_t line) const {
  if (bytes > kMaxLineBytes)
    throw Error(name_ + ":" + std::to_string(next_line_ + line) + ": " +
                line_too_long_message(kMaxLineBytes));
}

bool LineBatchReader::read_more(ByteBuffer& text, std::size_t want) {
  const std::size_t old = text.size();
  // whole_ is never grown (its lines are the views of batches handed out), so
  // it is read into its room, at most 1 MiB at a time: reading all the room
  // for a small first batch was serial time before any encoding. A batch's
  // buffer is read into the room it has left, when that is at least 64 KiB,
  // rather than grown (a copy into fresh pages) for the few bytes more it wants.
  const std::size_t room = text.capacity() - old;
  if (reading_whole_ || (room >= kReadBytes / 16 && room < want)) want = std::min(room, kReadBytes);
  text.resize(old + want);
  in_->read(text.data() + old, static_cast<std::streamsize>(want));
  const auto got = static_cast<std::size_t>(in_->gcount());
  text.resize(old + got);
  return got > 0;
}

bool LineBatchReader::next(LineBatch& batch, std::size_t max_lines, std::size_t max_bytes) {
  batch.lines.clear();
  batch.text.clear();
  batch.first_line = next_line_;
  const bool whole = reading_whole_;
  if (!whole) {
    batch.text.swap(carry_);  // the bytes after the last batch, in the old batch's buffer
    batch.text.reserve(buffer_capacity_);
  }
  // Whole: the batch's lines are views into whole_, from where the last batch
  // stopped; else into the batch's own buffer.
  ByteBuffer& text = whole ? whole_ : batch.text;
  const std::size_t begin = whole ? whole_start_ : 0;
  // Lines as [begin, end) first: the views are made once text stops growing.
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  const auto add_line = [&](std::size_t first, std::size_t end) {
    check_line_length(end - first, spans.size());
    spans.emplace_back(first, end);
  };
  std::size_t start = begin;    // the current line's first byte
  std::size_t scanned = begin;  // text before this has no '\n' after start
  bool outgrown = false;        // whole_ is full and the file goes on
  while (spans.size() < max_lines && (spans.empty() || start - begin < max_bytes)) {
    // (memchr with a null pointer is undefined even for no bytes: an empty
    // buffer has none.)
    if (const void* newline = scanned < text.size()
                                  ? std::memchr(text.data() + scanned, '\n', text.size() - scanned)
                                  : nullptr) {
      const auto end = static_cast<std::size_t>(static_cast<const char*>(newline) - text.data());
      add_line(start, end);
      start = scanned = end + 1;
      continue;
    }
    scanned = text.size();
    if (scanned - start > kMaxLineBytes) add_line(start, scanned);  // throws
    // whole_ holds the file's size and one byte more, to see its end: full,
    // the file has grown since it was opened.
    if (!at_end_ && whole && text.size() == text.capacity()) {
      outgrown = true;
      break;
    }
    // What the batch still needs (at most a read) and the slack for its last
    // line; at least the line begun so far, so that a long line is read in
    // growing steps. Never 0: a read of nothing would look like the end.
    const std::size_t have = text.size() - begin;
    const std::size_t needed = max_bytes > have ? std::min(max_bytes - have, kReadBytes) : 0;
    const std::size_t want =
        std::min(std::max(needed + kLineSlack, text.size() - start), kReadBytes);
    if (!at_end_ && !read_more(text, want)) at_end_ = true;
    if (in_->bad())
      throw Error(name_ + ":" + std::to_string(next_line_ + spans.size()) +
                  ": read error (an I/O error)");
    if (at_end_) {
      if (start < text.size()) add_line(start, text.size());  // a last line without '\n'
      start = text.size();
      break;
    }
  }
  if (!whole) {
    carry_.assign(text.data() + start, text.size() - start);
    text.resize(start);
  } else if (outgrown) {
    // The rest goes through batches of their own, from the line begun here.
    carry_.assign(text.data() + start, text.size() - start);
    reading_whole_ = false;
    whole_start_ = text.size();
  } else {
    whole_start_ = start;
  }
  batch.lines.reserve(spans.size());
  for (auto [first, end] : spans) {
    if (end > first && text.data()[end - 1] == '\r') --end;
    batch.lines.emplace_back(text.data() + first, end - first);
  }
  next_line_ += batch.lines.size();
  if (batch.lines.empty() && outgrown) return next(batch, max_lines, max_bytes);
  return !batch.lines.empty();
}

}  // namespace tokenlab::cli
