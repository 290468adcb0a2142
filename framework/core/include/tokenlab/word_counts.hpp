// File: word_counts.hpp
// Distinct pre-tokenized words with 64-bit counts, in first-occurrence order.
//
// This is all a trainer ever sees of the corpus. Counting runs in parallel and
// gives the same entries in the same order whatever the thread count; counts
// from many machines merge into one table.
//
//   WordCounts counts = count_words(reader, normalizer, pre_tokenizer, {.threads = 2});
//   counts.save_tsv("counts.tsv");
//   WordCounts other = WordCounts::load_tsv("shard2.tsv");
//   counts.merge(other);
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/word_hash.hpp"

namespace tokenlab {

/// The first line of a counts TSV that says how it is written and how its words
/// were made: "#tokenlab-counts", then " escaped" if the words are escaped (see
/// save_tsv), then the settings, if recorded ("normalizer=nfc pre-tokenizer=...").
inline constexpr std::string_view kTsvHeader = "#tokenlab-counts";
/// The header of an escaped file without settings (as written before settings were).
inline constexpr std::string_view kEscapedTsvHeader = "#tokenlab-counts escaped";

/// Whether a word must be escaped in a counts TSV (it holds a tab, CR or LF).
[[nodiscard]] TOKENLAB_API bool tsv_needs_escaping(std::string_view word) noexcept;
/// Appends "word<TAB>count\n", the word escaped when escaped is set: one line of
/// save_tsv's output, for writers that stream counts (spilling_counter.hpp).
TOKENLAB_API void append_tsv_line(std::string& out, std::string_view word, std::uint64_t count,
                                  bool escaped);

/// A counts file opened for reading; throws Error naming it when it is a
/// directory or cannot be opened.
[[nodiscard]] TOKENLAB_API std::ifstream open_counts_file(const std::filesystem::path& path);

/// Reads a counts TSV line by line, validating as WordCounts::load_tsv does, for
/// readers that must not hold the whole table.
class TOKENLAB_API TsvReader {
 public:
  TsvReader(std::istream& in, std::string name);
  /// The next entry; false at the end. Throws Error naming the file and line.
  bool next(std::string& word, std::uint64_t& count);
  /// The settings the header records ("" when none); known once next() was called.
  [[nodiscard]] const std::string& settings() const noexcept { return settings_; }
  /// The line of the entry next() returned last.
  [[nodiscard]] std::uint64_t line_number() const noexcept { return line_number_; }

 private:
  std::istream& in_;
  std::string name_;
  std::string line_;
  std::uint64_t line_number_ = 0;
  bool escaped_ = false;
  std::string settings_;
};

class TOKENLAB_API WordCounts {
 public:
  struct Entry {
    std::string word;
    std::uint64_t count = 0;
  };

  /// Adds count occurrences of word; a new word goes to the end. A count or total
  /// beyond 2^64-1 is an Error naming the word (nothing is added): never a wrap.
  void add(std::string_view word, std::uint64_t count = 1);
  /// Adds every entry of other, in other's order (first occurrence preserved).
  /// On overflow the Error names source (e.g. the counts file), if given. Counts
  /// recorded with other settings than these are an Error naming both; counts
  /// that record none take these (or give theirs to counts that have none).
  void merge(const WordCounts& other, const std::string& source = {});

  /// A word with its count and its hash, hash(word), worked out beforehand.
  struct HashedWord {
    std::string_view word;
    std::uint64_t count = 0;
    std::uint64_t hash = 0;
  };
  /// add(w.word, w.count) for each of words, in order; every w.hash must be
  /// hash(w.word). For a counter that hashed its words in parallel and adds
  /// them under a lock: the words are known in advance, so the table's cache
  /// misses for a group of them overlap. Throws Error as add() does.
  void add_hashed(std::span<const HashedWord> words);

  /// How the words were made, as the counter recorded it: space-separated
  /// key=value pairs without tabs or line breaks, "" when not recorded. The
  /// CLI's count records the normalizer and the pre-tokenizer, and train
  /// --counts refuses counts made another way.
  [[nodiscard]] const std::string& settings() const noexcept { return settings_; }
  /// Throws Error if settings holds a tab, CR or LF.
  void set_settings(std::string settings);

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }
  [[nodiscard]] std::uint64_t count_of(std::string_view word) const noexcept;
  /// Sum of all counts (the number of word occurrences).
  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }

  /// TSV: "word<TAB>count\n" per entry, in order, after a kTsvHeader line when
  /// there are settings or escapes. When a word holds a tab, CR or LF (only
  /// pre-tokenizers that keep white space, the regex presets, make such words),
  /// the header says "escaped" and every word is written with \\, \t, \r and \n
  /// escapes; otherwise words are written as they are.
  void save_tsv(std::ostream& out) const;
  /// Writes atomically (temporary file, then rename).
  void save_tsv(const std::filesystem::path& path) const;
  /// Throws Error naming the file and line on malformed input.
  static WordCounts load_tsv(std::istream& in, const std::string& name);
  static WordCounts load_tsv(const std::filesystem::path& path);

  /// A table of these entries, in this order: for builders that counted
  /// elsewhere (keyed_counts.hpp). Throws Error on a repeated word or a total
  /// past 2^64-1.
  [[nodiscard]] static WordCounts from_entries(std::vector<Entry> entries);

  /// The entries, moved out; the table is left empty (settings kept). For
  /// writers that spill a table without holding it twice.
  [[nodiscard]] std::vector<Entry> take_entries() &&;

  /// Reserve space for n distinct words.
  void reserve(std::size_t n);
  /// Room for n entries in the word list, but not in the hash table, whose
  /// slots would be written: for a final size that is only estimated, since
  /// room never filled is address space, not memory. A table that grows past
  /// its room moves every entry into fresh memory (for 100 MB of English, 14
  /// MB moved and 27 MB of pages faulted in, about 4% of counting).
  void reserve_entries(std::size_t n) { entries_.reserve(n); }

  /// The 64-bit hash the table places a word by (word_hash.hpp; not stable
  /// across versions).
  [[nodiscard]] static std::uint64_t hash(std::string_view word) noexcept {
    return word_hash(word);
  }
  /// hash(word), for a word followed by at least 16 - word.size() readable
  /// bytes, whatever they hold: a short word hashed with no branch on its length.
  [[nodiscard]] static std::uint64_t hash_16_readable(std::string_view word) noexcept {
    return word_hash_16_readable(word);
  }

 private:
  // Open addressing over entry indices, 8 bytes a slot (a 32-bit hash tag and the
  // entry index): about half the memory of a node-based map, no allocation per
  // lookup, and a probe touches an entry only when the tags match.
  [[nodiscard]] std::size_t find_slot(std::string_view word, std::uint32_t tag) const noexcept;
  // add() once the table has room and the tag is known.
  void add_tagged(std::string_view word, std::uint32_t tag, std::uint64_t count);
  // add_tagged() for a group of at most kGroup words, their slots and entries
  // prefetched first.
  void add_group(const HashedWord* words, std::size_t n);
  static constexpr std::size_t kGroup = 16;
  void grow();

  std::vector<Entry> entries_;
  std::vector<std::uint64_t> slots_;  // 0 = empty, else tag << 32 | (entry index + 1)
  std::uint64_t total_ = 0;
  std::string settings_;
};

/// Throws Error, naming source ("counts" if empty) and both settings, if counts
/// recorded with settings cannot be added to counts recorded with before: both
/// are recorded (non-empty) and differ. For every place that adds counts up.
TOKENLAB_API void check_settings_can_add(const std::string& source, const std::string& settings,
                                         const std::string& before);

}  // namespace tokenlab
