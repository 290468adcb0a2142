// File: corpus.hpp
// Streams lines from corpus files (plain, .gz, .xz, or "-" for stdin), in blocks.
//
//   CorpusReader reader({"wiki.txt.xz"}, {.invalid_utf8 = InvalidUtf8Policy::replace});
//   CorpusBlock block;
//   while (reader.next_block(block)) for (auto& line : block.lines) ...
//
// Memory stays bounded by the block size whatever the corpus size. Every line is
// checked for valid UTF-8 and NUL bytes: the policy decides whether that is an
// error (naming file, line and byte offset), a replacement by U+FFFD, or a skip.
// A missing file, a directory, an empty corpus and a binary file are errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class InvalidUtf8Policy { error, replace, skip };

/// Parses "error", "replace" or "skip"; throws Error otherwise.
TOKENLAB_API InvalidUtf8Policy parse_invalid_utf8_policy(std::string_view text);

struct CorpusOptions {
  InvalidUtf8Policy invalid_utf8 = InvalidUtf8Policy::error;
  /// Approximate bytes of text per block. 1 MiB keeps a block's word table
  /// near the cache and the blocks in flight small (counting 100 MB of English
  /// on 2 threads peaked at 100 MiB with 4 MiB blocks, 65 MiB with 1 MiB).
  std::size_t block_bytes = std::size_t{1} << 20;
  /// Whether a corpus without a non-empty line is fine: for a range, one part of
  /// a corpus, whose emptiness only the whole can judge.
  bool allow_empty = false;
};

/// The lines of one plain (uncompressed) corpus file that start at a byte offset
/// in [begin, end). Ranges that tile a file give each line to exactly one of
/// them, wherever the cuts fall: for reading one large file on many machines.
struct CorpusRange {
  std::string file;
  std::uint64_t begin = 0;
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();  // one past the last byte
};

/// A block of consecutive lines (without their newline) and where they came from.
/// The lines view text, which the block owns: moving a block keeps them valid,
/// and a block cannot be copied.
struct CorpusBlock {
  std::vector<std::string_view> lines;
  std::string file;
  /// 1-based line number of lines[0] in file; for a range that does not start
  /// the file, counted from the range's first line. Error messages always name
  /// the line number in the file.
  std::uint64_t first_line = 0;
  std::size_t bytes = 0;
  /// The lines' bytes, one after another: one buffer a block instead of one a
  /// line, which reading spent more time allocating and freeing than filling.
  std::vector<char> text;

  CorpusBlock() = default;
  CorpusBlock(CorpusBlock&&) noexcept = default;
  CorpusBlock& operator=(CorpusBlock&&) noexcept = default;
  CorpusBlock(const CorpusBlock&) = delete;
  CorpusBlock& operator=(const CorpusBlock&) = delete;
  ~CorpusBlock() = default;

  void clear() {
    lines.clear();
    file.clear();
    first_line = 0;
    bytes = 0;
    text.clear();
  }
};

class TOKENLAB_API CorpusReader {
 public:
  CorpusReader(std::vector<std::string> files, CorpusOptions options = {});
  /// Reads one range of a file. Throws Error if the file is compressed or is
  /// standard input and the range does not cover it from the start to the end.
  [[nodiscard]] static CorpusReader of_range(const CorpusRange& range, CorpusOptions options);
  ~CorpusReader();
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  /// Fills block with the next lines (never spanning two files). Returns false at
  /// the end. Throws Error on unreadable files or (per policy) invalid text. After
  /// the last block, throws Error if the whole corpus had no non-empty line.
  bool next_block(CorpusBlock& block);

  [[nodiscard]] std::uint64_t bytes_read() const noexcept;
  /// The corpus's size in bytes as far as it is known before reading, for
  /// sizing tables ahead: a plain file's size (or its range's), four times a
  /// compressed file's, nothing for standard input. An estimate, not a limit.
  [[nodiscard]] std::uint64_t size_hint() const noexcept;
  [[nodiscard]] std::uint64_t lines_read() const noexcept;
  /// Lines read that hold something (after the invalid-UTF-8 policy).
  [[nodiscard]] std::uint64_t non_empty_lines() const noexcept;

 private:
  struct RangeTag {};  // a braced file name still means a list of files
  CorpusReader(RangeTag, const CorpusRange& range, CorpusOptions options);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Deterministic train/held-out split by line content: the same line always goes
/// to the same side, whatever file order, block size or thread count.
class TOKENLAB_API HeldOutSplit {
 public:
  /// fraction in [0, 1); 0 keeps everything for training.
  explicit HeldOutSplit(double fraction);
  [[nodiscard]] bool is_held_out(std::string_view line) const noexcept;
  [[nodiscard]] double fraction() const noexcept { return fraction_; }

 private:
  double fraction_;
  std::uint64_t threshold_;
};

/// A stable 64-bit hash of bytes (FNV-1a then a SplitMix finalizer), used for the
/// split; not cryptographic.
TOKENLAB_API std::uint64_t stable_hash(std::string_view bytes) noexcept;

}  // namespace tokenlab
