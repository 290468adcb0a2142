// File: pretrained/model_cache.hpp
// The compiled-model cache: a large byte-level BPE tokenizer.json (GPT-4o,
// Llama 3, Qwen, DeepSeek V3) spends most of its load building tables that
// depend only on the file's bytes, so the first load writes them to an entry
// named by a digest of those bytes, and later loads of the same bytes read them
// back (docs/pretrained.md, "The compiled-model cache").
//
//   auto t = PretrainedTokenizer::load("tokenizer.json");              // as the environment says
//   auto u = PretrainedTokenizer::load("tokenizer.json", "auto", 1, ModelCache::off());
//
// An entry belongs to one build of tokenlab and one file: any other build, or
// a file changed by one byte, never reads it. An entry that is damaged or
// cannot be written is a miss, never an error; the tokenizer is the same
// either way.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>

#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

struct TOKENLAB_PRETRAINED_API ModelCache {
  /// Where the entries are; nullopt: no cache.
  std::optional<std::filesystem::path> directory;
  /// Files smaller than this are read as they are: they load in a
  /// millisecond or two, and each would leave an entry of its own. (BERT's
  /// tokenizer.json, 0.47 MB, took 8 ms.)
  std::size_t min_file_bytes = std::size_t{256} << 10;
  /// Entries kept; writing one removes the least recently written beyond it.
  std::size_t max_entries = 16;
  /// A file is recognised by its stamp (device, inode, size, modification and
  /// change times) instead of its digest once it has been left alone this
  /// long before a load digests it: a write in the same clock tick as that
  /// load could otherwise leave the stamp unchanged (compiled/file_stamp.hpp).
  /// Negative: never by stamp.
  int settled_seconds = 2;

  /// TOKENLAB_MODEL_CACHE=off (or 0): no cache; TOKENLAB_MODEL_CACHE=DIR: DIR;
  /// unset or empty: cache_directory()/models (~/.cache/tokenlab/models). Off
  /// in a build whose libraries carry no build id (linked without --build-id).
  [[nodiscard]] static ModelCache from_environment();
  [[nodiscard]] static ModelCache off() { return {}; }
  [[nodiscard]] bool applies_to(std::size_t file_bytes) const noexcept {
    return directory.has_value() && file_bytes >= min_file_bytes;
  }
};

}  // namespace tokenlab
