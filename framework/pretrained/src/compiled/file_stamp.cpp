#include "compiled/file_stamp.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace tokenlab::compiled {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'t', 'l', 's', 't', 'a', 'm', 'p', '1'};
constexpr std::size_t kSaltBytes = 48;  // "tiktoken:" and an encoding's name, with room

// What a stamp file holds, as it lies on disk (one machine's cache: native
// byte order).
struct Record {
  char magic[8];
  FileStamp stamp;
  char salt[kSaltBytes];
  Digest digest;
};

// One stamp file per file (device and inode), so that a file's stamp
// replaces its last one; its salt is in the record, not the name.
fs::path stamp_path(const ModelCache& cache, const FileStamp& stamp) {
  const std::uint64_t file[2] = {stamp.device, stamp.inode};
  const Digest name = digest_of(std::string_view(reinterpret_cast<const char*>(file), sizeof file));
  return *cache.directory / (name.hex().substr(0, 16) + ".tlstamp");
}

bool salt_fits(std::string_view salt) {
  return salt.size() < kSaltBytes;
}

// Keeps the newest `keep` stamp files (its caller catches what allocation throws).
void prune_stamps(const fs::path& directory, std::size_t keep) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> stamps;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".tlstamp") continue;
    const auto time = it->last_write_time(ec);
    if (ec) return;
    stamps.emplace_back(time, it->path());
  }
  if (stamps.size() <= keep) return;
  std::sort(stamps.begin(), stamps.end(), [](const auto& a, const auto& b) { return a > b; });
  for (std::size_t i = keep; i < stamps.size(); ++i) fs::remove(stamps[i].second, ec);
}

}  // namespace

FileStamp FileStamp::of(const struct stat& st) noexcept {
  FileStamp s;
  s.device = static_cast<std::uint64_t>(st.st_dev);
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.modified_seconds = st.st_mtim.tv_sec;
  s.modified_nanoseconds = st.st_mtim.tv_nsec;
  s.changed_seconds = st.st_ctim.tv_sec;
  s.changed_nanoseconds = st.st_ctim.tv_nsec;
  return s;
}

std::optional<Digest> recall_digest(const ModelCache& cache, const FileStamp& stamp,
                                    std::string_view salt) {
  if (!cache.directory || !salt_fits(salt) || cache.settled_seconds < 0) return std::nullopt;
  const int fd = ::open(stamp_path(cache, stamp).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Record record{};
  const bool whole = ::read(fd, &record, sizeof record) == static_cast<ssize_t>(sizeof record);
  ::close(fd);
  char expected_salt[kSaltBytes] = {};
  std::memcpy(expected_salt, salt.data(), salt.size());
  if (!whole || std::memcmp(record.magic, kMagic, sizeof kMagic) != 0 || !(record.stamp == stamp) ||
      std::memcmp(record.salt, expected_salt, kSaltBytes) != 0)
    return std::nullopt;
  return record.digest;
}

void remember_digest(const ModelCache& cache, const FileStamp& stamp, std::int64_t taken_ns,
                     std::string_view salt, const Digest& digest) noexcept {
  if (!cache.directory || !salt_fits(salt) || cache.settled_seconds < 0) return;
  // Settled: the last change (the later of the change and modification
  // times) more than settled_seconds before the fstat. Compared as seconds
  // first, so that no time, however far off, overflows: a change time is the
  // clock's when the file was written, a modification time in the future
  // (touch -d 3000-01-01) is not settled, and one before 1970 never counts.
  constexpr std::int64_t kBillion = 1'000'000'000;
  const std::int64_t taken_seconds = taken_ns / kBillion;
  const std::int64_t taken_nanoseconds = taken_ns % kBillion;
  const auto [last_seconds, last_nanoseconds] =
      std::max(std::pair{stamp.changed_seconds, stamp.changed_nanoseconds},
               std::pair{stamp.modified_seconds, stamp.modified_nanoseconds});
  if (last_seconds < 0 || last_seconds > taken_seconds) return;
  const std::int64_t seconds = taken_seconds - last_seconds;  // 0 to taken_seconds
  const std::int64_t settled = cache.settled_seconds;
  if (seconds <= settled + 1 &&
      seconds * kBillion + (taken_nanoseconds - last_nanoseconds) <= settled * kBillion)
    return;
  Record record{};
  std::memcpy(record.magic, kMagic, sizeof kMagic);
  record.stamp = stamp;
  std::memcpy(record.salt, salt.data(), salt.size());
  record.digest = digest;
  try {
    const fs::path path = stamp_path(cache, stamp);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return;
    std::string temporary = (path.parent_path() / ".tmp-XXXXXX").string();
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) return;
    (void)::fchmod(fd, 0644);
    bool ok = ::write(fd, &record, sizeof record) == static_cast<ssize_t>(sizeof record);
    ok = ::close(fd) == 0 && ok;
    if (ok) ok = std::rename(temporary.c_str(), path.c_str()) == 0;
    if (!ok) {
      (void)::unlink(temporary.c_str());
      return;
    }
    // A stamp is 128 bytes; four for each entry the cache keeps is plenty.
    prune_stamps(path.parent_path(), 4 * cache.max_entries);
  } catch (...) {  // an allocation failure is no reason to fail the load
  }
}

}  // namespace tokenlab::compiled
