// File: train_options.hpp
// What every trainer is told, plus a string map of algorithm-specific options.
//
//   TrainOptions opts{.vocab_size = 8000, .threads = 2};
//   opts.extra["units"] = "bytes";  // validated by the plugin
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

struct TrainOptions {
  /// Target vocabulary size, special tokens included. Algorithms stop earlier when
  /// the data cannot support it (and the vocabulary is then smaller).
  std::size_t vocab_size = 8000;
  /// Minimum count for a unit to enter the vocabulary (merge count for BPE). 0 = none.
  std::uint64_t min_frequency = 0;
  /// Share of character occurrences the base alphabet must cover (SentencePiece: 0.9995).
  double character_coverage = 0.9995;
  /// Seed for anything random in training; training must not use other randomness.
  std::uint64_t seed = 0;
  /// Worker threads; 0 = all hardware threads. Never changes the result.
  unsigned threads = 0;
  /// Special tokens, placed first in the vocabulary. nullopt = the algorithm's default.
  std::optional<std::vector<std::string>> special_tokens{};
  /// Stop after this many training steps (merges), for traces and courses; 0 = no
  /// limit. Algorithms without discrete steps ignore it.
  std::size_t max_steps = 0;
  /// Algorithm-specific options (key=value); each plugin validates its own keys and
  /// rejects unknown ones with an Error listing the valid keys.
  std::map<std::string, std::string> extra{};
};

/// Checks what every trainer relies on, once, on the host, so that plugins need
/// not: vocab_size >= 1, character_coverage in (0, 1], special tokens non-empty
/// and distinct. Throws Error naming the option and its valid range.
TOKENLAB_API void validate(const TrainOptions& options);

/// Resolves threads == 0 to the hardware concurrency (at least 1).
TOKENLAB_API unsigned resolve_threads(unsigned requested) noexcept;

}  // namespace tokenlab
