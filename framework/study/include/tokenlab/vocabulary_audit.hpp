// File: vocabulary_audit.hpp
// What a tokenizer's vocabulary holds, entry by entry (Land & Bartolo 2024,
// "Fishing for Magikarp", the tokenizer side): single bytes, byte strings that
// are not valid UTF-8 on their own, entries that encoding their own text never
// gives, special and added tokens, entries the evaluation text never uses, and
// how many words of a word list stay one token (STRR, Nayeem et al. 2025).
//
//   AuditInput input{.evaluation_lines = lines, .word_list = words};
//   VocabularyAudit a = audit_vocabulary(gpt2, input);
//   a.single_byte == 256; a.partial_utf8 == 216;     // r50k_base
//
// Works on any TextEncoder: a model trained in the run, a .tkl, a real model's
// tokenizer. docs/metrics.md#vocabulary-audit defines every count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/text_encoder.hpp"

namespace tokenlab {

struct AuditInput {
  /// Text whose lines are encoded one by one to find the entries never used;
  /// empty: never_used is not computed (evaluated stays false).
  std::span<const std::string> evaluation_lines{};
  /// Words for the single-token retention rate; a word holding white space is
  /// dropped (STRR's rule), as are empty ones.
  std::span<const std::string> word_list{};
  /// Worker threads (0 = all cores). The counts do not depend on it.
  unsigned threads = 0;
  /// How many unreachable entries to keep as examples (display pieces).
  std::size_t examples = 10;
};

struct TOKENLAB_API VocabularyAudit {
  std::size_t ids = 0;      // vocabulary_size(): one past the largest id
  std::size_t entries = 0;  // ids that name a token (gaps excluded)
  /// Normal and byte-fallback entries whose text is exactly one byte.
  std::size_t single_byte = 0;
  /// Normal entries of two or more bytes that are not valid UTF-8 on their own.
  std::size_t partial_utf8 = 0;
  /// Normal entries with valid UTF-8 text, not continuations, that encoding their
  /// own text does not give as that one id (TextEncoder::encodes_to_itself).
  std::size_t unreachable = 0;
  std::size_t reachability_tested = 0;  // the entries the test above applies to
  std::size_t special = 0;
  std::size_t added = 0;
  std::size_t byte_fallback = 0;
  std::size_t continuation = 0;  // WordPiece "##" pieces (never tested for reachability)
  /// Normal and byte-fallback entries with no occurrence in the evaluation text.
  std::size_t never_used = 0;
  bool evaluated = false;  // never_used was computed
  std::uint64_t evaluation_tokens = 0;
  /// Word list: words kept, and those encoded as one token alone and after a space.
  std::size_t words = 0;
  std::size_t words_single_token = 0;
  std::size_t words_single_token_spaced = 0;
  std::vector<std::string> unreachable_examples;  // display pieces, lowest ids first

  [[nodiscard]] double retention() const noexcept;         // words_single_token / words
  [[nodiscard]] double retention_spaced() const noexcept;  // ... after a space
};

/// Audits encoder's vocabulary. Thread-safe for concurrent calls; the result
/// does not depend on input.threads.
[[nodiscard]] TOKENLAB_API VocabularyAudit audit_vocabulary(const TextEncoder& encoder,
                                                            const AuditInput& input);

/// A word list file: one word per line (after a tab, only the first field, so a
/// frequency list reads too). Throws Error when the file cannot be read.
[[nodiscard]] TOKENLAB_API std::vector<std::string> read_word_list(const std::string& path);

}  // namespace tokenlab
