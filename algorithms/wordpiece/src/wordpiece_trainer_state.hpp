// Internal: the likelihood trainer's state and steps, shared by its three files:
//   wordpiece_trainer_alphabet.cpp  the alphabet and each word's initial units;
//   wordpiece_trainer_merges.cpp    pair statistics, the indexed heap, the merge loop;
//   wordpiece_trainer.cpp           the automatic min_frequency search and the entry point.
//
//
// State (all flat arrays, indexed by small integers):
//  * units: id -> text, continuation flag, weighted count;
//  * words: one uint32 symbol array per distinct word, rewritten in place;
//  * pairs: id -> (left, right, count, score, heap slot); the id is also the
//    tie-break rank, because ids are handed out in first-appearance order;
//  * pair -> words that held it when it was created (may be stale, never missing);
//  * unit -> pairs it takes part in, because a merge of (a, b) lowers count(a)
//    and count(b) and so raises the score of every pair that touches a or b;
//  * an indexed max-heap of eligible pairs by (score, -rank). Scores go up and
//    down as unit counts change, so the heap updates entries in place instead of
//    relying on lazy invalidation (which only works when keys never increase).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tokenlab/pair_map.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece_trainer.hpp"

namespace tokenlab::wordpiece::detail {

// Chunks have a fixed size, never derived from the thread count, so per-chunk
// results reduced in chunk order are the same for any number of threads.
inline constexpr std::size_t kChunkWords = 4096;
inline constexpr std::uint32_t kNotInHeap = 0xFFFFFFFFu;
inline constexpr std::uint32_t kDroppedChar = 0xFFFFFFFFu;

inline std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) noexcept {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}

// A character as a 32-bit key: its code point, or, for a byte that does not
// start well-formed UTF-8, a value above the code point range.
inline std::uint32_t char_key(std::string_view word, std::size_t pos,
                              std::size_t& length) noexcept {
  length = utf8::sequence_length(word, pos);
  if (length == 0) {
    length = 1;
    return 0x110000u + static_cast<unsigned char>(word[pos]);
  }
  return static_cast<std::uint32_t>(utf8::decode_at(word, pos));
}

inline std::size_t code_points(std::string_view word) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < word.size();) {
    std::size_t length = 0;
    char_key(word, i, length);
    i += length;
    ++n;
  }
  return n;
}

inline void char_keys(std::string_view word, std::vector<std::uint32_t>& keys) {
  keys.clear();
  for (std::size_t i = 0; i < word.size();) {
    std::size_t length = 0;
    keys.push_back(char_key(word, i, length));
    i += length;
  }
}

// Where the boundary marker is glued to its neighbour in the initial
// segmentation (see wordpiece_trainer.hpp). Keys of glued units: kind << 32 | character.
enum GlueKind : std::uint64_t {
  kGluePrefix = 1,
  kGlueSuffixContinuation = 2,
  kGlueSuffixInitial = 3
};

struct Glue {
  bool prefix = false;  // units 0 and 1 form one unit
  bool suffix = false;  // units n-2 and n-1 form one unit
};

inline Glue glue_of(const std::vector<std::uint32_t>& keys) noexcept {
  const std::size_t n = keys.size();
  Glue g;
  g.prefix = n >= 2 && keys[0] == kBoundaryMarkerCodePoint;
  // The character before a suffix marker must not already be glued to a prefix marker.
  g.suffix = n >= 2 && keys[n - 1] == kBoundaryMarkerCodePoint && !(g.prefix && n < 4);
  return g;
}

inline std::uint64_t prefix_glue_key(const std::vector<std::uint32_t>& keys) noexcept {
  return (kGluePrefix << 32) | keys[1];
}

inline std::uint64_t suffix_glue_key(const std::vector<std::uint32_t>& keys) noexcept {
  const std::size_t j = keys.size() - 2;
  return ((j == 0 ? kGlueSuffixInitial : kGlueSuffixContinuation) << 32) | keys[j];
}

struct PairInfo {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
  std::int64_t count = 0;
  double score = 0.0;
  std::uint32_t heap_pos = kNotInHeap;
  std::uint32_t rescored_at = 0;  // merge step that last rescored it
  std::uint8_t listed = 0;        // bit 0: in unit_pairs[left]; bit 1: in unit_pairs[right]
  bool forbidden = false;         // merging would make a piece that must not exist
};

class Trainer {
 public:
  Trainer(const WordCounts& counts, const TrainerConfig& config, TrainingObserver* observer)
      : counts_(counts), config_(config), observer_(observer) {
    for (const auto& s : config_.special_tokens) {
      specials_.insert(s);
      max_special_size_ = std::max(max_special_size_, s.size());
    }
    // Pair counts are signed here; a min_frequency of 2^63 or more (no count reaches
    // it) must not wrap to a negative threshold that every pair passes.
    threshold_ = static_cast<std::int64_t>(std::clamp<std::uint64_t>(
        config_.min_frequency, 1, std::numeric_limits<std::int64_t>::max()));
  }

  TrainerResult run() {
    build_alphabet();
    build_words();
    count_pairs();
    build_heap();
    merge_loop();
    return std::move(result_);
  }

 private:
  // ---- initial segmentation ------------------------------------------------

  struct CharStat {
    std::uint32_t key = 0;
    std::uint64_t count = 0;
    std::uint64_t initial = 0;  // occurrences as a word's first character
  };

  [[nodiscard]] bool word_usable_length(std::string_view word) const noexcept {
    return !word.empty() && code_points(word) <= config_.max_input_chars_per_word;
  }

  void build_alphabet();

  // The corpus's characters (with how often each starts a word) and glued
  // character pairs, in corpus first-seen order: build_alphabet's first step.
  struct CorpusCharacters {
    std::vector<CharStat> chars;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> glued;  // glue key, count
  };
  [[nodiscard]] CorpusCharacters count_characters() const;

  // Both forms (initial, continuation) of each kept character become units; the
  // forms that do not fit in budget are made unusable, least frequent first.
  void add_character_units(const std::vector<CharStat>& chars,
                           const std::vector<std::uint32_t>& kept, std::size_t budget,
                           std::vector<bool>& form_kept);

  // WordPiece has no byte fallback, so a character outside the alphabet makes its
  // whole word [UNK]. Coverage never drops printable ASCII or common punctuation
  // the corpus has (Latin-1's signs, curly quotes, dashes, the ellipsis): a rare
  // "~" or "…" must not turn words of English prose or code into [UNK]. They come
  // after the covered characters, so that when vocab_size is tight their forms are
  // the first given up. Other characters the corpus never has stay out: that is
  // WordPiece's [UNK], by design.
  [[nodiscard]] static bool always_kept(std::uint32_t c) noexcept {
    return (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xBF) || c == 0xD7 || c == 0xF7 ||
           (c >= 0x2010 && c <= 0x205E);
  }

  static void keep_common_characters(std::vector<CharStat>& chars, std::vector<std::uint32_t>& kept,
                                     std::size_t vocab_size);

  [[nodiscard]] static std::string key_text(std::uint32_t key);

  [[nodiscard]] bool usable_text(const std::string& text, bool continuation) const;

  void add_glued_units(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& glued,
                       std::size_t room);

  std::uint32_t add_unit(std::string text, bool continuation);

  void build_words();

  bool initial_units(const std::vector<std::uint32_t>& keys,
                     std::vector<std::uint32_t>& symbols) const;

  void count_pairs();

  // ---- pairs ----------------------------------------------------------------

  [[nodiscard]] unsigned threads() const noexcept { return resolve_threads(config_.threads); }

  [[nodiscard]] std::string merged_text(std::uint32_t left, std::uint32_t right) const;

  [[nodiscard]] bool is_forbidden(std::uint32_t left, std::uint32_t right) const;

  std::uint32_t find_or_create_pair(std::uint64_t key);

  // Whether a pair may be merged: often enough, and not forbidden. Only these
  // are listed under their units and kept in the heap.
  [[nodiscard]] bool eligible(const PairInfo& p) const noexcept {
    return p.count >= threshold_ && !p.forbidden;
  }

  void list_pair(std::uint32_t id);

  void note_word(std::uint32_t pair, std::uint32_t word);

  // ---- indexed max-heap ------------------------------------------------------

  [[nodiscard]] bool before(std::uint32_t x, std::uint32_t y) const noexcept {
    const double sx = pairs_[x].score;
    const double sy = pairs_[y].score;
    if (sx != sy) return sx > sy;
    return x < y;  // pair id == first-appearance rank
  }

  void heap_set(std::size_t pos, std::uint32_t id);

  void sift_up(std::size_t pos);

  void sift_down(std::size_t pos);

  void heap_remove(std::uint32_t id);

  void rescore(std::uint32_t id);

  void build_heap();

  // ---- merging ---------------------------------------------------------------

  void merge_loop();

  void apply_merge(std::uint32_t best, std::uint32_t a, std::uint32_t b, std::uint32_t ab,
                   std::uint32_t step);

  void add_count(std::uint32_t id, std::int64_t delta);

  void rescore_unit(std::uint32_t unit, std::uint32_t step);

  const WordCounts& counts_;
  const TrainerConfig& config_;
  TrainingObserver* observer_;
  std::unordered_set<std::string> specials_;
  std::size_t max_special_size_ = 0;
  std::int64_t threshold_ = 1;

  PairIndex char_units_;  // character key -> id of its initial unit (continuation is +1)
  std::vector<std::string> unit_text_;
  std::vector<bool> unit_cont_;
  std::vector<bool> unit_usable_;
  std::vector<std::int64_t> unit_count_;
  std::vector<std::vector<std::uint32_t>> unit_pairs_;
  PairIndex glued_units_;  // glue key -> unit id (kept glued units only)
  // Every unit by its text, so that a merge making an existing string reuses its unit.
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> unit_by_text_;

  std::vector<std::uint32_t> symbols_;
  // One record per distinct word, so that a visit loads one cache line.
  struct Word {
    std::uint64_t weight = 0;  // the word's count
    std::uint32_t begin = 0;   // its symbols: symbols_[begin, begin + length)
    std::uint32_t length = 0;
  };
  std::vector<Word> words_;

  PairIndex pair_index_{1 << 16};
  std::vector<PairInfo> pairs_;
  std::vector<std::vector<std::uint32_t>> pair_words_;
  std::vector<std::uint32_t> heap_;

  std::vector<std::uint64_t> old_keys_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> new_keys_;  // key, id if created
  TrainerResult result_;
};

}  // namespace tokenlab::wordpiece::detail
