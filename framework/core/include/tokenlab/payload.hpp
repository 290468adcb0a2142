// File: payload.hpp
// Checked reading and writing of a segmenter's model payload (Segmenter::save/load).
//
//   void MySegmenter::save(std::ostream& out) const {
//     PayloadWriter w(out, "mine", kFormatVersion);  // tag: plugin name + version
//     w.flag(lowercase_);
//     w.array<double>(scores_);
//     w.vocabulary(vocabulary_);
//   }
//   void MySegmenter::load(std::istream& in) {
//     PayloadReader r(in, "mine", kFormatVersion);   // throws unless the tag matches
//     const bool lowercase = r.flag("lowercase");
//     std::vector<double> scores = r.array<double>("scores");
//     Vocabulary vocabulary = r.vocabulary();
//     r.finish();                                     // throws if bytes are left over
//     ...commit only now...
//   }
//
// Threat model: a model file is untrusted input. Anyone can recompute its CRC, so
// every byte of a payload may be chosen by an attacker. The reader's contract:
//   - the whole payload is read into memory first (read_model_file bounds it by the
//     file size), so every length is checked against the bytes that remain *before*
//     anything is allocated: a payload of n bytes never makes the reader allocate
//     more than about n bytes per container;
//   - flag() reads one byte and accepts only 0 or 1 (reading a raw bool is UB);
//   - the payload starts with a tag (a magic, the plugin name and a format version)
//     so that a payload under another plugin's header, or from an older build, fails
//     with a message naming both;
//   - finish() rejects trailing bytes, so a loader consumes exactly its payload;
//   - every failure is a tokenlab::Error naming the plugin and the field.
// What the reader cannot check is meaning (ids in range, scores finite, ...): the
// plugin validates those before committing the model.
//
// Layout: little-endian fixed-width integers, IEEE doubles as their 64-bit pattern,
// booleans as one byte 0/1, strings and arrays as a u64 element count then the
// elements. A Vocabulary is written exactly as its Boost serialize() writes it on a
// little-endian host (u64 count, each piece as u64 length + bytes, u64 specials,
// u8 has-unknown, u32 unknown id).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab {

/// First bytes of every tagged payload (precede the plugin name and version).
inline constexpr char kPayloadMagic[4] = {'T', 'K', 'L', 'P'};
/// Longest plugin name a payload tag may carry.
inline constexpr std::uint64_t kMaxPayloadTag = 255;

namespace detail {
template <class T>
inline constexpr bool kPayloadScalar =
    (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, double>;
}

class TOKENLAB_API PayloadWriter {
 public:
  /// Writes the tag: kPayloadMagic, the plugin name and the format version.
  PayloadWriter(std::ostream& out, std::string_view plugin, std::uint32_t version);

  template <class T>
  void scalar(T value) {
    static_assert(detail::kPayloadScalar<T>, "use flag() for bool; integers or double only");
    std::uint64_t bits = 0;
    if constexpr (std::is_same_v<T, double>)
      bits = std::bit_cast<std::uint64_t>(value);
    else
      bits = static_cast<std::uint64_t>(value);
    unsigned char bytes[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i)
      bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
    raw(bytes, sizeof(T));
  }
  void flag(bool value);
  void text(std::string_view value);
  template <class T>
  void array(std::span<const T> values) {
    scalar<std::uint64_t>(values.size());
    for (const T& v : values) scalar<T>(v);
  }
  void vocabulary(const Vocabulary& vocabulary);

 private:
  void raw(const void* data, std::size_t size);
  std::ostream& out_;
};

class TOKENLAB_API PayloadReader {
 public:
  /// Reads all of in, then the tag; throws Error unless it names plugin and version.
  PayloadReader(std::istream& in, std::string plugin, std::uint32_t version);

  template <class T>
  T scalar(const char* what) {
    static_assert(detail::kPayloadScalar<T>, "use flag() for bool; integers or double only");
    unsigned char bytes[sizeof(T)];
    raw(bytes, sizeof(T), what);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) bits |= std::uint64_t{bytes[i]} << (8 * i);
    if constexpr (std::is_same_v<T, double>)
      return std::bit_cast<double>(bits);
    else
      return static_cast<T>(bits);
  }
  /// One byte that must be 0 or 1.
  bool flag(const char* what);
  /// A u64 element count, checked: count * element_size <= remaining(). Call it
  /// before allocating count elements of a custom layout.
  std::uint64_t length(std::uint64_t element_size, const char* what);
  /// A u64 length then that many bytes; max bounds the length further.
  std::string text(const char* what, std::uint64_t max = UINT64_MAX);
  template <class T>
  std::vector<T> array(const char* what) {
    std::vector<T> out(static_cast<std::size_t>(length(sizeof(T), what)));
    for (T& v : out) v = scalar<T>(what);
    return out;
  }
  /// A Vocabulary as PayloadWriter::vocabulary writes it, validated (no duplicates,
  /// specials and unknown id in range).
  Vocabulary vocabulary();
  /// Throws Error if any byte is left unread.
  void finish() const;

  [[nodiscard]] std::uint64_t remaining() const noexcept { return data_.size() - pos_; }
  [[noreturn]] void fail(const std::string& why) const;

 private:
  void raw(void* out, std::size_t size, const char* what);
  std::string data_;
  std::size_t pos_ = 0;
  std::string plugin_;
};

}  // namespace tokenlab
