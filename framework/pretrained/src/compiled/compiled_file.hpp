// File: compiled/compiled_file.hpp (private to tokenlab_pretrained)
// A model's load-time tables kept on disk, so that the next load of the same
// file reads them back instead of building them: the compiled-model cache.
//
// A large tokenizer.json spends most of its load on work whose result depends
// only on the file's bytes (200,000 tokens and merges parsed, hashed, spelled
// back to bytes and inserted; docs/performance.md, sixteenth round). An entry is
// named by a digest of those bytes, and its header carries the build id of this
// library, so a rebuilt tokenlab, another file or a file changed by one byte
// never reads an entry that is not its own; a checksum over the payload catches
// a truncated or damaged entry, which is then ignored and written again.
//
//   compiled::Writer out;
//   out.value(std::uint32_t{7});
//   out.bytes(table.data(), table.size() * sizeof(Slot));   // viewed until commit
//   out.commit(compiled::entry_path(cache, digest), digest, cache.max_entries);
//
//   if (auto in = compiled::Reader::open(compiled::entry_path(cache, digest), digest)) {
//     auto n = in->value<std::uint32_t>();
//     in->read(table.data(), bytes);
//     in->finish();   // throws compiled::Stale unless every byte was read and checks
//   }
//
// Nothing here is an error a user sees: an entry that cannot be read or
// written is a miss, and the model is built from its file as without a cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tokenlab/pretrained/model_cache.hpp"

namespace tokenlab::compiled {

/// 128 bits of a non-cryptographic hash of a file's bytes (XXH3's eight-lane
/// accumulation, digest.cpp; bound by memory's speed when the bytes are not in
/// the cache): names a cache entry. Not a defence against someone who can
/// write to the cache directory.
struct Digest {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend bool operator==(const Digest&, const Digest&) = default;
  /// 32 lowercase hex digits.
  [[nodiscard]] std::string hex() const;
};
[[nodiscard]] Digest digest_of(std::string_view bytes) noexcept;
/// The ways digest_of can run: one 64-bit lane at a time (the definition),
/// or with the vector instructions it takes where the machine has them. Every
/// path gives the same digest for every input, which the tests check.
enum class DigestPath { lane_by_lane, sse2, avx2 };
[[nodiscard]] bool digest_path_available(DigestPath path) noexcept;
/// digest_of computed by path (lane by lane when path is not available).
[[nodiscard]] Digest digest_by_path(std::string_view bytes, DigestPath path) noexcept;

/// The entry's path for digest in cache (whose directory must be set).
[[nodiscard]] std::filesystem::path entry_path(const ModelCache& cache, const Digest& digest);

/// The GNU build id of this library (the linker's hash of its contents), or
/// empty when it has none.
[[nodiscard]] const std::string& library_build_id();

/// Thrown by Reader when an entry turns out not to be usable (short, damaged,
/// or of another layout): the caller treats it as a miss.
class Stale : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Collects an entry's sections and writes them in one go.
class Writer {
 public:
  /// A section of raw bytes, viewed (not copied) until commit. Each section
  /// starts 8-byte aligned in the entry (zeros pad the one before).
  void bytes(const void* data, std::size_t size) { sections_.push_back({data, size}); }
  /// A section holding a copy of value.
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::string& copy = owned_.emplace_back(sizeof(T), '\0');
    std::memcpy(copy.data(), &v, sizeof(T));
    bytes(copy.data(), copy.size());
  }
  /// Words that live until commit, for a section the caller builds.
  std::vector<std::uint64_t>& owned_words() { return owned_words_.emplace_back(); }
  void string(std::string_view s) {
    value(static_cast<std::uint64_t>(s.size()));
    bytes(owned_.emplace_back(s).data(), s.size());
  }
  /// Writes the entry at path (a temporary in its directory, then renamed over
  /// it) and drops the directory's oldest entries beyond max_entries. False
  /// when anything failed; nothing half-written is left.
  bool commit(const std::filesystem::path& path, const Digest& digest,
              std::size_t max_entries) const;

 private:
  struct Section {
    const void* data;
    std::size_t size;
  };
  std::vector<Section> sections_;
  std::deque<std::string> owned_;  // a deque: growing it moves no string
  std::deque<std::vector<std::uint64_t>> owned_words_;
};

/// Reads an entry's sections in the order they were written, from a
/// read-only mapping of it: what is copied (read, value) goes where the caller
/// wants it (the encoder's tables into huge pages), and what a load may never
/// need (a vocabulary's strings) is viewed in place (view), its pages left to
/// the page cache.
class Reader {
 public:
  /// The entry at path when its header names this build and digest; nullopt
  /// when there is none or it is another's.
  static std::optional<Reader> open(const std::filesystem::path& path, const Digest& digest);

  /// Throws Stale unless the payload still holds size bytes: checked before
  /// anything is allocated for them, so a damaged size cannot ask for more
  /// memory than the entry's own size.
  void expect(std::size_t size) const;
  /// expect(count * item_bytes), checked by division: a damaged count so large
  /// that the product wraps around is refused too.
  void expect(std::uint64_t count, std::size_t item_bytes) const;
  /// The next section's bytes copied into out (size bytes: the section's size).
  void read(void* out, std::size_t size);
  /// The next section's bytes in the mapping, 8-byte aligned; valid while
  /// mapping() is held.
  std::string_view view(std::size_t size);
  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    read(&v, sizeof(T));
    return v;
  }
  std::string string();
  /// Owns the mapping that view()s point into.
  [[nodiscard]] std::shared_ptr<const void> mapping() const { return mapping_; }
  /// Throws Stale unless the whole payload was read and its checksum is the
  /// header's. Nothing read or viewed may be trusted before this.
  void finish() const;

 private:
  Reader() = default;
  // Past the zeros that pad a section of size bytes to 8.
  void skip_padding(std::size_t size);
  std::shared_ptr<const void> mapping_;
  const char* data_ = nullptr;  // the mapping's first byte (the header's)
  std::uint64_t offset_ = 0;    // of the next section, from the file's start
  std::uint64_t end_ = 0;       // the payload's end
  std::uint64_t checksum_ = 0;
  std::uint64_t expected_checksum_ = 0;
};

}  // namespace tokenlab::compiled
