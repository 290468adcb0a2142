// File: counting.hpp
// The parallel counting pass: corpus -> normalize -> pre-tokenize -> WordCounts.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "tokenlab/corpus.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

struct CountOptions {
  unsigned threads = 0;  // 0 = all cores
  /// Which lines to count. Lines for which this returns false go to on_skipped_line.
  std::function<bool(std::string_view line)> keep_line{};
  /// Receives lines rejected by keep_line, in corpus order (e.g. held-out text).
  /// Both forms are given: pretrained tokenizers in compare encode the raw line.
  std::function<void(std::string_view raw_line, std::string_view normalized_line)>
      on_skipped_line{};
  /// Progress callback: bytes read so far.
  std::function<void(std::uint64_t bytes)> on_progress{};
  /// When set, each block's counts go to it, in corpus order, instead of into
  /// the returned table (which is then empty): for counting in bounded memory
  /// (spilling_counter.hpp). Called from one thread at a time.
  std::function<void(const WordCounts& block)> on_block_counts{};
};

/// Counts the words of every kept line. Result and order are identical for every
/// thread count: blocks are counted in parallel and merged in corpus order.
TOKENLAB_API WordCounts count_words(CorpusReader& reader, const Normalizer& normalizer,
                                    const PreTokenizer& pre_tokenizer, const CountOptions& options);

/// The settings a counts file records: "normalizer=<NormalizerOptions>
/// pre-tokenizer=<PreTokenizerOptions>", each as its to_string() spells it.
[[nodiscard]] TOKENLAB_API std::string counts_settings_text(
    const NormalizerOptions& normalizer, const PreTokenizerOptions& pre_tokenizer);

/// Throws Error naming source unless settings is empty (an older file) or the
/// text counts_settings_text writes for some options: a header such as
/// "normalizer=bogus" must be refused where it is read, not passed on.
TOKENLAB_API void check_counts_settings_text(std::string_view settings, const std::string& source);

}  // namespace tokenlab
