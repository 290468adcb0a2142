// File: model_file.hpp
// The self-contained model file: a fixed header, then the plugin's payload.
//
// Layout (little-endian):
//   8 bytes  magic "TKLBMODL"
//   u32      format version (kModelFormatVersion)
//   string   plugin name        (u32 length + bytes, each string below too)
//   string   plugin version
//   string   normalizer settings     (NormalizerOptions::to_string)
//   string   pre-tokenizer settings  (PreTokenizerOptions::to_string)
//   u64      payload length
//   u32      CRC-32 of the payload
//   payload  Segmenter::save() bytes (Boost.Serialization binary archive)
// Loading checks magic, version, string sizes, payload length and CRC before the
// plugin sees a byte, so truncated, corrupted or foreign files fail with a message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>

#include "tokenlab/export.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"

namespace tokenlab {

inline constexpr std::uint32_t kModelFormatVersion = 1;

struct ModelHeader {
  std::uint32_t format_version = kModelFormatVersion;
  std::string plugin_name;
  std::string plugin_version;
  NormalizerOptions normalizer;
  PreTokenizerOptions pre_tokenizer;
};

struct ModelFile {
  ModelHeader header;
  std::string payload;
};

/// Writes atomically; throws Error naming the path on failure.
TOKENLAB_API void write_model_file(const std::filesystem::path& path, const ModelFile& model);
/// Validates everything in the header and the CRC; throws Error naming the path.
/// A model file is untrusted input: the magic number is checked before anything
/// else is read, and the payload length declared in the header is checked against
/// the file's size (or 1 GiB for a pipe or device) before the payload is allocated,
/// so memory use is bounded by the file's real size.
TOKENLAB_API ModelFile read_model_file(const std::filesystem::path& path);
/// The same from a stream holding at most size bytes in all (header included);
/// name is used in messages. For tests and fuzzing.
TOKENLAB_API ModelFile read_model_file(std::istream& in, const std::string& name,
                                       std::uint64_t size);
/// CRC-32 (IEEE 802.3, as zlib).
TOKENLAB_API std::uint32_t crc32(const void* data, std::size_t size) noexcept;

}  // namespace tokenlab
