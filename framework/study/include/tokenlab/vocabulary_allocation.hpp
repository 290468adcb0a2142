// File: vocabulary_allocation.hpp
// What each language gets from a vocabulary: per entry, how often each
// language's text uses it and how many more tokens that text needs without it;
// per language, the share of the vocabulary (and of the embedding matrix) that
// serves it; and the pruning curve, each language's tokens as the least
// valuable entries are taken out.
//
//   AllocationInput input{.languages = {"en", "am"}, .texts = {en_lines, am_lines}};
//   VocabularyAllocation a = allocate_vocabulary(*subject, input);
//   a.languages[1].vocabulary_share;   // the share of the entries serving Amharic
//   a.pruning.back().tokens[1];        // Amharic's tokens with every removable entry out
//
// An entry is taken out by running the model's own algorithm without it
// (InferenceEngine::encode_without: BPE merges skipping the merges that make it,
// unigram Viterbi without it, WordPiece's longest match without it), on each
// distinct unit once. docs/metrics.md#what-each-language-gets-from-the-vocabulary
// gives every formula.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/inference_encoders.hpp"

namespace tokenlab {

struct AllocationInput {
  std::vector<std::string> languages{};
  /// Per language, its evaluation texts, each given to the subject's
  /// for_each_unit (a real tokenizer's lines, a tokenlab model's words).
  std::vector<std::vector<std::string>> texts{};
  /// Embedding widths for the parameter figures.
  std::vector<std::size_t> d_models = {768, 4096};
  /// Pruning checkpoints as vocabulary sizes kept; empty: the full size, every
  /// power of two below it down to the smallest reachable, and that smallest.
  /// A size below the smallest reachable is an Error.
  std::vector<std::size_t> sizes{};
  /// Choose the removal order on the even-numbered texts of each language and
  /// read the pruning curve on the odd-numbered ones (held out from the
  /// choice); the per-entry and per-language figures stay over every text.
  bool held_out_order = false;
  /// Per language, the line each text belongs to (texts that are the words of
  /// lines), for held_out_order's parity; empty: text i is line i.
  std::vector<std::vector<std::size_t>> lines{};
  unsigned threads = 0;  // 0 = all cores; the result does not depend on it
};

/// One entry that some language uses or would miss.
struct AllocationEntry {
  TokenId id = 0;
  std::string piece{};  // as the model spells it (byte-level alphabet, "▁", raw bytes)
  bool removable = false;
  /// The sum over languages of saved / tokens of the language (clamped at 0 per
  /// language): the entry's value, the removal order's key.
  double value = 0.0;
  /// Position in the removal order (0 = removed first); removable entries only.
  std::size_t removal_rank = 0;
  std::vector<std::uint64_t> uses{};  // per language: occurrences in its tokens
  std::vector<std::int64_t> saved{};  // per language: tokens more without the entry
};

struct AllocationLanguage {
  std::string language{};
  std::uint64_t tokens = 0;       // with the whole vocabulary
  std::size_t entries_used = 0;   // entries with a use in this language
  double served_entries = 0.0;    // the entries' shares serving it, summed
  double vocabulary_share = 0.0;  // served_entries / vocabulary size
  /// Tokens more with every removable entry out (the smallest size, which is
  /// the same set in any order), over every text.
  std::int64_t saved_by_vocabulary = 0;
};

struct PruningPoint {
  std::size_t kept = 0;               // vocabulary size minus the entries taken out
  std::vector<std::uint64_t> tokens;  // per language
};

struct TOKENLAB_API VocabularyAllocation {
  std::vector<std::string> languages;
  std::string method;           // inference_method_name of the rule run without entries
  bool exact = true;            // the method is the model's own algorithm (not a stand-in)
  bool held_out_order = false;  // the pruning curve is on texts the order was not chosen on
  std::size_t vocabulary_size = 0;
  std::size_t removable = 0;   // entries the method can go without
  std::size_t unused = 0;      // normal entries no language's text uses or builds
  std::size_t no_savings = 0;  // removable entries used or built, saving nothing anywhere
  std::uint64_t units = 0;     // unit occurrences (added tokens' excluded)
  std::uint64_t distinct_units = 0;
  /// Distinct units where the method without any entry out does not give the
  /// model's own ids (their figures are the method's).
  std::uint64_t differing_units = 0;
  std::vector<AllocationEntry> entries;  // used or built somewhere, by id
  std::vector<AllocationLanguage> per_language;
  /// Largest first, the full size first; with held_out_order, on the
  /// odd-numbered texts only.
  std::vector<PruningPoint> pruning;

  /// Tokens the vocabulary saves the language per million parameters of the
  /// embedding matrix: saved_by_vocabulary / (vocabulary_size * d_model / 1e6).
  [[nodiscard]] double saved_per_million(std::size_t language, std::size_t d_model) const;
};

/// The method allocate_vocabulary runs on subject: merges where the engine has
/// them, else likelihood, else longest-prefix for WordPiece, else fewest-tokens
/// (a stand-in: exact = false).
[[nodiscard]] TOKENLAB_API InferenceMethod allocation_method(const InferenceSubject& subject,
                                                             bool& exact);

/// Measures the allocation. Throws Error on a bad size or language count.
[[nodiscard]] TOKENLAB_API VocabularyAllocation allocate_vocabulary(const InferenceSubject& subject,
                                                                    const AllocationInput& input);

}  // namespace tokenlab
