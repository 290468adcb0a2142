// What the fuzz targets and the regression replay do with one input: feed it to a
// loader, and if it loads, use the result the way the CLI does (encode, decode,
// display, nbest). The contract under test: this returns or throws tokenlab::Error;
// any other exception, a crash, a sanitizer report or unbounded memory is a bug.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::fuzz {

/// Words that reach the interesting paths: ASCII, markers, multi-byte, unknown.
inline const std::vector<std::string>& probe_words() {
  static const std::vector<std::string> words{
      "hello", "\xE2\x96\x81the", "a", "unbelievable", "zz\xF0\x9F\x98\x80", "\xC3\xA9t\xC3\xA9",
      "##s",   "<unk>",           "x"};
  return words;
}

/// Encodes, decodes and displays with a loaded segmenter.
inline void exercise(const Segmenter& segmenter) {
  std::vector<TokenId> ids;
  for (const std::string& word : probe_words()) segmenter.encode(word, ids);
  (void)segmenter.decode(ids);
  const std::size_t size = segmenter.vocabulary().size();
  for (TokenId id = 0; id < size && id < 64; ++id) (void)segmenter.display_piece(id);
  try {
    (void)segmenter.nbest("hello", 3);
  } catch (const Error&) {  // unsupported by this plugin
  }
}

/// The bytes with the header's CRC field set to the CRC of what follows it, when
/// the header's four strings fit (see model_file.hpp for the layout). Anyone can
/// recompute a CRC, so the fuzzers do too: otherwise nearly every mutation would
/// stop at the checksum and the loaders would never see it.
inline std::string with_valid_crc(std::string_view bytes) {
  std::string out(bytes);
  std::size_t at = 12;  // magic + format version
  for (int field = 0; field < 4; ++field) {
    if (out.size() < at + 4) return out;
    std::size_t length = 0;
    for (std::size_t i = 0; i < 4; ++i)
      length |= std::size_t{static_cast<unsigned char>(out[at + i])} << (8 * i);
    at += 4 + length;
  }
  at += 12;  // payload length + CRC
  if (out.size() < at) return out;
  const std::uint32_t crc = crc32(out.data() + at, out.size() - at);
  for (std::size_t i = 0; i < 4; ++i) out[at - 4 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  return out;
}

/// A whole model file (CRC fixed up) through read_model_file, then its payload
/// through segmenter.load() (whatever plugin the header names), then exercise().
inline void load_model_bytes(std::string_view bytes, Segmenter& segmenter) {
  const std::string fixed = with_valid_crc(bytes);
  std::istringstream file(fixed);
  const ModelFile model = read_model_file(file, "fuzz.tkl", fixed.size());
  std::istringstream payload(model.payload);
  segmenter.load(payload);
  exercise(segmenter);
}

/// A counts TSV through WordCounts::load_tsv.
inline void load_counts_bytes(std::string_view bytes) {
  std::istringstream in{std::string(bytes)};
  const WordCounts counts = WordCounts::load_tsv(in, "fuzz.tsv");
  (void)counts.total();
}

}  // namespace tokenlab::fuzz
