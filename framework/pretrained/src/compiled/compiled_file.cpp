#include "compiled/compiled_file.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "tokenlab/cache_directory.hpp"

namespace tokenlab::compiled {

namespace fs = std::filesystem;

namespace {

// The header: 64 bytes before the first section.
struct Header {
  char magic[8];
  std::uint64_t build_id;  // digest of library_build_id()
  Digest digest;           // of the file the entry was compiled from
  std::uint64_t payload_bytes;
  std::uint64_t checksum;  // of the sections, chained in order
  std::uint64_t reserved[2];
};
static_assert(sizeof(Header) == 64);
constexpr char kMagic[8] = {'t', 'l', 'm', 'o', 'd', 'e', 'l', '1'};

std::uint64_t build_id_digest() {
  const std::string& id = library_build_id();
  return digest_of(id).low;
}

constexpr std::uint64_t padded(std::uint64_t offset) noexcept {
  return (offset + 7) & ~7ull;
}

// The checksum goes over a section a chunk at a time, so that Reader::read can
// hash each chunk right after copying it, while it is in the cache: hashing
// 20 MB of an entry from memory and then copying it from memory again made
// the digest a fifth of a hit.
constexpr std::size_t kChunk = std::size_t{64} << 10;

std::uint64_t chain_chunk(std::uint64_t checksum, const char* data, std::size_t size) noexcept {
  const Digest d = digest_of({data, size});
  return std::rotl(checksum, 23) * 0x9E3779B185EBCA87ull ^ d.low ^ std::rotl(d.high, 32);
}

// The checksum so far with one more section's bytes.
std::uint64_t chain(std::uint64_t checksum, const void* data, std::size_t size) noexcept {
  const auto* bytes = static_cast<const char*>(data);
  for (std::size_t at = 0; at < size; at += kChunk)
    checksum = chain_chunk(checksum, bytes + at, std::min(kChunk, size - at));
  return checksum;
}

bool write_all(int fd, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Keeps the newest max_entries entries (by modification time, which a read
// sets too: the most recently used) and removes the rest, and any temporary a
// killed writer left over an hour ago.
void prune(const fs::path& directory, std::size_t max_entries) noexcept {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    const auto time = it->last_write_time(ec);
    if (ec) return;
    if (path.extension() == ".tlmodel") {
      entries.emplace_back(time, path);
    } else if (path.filename().string().starts_with(".tmp-") &&
               now - time > std::chrono::hours(1)) {
      fs::remove(path, ec);
    }
  }
  if (entries.size() <= max_entries) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a > b; });
  for (std::size_t i = max_entries; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

}  // namespace

const std::string& library_build_id() {
  static const std::string id = [] {
    // This library's own object: the one whose code holds this function.
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&library_build_id), &info) == 0) return std::string();
    struct Search {
      const void* base;
      std::string id;
    } search{info.dli_fbase, {}};
    dl_iterate_phdr(
        [](dl_phdr_info* object, std::size_t, void* data) {
          auto& s = *static_cast<Search*>(data);
          // dli_fbase is where the object's first segment is mapped.
          bool ours = false;
          for (int i = 0; i < object->dlpi_phnum && !ours; ++i)
            ours = object->dlpi_phdr[i].p_type == PT_LOAD &&
                   reinterpret_cast<const void*>(object->dlpi_addr +
                                                 object->dlpi_phdr[i].p_vaddr) == s.base;
          if (!ours && reinterpret_cast<const void*>(object->dlpi_addr) != s.base) return 0;
          for (int i = 0; i < object->dlpi_phnum; ++i) {
            const ElfW(Phdr)& segment = object->dlpi_phdr[i];
            if (segment.p_type != PT_NOTE) continue;
            const auto* note = reinterpret_cast<const char*>(object->dlpi_addr + segment.p_vaddr);
            const char* const end = note + segment.p_memsz;
            while (note + sizeof(ElfW(Nhdr)) <= end) {
              const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
              const char* name = note + sizeof(ElfW(Nhdr));
              const char* desc = name + ((header->n_namesz + 3) & ~3u);
              if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
                  std::memcmp(name, "GNU", 4) == 0 && desc + header->n_descsz <= end) {
                s.id.assign(desc, header->n_descsz);
                return 1;
              }
              note = desc + ((header->n_descsz + 3) & ~3u);
            }
          }
          return 1;  // ours, without a build id
        },
        &search);
    return search.id;
  }();
  return id;
}

fs::path entry_path(const ModelCache& cache, const Digest& digest) {
  return *cache.directory / (digest.hex() + ".tlmodel");
}

}  // namespace tokenlab::compiled

namespace tokenlab {

ModelCache ModelCache::from_environment() {
  ModelCache cache;
  const char* value = std::getenv("TOKENLAB_MODEL_CACHE");
  const std::string_view v = value ? value : "";
  if (v == "off" || v == "0" || compiled::library_build_id().empty()) return cache;
  cache.directory = v.empty() ? cache_directory() / "models" : std::filesystem::path(v);
  return cache;
}

}  // namespace tokenlab

namespace tokenlab::compiled {

bool Writer::commit(const fs::path& path, const Digest& digest, std::size_t max_entries) const {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return false;
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.build_id = build_id_digest();
  header.digest = digest;
  // A section, then the zeros that bring the next to 8 bytes, as
  // Reader::view hashes them.
  static constexpr char kZeros[8] = {};
  for (const Section& s : sections_) {
    const std::size_t pad = padded(s.size) - s.size;
    header.payload_bytes += s.size + pad;
    header.checksum = chain(header.checksum, s.data, s.size);
    if (pad > 0) header.checksum = chain(header.checksum, kZeros, pad);
  }
  std::string temporary = (path.parent_path() / ".tmp-XXXXXX").string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return false;
  (void)::fchmod(fd, 0644);  // mkstemp's 0600 would keep a shared cache to its writer
  bool ok = write_all(fd, &header, sizeof header);
  for (const Section& s : sections_) {
    if (!ok) break;
    ok = write_all(fd, s.data, s.size) && write_all(fd, kZeros, padded(s.size) - s.size);
  }
  // No fsync: after a crash the entry may be short or damaged, which its
  // checksum tells; it is a cache, and syncing 20 MB doubled the first load.
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = std::rename(temporary.c_str(), path.c_str()) == 0;
  if (!ok) {
    (void)::unlink(temporary.c_str());
    return false;
  }
  prune(path.parent_path(), max_entries);
  return true;
}

std::optional<Reader> Reader::open(const fs::path& path, const Digest& digest) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(Header));
  void* map = sized ? ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ,
                             MAP_PRIVATE | MAP_POPULATE, fd, 0)
                    : MAP_FAILED;
  if (map == MAP_FAILED) {
    ::close(fd);
    return std::nullopt;
  }
  const auto bytes = static_cast<std::size_t>(st.st_size);
  Reader r;
  r.mapping_ = std::shared_ptr<const void>(
      map, [bytes](const void* p) { (void)::munmap(const_cast<void*>(p), bytes); });
  r.data_ = static_cast<const char*>(map);
  Header header{};
  std::memcpy(&header, r.data_, sizeof header);
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 ||
      header.build_id != build_id_digest() || !(header.digest == digest) ||
      header.payload_bytes != bytes - sizeof header) {
    ::close(fd);
    return std::nullopt;
  }
  // The entry's times set to now: pruning keeps the newest entries, so an
  // entry read often outlives a run of files loaded once. Best effort: in a
  // cache someone else owns the call fails, and the order stays the writes'.
  (void)::futimens(fd, nullptr);
  ::close(fd);  // the mapping keeps the file
  r.offset_ = sizeof header;
  r.end_ = bytes;
  r.expected_checksum_ = header.checksum;
  return r;
}

void Reader::expect(std::size_t size) const {
  if (offset_ > end_ || size > end_ - offset_) throw Stale("entry too short");
}

void Reader::expect(std::uint64_t count, std::size_t item_bytes) const {
  if (offset_ > end_ || (item_bytes != 0 && count > (end_ - offset_) / item_bytes))
    throw Stale("entry too short");
}

std::string_view Reader::view(std::size_t size) {
  expect(size);
  const std::string_view bytes(data_ + offset_, size);
  checksum_ = chain(checksum_, data_ + offset_, size);
  skip_padding(size);
  return bytes;
}

void Reader::read(void* out, std::size_t size) {
  expect(size);
  auto* to = static_cast<char*>(out);
  const char* from = data_ + offset_;
  for (std::size_t at = 0; at < size; at += kChunk) {
    const std::size_t n = std::min(kChunk, size - at);
    std::memcpy(to + at, from + at, n);
    checksum_ = chain_chunk(checksum_, to + at, n);  // the copy, still in the cache
  }
  skip_padding(size);
}

void Reader::skip_padding(std::size_t size) {
  // The padding after a section is under the checksum too: every byte is.
  const std::size_t next = std::min<std::uint64_t>(padded(offset_ + size), end_);
  if (next > offset_ + size)
    checksum_ = chain(checksum_, data_ + offset_ + size, next - offset_ - size);
  offset_ = next;
}

std::string Reader::string() {
  const auto size = value<std::uint64_t>();
  return std::string(view(size));
}

void Reader::finish() const {
  if (offset_ != end_ || checksum_ != expected_checksum_) throw Stale("checksum");
}

}  // namespace tokenlab::compiled
