// File: morphology.hpp
// How well a tokenizer's token boundaries fall on morpheme boundaries, against
// gold segmentations: boundary precision, recall and F1, MorphScore (Arnett and
// Bergen), and over-segmentation (tokens per morpheme).
//
//   GoldSet gold = read_gold_segmentations("en.tsv");   // "unhappily\tun happi ly"
//   MorphologyScores s = score_morphology(tokenizer, gold, {});
//   s.boundary_f1(); s.morph_score(); s.excluded_single_token
//
// Two gold formats, told apart by the first line:
// - plain: `word<TAB>morph morph ...`, the surface morphs concatenating to the
//   word; alternatives after a comma are ignored (the first analysis counts);
//   empty lines and lines starting with '#' are skipped;
// - MorphScore's CSV (catherinearnett/morphscore, data/*_morph_data.csv): a
//   header with the columns full_word, pt1 and rest (any order, others ignored,
//   pandas' unnamed index column among them), pt1 + rest = full_word: one gold
//   split point per word. RFC 4180 quoting.
// A row whose morphs do not spell its word is skipped and counted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/text_encoder.hpp"

namespace tokenlab {

struct GoldWord {
  std::string word;
  /// Morpheme boundaries as code point offsets into word, increasing, strictly
  /// between 0 and the word's length.
  std::vector<std::size_t> boundaries;
  /// Morphemes in the gold analysis (boundaries + 1); 0 for a split point only.
  std::size_t morphemes = 0;
  /// From a MorphScore CSV: the one split point is known, other boundaries are not.
  bool split_point_only = false;
  /// MorphScore's split (code points): pt1's length, which may be the word's end
  /// (an empty rest, as some of its Turkish rows: never a token boundary, so such
  /// a word scores 0 unless kept whole), or a plain word's one boundary.
  std::size_t split = 0;
};

struct GoldSet {
  std::string label;   // e.g. the file's stem, or LABEL of LABEL=FILE
  std::string source;  // the file
  std::string format;  // "plain" or "morphscore-csv"
  std::vector<GoldWord> words;
  std::size_t skipped = 0;    // rows whose morphs do not spell the word
  std::string first_skipped;  // "file:line: why", for the message
};

/// Reads path ("LABEL=FILE" sets the label). Throws Error naming the file and
/// line for an unreadable file, a CSV without the columns, or no word at all.
[[nodiscard]] TOKENLAB_API GoldSet read_gold_segmentations(const std::string& spec);
/// The same from text; source names it in messages.
[[nodiscard]] TOKENLAB_API GoldSet parse_gold_segmentations(std::string_view text,
                                                            const std::string& source);

/// The token boundaries a tokenizer puts inside a word, on the word's characters.
struct WordBoundaries {
  std::size_t tokens = 0;
  std::vector<std::size_t> boundaries;  // code point offsets, increasing, inside the word
  /// The tokens decode to the word (or to a text of the same length in code
  /// points, e.g. lowercased); false: the word is left out of the scores.
  bool aligned = true;
};

/// Encodes word (after a space when leading_space) and finds where its tokens
/// end on the word's characters by decoding each prefix of the ids: markers
/// (▁, Ġ, ##, a leading space) are decoded away, byte-level and byte-fallback
/// tokens are decoded to their bytes, and a token end that falls inside a
/// character (a partial UTF-8 prefix) is no character boundary and is dropped.
[[nodiscard]] TOKENLAB_API WordBoundaries token_boundaries(const TextEncoder& encoder,
                                                           std::string_view word,
                                                           bool leading_space);

struct MorphologyOptions {
  /// Encode " word" rather than "word". MorphScore encodes the word alone.
  bool leading_space = false;
};

/// Integer counts over a gold set; the figures are ratios of them.
struct TOKENLAB_API MorphologyScores {
  std::uint64_t words = 0;      // gold words scored
  std::uint64_t unaligned = 0;  // left out: the tokens do not spell the word
  // Words with a full segmentation (plain format): boundaries and morphemes.
  std::uint64_t segmented_words = 0;
  std::uint64_t gold_boundaries = 0;
  std::uint64_t predicted_boundaries = 0;
  std::uint64_t correct_boundaries = 0;
  std::uint64_t tokens = 0;       // of the segmented words
  std::uint64_t morphemes = 0;    // of the segmented words
  std::uint64_t exact_words = 0;  // predicted boundaries == gold boundaries
  // Per word, summed: precision over words with a predicted boundary, recall
  // over words with a gold boundary, F1 over every segmented word.
  double word_precision_sum = 0.0;
  std::uint64_t word_precision_count = 0;
  double word_recall_sum = 0.0;
  std::uint64_t word_recall_count = 0;
  double word_f1_sum = 0.0;
  // MorphScore, over the CSV rows and the plain words with exactly one gold boundary.
  std::uint64_t morph_score_words = 0;      // scored
  std::uint64_t morph_score_hits = 0;       // a token boundary at the gold split
  std::uint64_t excluded_single_token = 0;  // kept as one token: excluded

  [[nodiscard]] double boundary_precision() const;
  [[nodiscard]] double boundary_recall() const;
  [[nodiscard]] double boundary_f1() const;
  [[nodiscard]] double word_precision() const;
  [[nodiscard]] double word_recall() const;
  [[nodiscard]] double word_f1() const;
  [[nodiscard]] double exact_share() const;
  [[nodiscard]] double morph_score() const;
  /// Tokens per gold morpheme over the segmented words (1 = as many as morphemes).
  [[nodiscard]] double tokens_per_morpheme() const;

  /// Adds one word given its gold analysis and the tokenizer's boundaries.
  void add(const GoldWord& gold, const WordBoundaries& predicted);
};

/// Scores encoder on every word of gold (in parallel on threads, 0 = all cores;
/// the counts do not depend on it).
[[nodiscard]] TOKENLAB_API MorphologyScores score_morphology(const TextEncoder& encoder,
                                                             const GoldSet& gold,
                                                             const MorphologyOptions& options,
                                                             unsigned threads = 1);

/// One (tokenizer, inference method, gold set) of a comparison.
struct MorphologyRow {
  std::string algorithm;  // the compare row's label ("bpe", "bpe/longest-prefix", "gpt4o")
  std::string gold;       // GoldSet::label
  MorphologyScores scores;
  std::string error;
};

}  // namespace tokenlab
