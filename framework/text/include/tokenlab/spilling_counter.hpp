// File: spilling_counter.hpp
// Word counts in bounded memory: tables that outgrow the budget are spilled,
// sorted by word, to unnamed temporary files, and merged at the end into exactly
// the TSV an in-memory count writes (the same words, counts and
// first-occurrence order, byte for byte).
//
//   SpillingCounter counter(256 << 20);                     // 256 MiB for tables
//   count_words(reader, n, p, {.on_block_counts = [&](const WordCounts& b) { counter.add(b); }});
//   counter.write_tsv(out);
//
// Order. Blocks arrive in corpus order and are merged into the current table,
// which is a run of consecutive blocks; a word's place is (its first run, its
// rank in that run's table). Sorting the merged words by that key gives the
// first-occurrence order of the whole corpus.
//
// Passes: runs sorted by word -> a k-way merge by word (counts added, the
// smallest key kept), written out as runs sorted by key -> a k-way merge by key
// -> the TSV. Each pass holds at most the budget plus one record per run. The
// spill files are unlinked as they are created (O_TMPFILE), so a killed run
// leaves none behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "tokenlab/export.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

class TOKENLAB_API SpillingCounter {
 public:
  /// budget: bytes of tables held in memory (> 0). spill_dir: where
  /// the unnamed spill files go (default: $TMPDIR, else /tmp).
  explicit SpillingCounter(std::uint64_t budget, std::filesystem::path spill_dir = {});
  ~SpillingCounter();
  SpillingCounter(const SpillingCounter&) = delete;
  SpillingCounter& operator=(const SpillingCounter&) = delete;

  /// The counts of the next block, in corpus order.
  void add(const WordCounts& block);
  /// One entry of a counts file, in the file's order; files in the order given
  /// (count --merge), as WordCounts::merge adds them.
  void add_entry(std::string_view word, std::uint64_t count);
  /// Recorded with the output (WordCounts::settings); shards must agree.
  void set_settings(const std::string& settings, const std::string& source);

  struct Summary {
    std::uint64_t distinct = 0;
    std::uint64_t total = 0;
    std::size_t spilled_runs = 0;  // 0: everything fitted in memory
  };
  /// Writes the TSV WordCounts::save_tsv would write for all the counts. Once.
  Summary write_tsv(std::ostream& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// "64M", "2G", "512K" or a number of bytes; throws Error on anything else.
TOKENLAB_API std::uint64_t parse_memory_size(const std::string& text);

}  // namespace tokenlab
