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

/// A whole model file through read_model_file, then its payload through
/// segmenter.load() (whatever plugin the header names), then exercise().
inline void load_model_bytes(std::string_view bytes, Segmenter& segmenter) {
  std::istringstream file{std::string(bytes)};
  const ModelFile model = read_model_file(file, "fuzz.tkl", bytes.size());
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
