// File: compiled/file_stamp.hpp (private to tokenlab_pretrained)
// What the compiled-model cache remembers of a file it has digested, so that
// the next load of the same, unchanged file needs neither to digest it nor to
// read the bytes its entry replaces (docs/pretrained.md, "The compiled-model
// cache"). A digest names an entry by the file's bytes; a stamp names the file
// by what stat says of it, which is far cheaper to ask:
//
//   FileStamp stamp = FileStamp::of(st);                  // st: fstat of the open file
//   if (auto digest = recall_digest(cache, stamp, salt)) ...   // the bytes' digest, unread
//   remember_digest(cache, stamp, taken_ns, salt, digest_of(bytes));
//
// Why a stamp may stand for the bytes (the rule git's index and make rely on):
// any write to a file sets its change time (ctime) to the current time, which
// no call can set back, and a file renamed over another is another inode. So
// a file whose device, inode, size, modification and change times (to the
// nanosecond) are as they were has not been written since, with one hole: a
// write in the same clock tick as the fstat (file times come from a coarse
// clock: a tick of milliseconds, seconds on some file systems). A stamp is
// therefore kept only for a file left alone for ModelCache::settled_seconds
// before the fstat, by the clock read just before it (git's "racily clean"
// rule): a later write lands in a later tick, so it changes the stamp.
// A clock set back across a write could still fool it; TOKENLAB_MODEL_CACHE=off
// or removing the cache directory is the way out, as for any cache.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>

#include "compiled/compiled_file.hpp"
#include "tokenlab/pretrained/model_cache.hpp"

namespace tokenlab::compiled {

struct FileStamp {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t modified_seconds = 0;
  std::int64_t modified_nanoseconds = 0;
  std::int64_t changed_seconds = 0;
  std::int64_t changed_nanoseconds = 0;

  [[nodiscard]] static FileStamp of(const struct stat& st) noexcept;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

/// The digest remembered for a file with this stamp, or nullopt (none, another
/// stamp, no cache, or a stamp file that cannot be read). salt tells apart
/// digests of the same bytes taken for different readers ("tokenizer.json",
/// "tiktoken:o200k_base").
[[nodiscard]] std::optional<Digest> recall_digest(const ModelCache& cache, const FileStamp& stamp,
                                                  std::string_view salt);

/// Keeps digest for stamp when the file had settled: its last change more than
/// cache.settled_seconds before taken_ns, the CLOCK_REALTIME nanoseconds read
/// just before the fstat that gave stamp (FileBuffer::stat_time_ns). Best
/// effort: nothing is reported when it cannot be written.
void remember_digest(const ModelCache& cache, const FileStamp& stamp, std::int64_t taken_ns,
                     std::string_view salt, const Digest& digest) noexcept;

}  // namespace tokenlab::compiled
