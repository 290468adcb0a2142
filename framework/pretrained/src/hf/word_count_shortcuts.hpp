// Shortcuts for counting the words HF's trainers see (training_words.cpp), each
// giving exactly the pieces the pipeline gives (tests/pretrained/
// hf_training_words_test.cpp checks them against it on hostile text).
//
// Printable ASCII. For
// the pipelines whose pre-tokenizer drops ASCII white space (Whitespace,
// BertPreTokenizer) after a normalizer that keeps it and works character by
// character (none, NFC, BertNormalizer), a line's pieces are the pieces of its
// chunks between ASCII white space bytes, and a chunk of printable ASCII
// (0x20..0x7E) needs no pipeline at all: lower-cased or not, it splits at fixed
// byte classes. Every other chunk still runs the pipeline.
//
// Why it holds: NFC and BertNormalizer act per code point (NFD and NFC compose
// nothing across a white space, a starter that no mark composes with), and turn
// ASCII white space into white space, never into something else; on printable
// ASCII they change nothing but (BERT) upper-case letters.
//
// Metaspace. With no normalizer, split true and prepend_scheme "always", a line's
// pieces are the replacement followed by each run between spaces (or
// replacements already in the text), the first run without it when the line
// starts with a space: no need to build the replaced line and its spans.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::hf {

/// What a chunk of printable ASCII becomes.
struct AsciiWordRule {
  bool lowercase = false;
  /// BertPreTokenizer: each punctuation character is a piece of its own, the
  /// runs between them are pieces. Otherwise (Whitespace, `\w+|[^\w\s]+`): runs of
  /// [A-Za-z0-9_] and runs of the other characters.
  bool isolate_punctuation = false;
};

/// The rule of p when the shortcut holds for it: no added tokens, normalizers
/// none, NFC or BertNormalizer, pre-tokenizer Whitespace or BertPreTokenizer.
std::optional<AsciiWordRule> ascii_word_rule(const PretrainedPipeline& p);

/// Whether chunk (no ASCII white space in it) is printable ASCII.
[[nodiscard]] bool is_printable_ascii(std::string_view chunk) noexcept;

/// The pieces of a printable ASCII chunk (lower-cased already if the rule says
/// so), as views into it, appended to pieces.
void ascii_pieces(std::string_view chunk, bool isolate_punctuation,
                  std::vector<std::string_view>& pieces);

/// The replacement of p's pre-tokenizer when p is Metaspace's shortcut: no added
/// tokens, no normalizer, Metaspace with split and prepend_scheme "always".
std::optional<std::string> metaspace_line_replacement(const PretrainedPipeline& p);

// The component tests the shortcuts need, defined with the components
// (normalizers.cpp, pre_tokenizers.cpp).
[[nodiscard]] bool is_nfc_normalizer(const NormalizerStep& step);
/// BertNormalizer's lowercase option; nullopt when step is another normalizer.
[[nodiscard]] std::optional<bool> bert_normalizer_lowercase(const NormalizerStep& step);
[[nodiscard]] bool is_whitespace_pre_tokenizer(const PreTokenizerStep& step);
[[nodiscard]] bool is_bert_pre_tokenizer(const PreTokenizerStep& step);
/// Metaspace's replacement when step is Metaspace with split and "always".
[[nodiscard]] std::optional<std::string> metaspace_always_split(const PreTokenizerStep& step);

}  // namespace tokenlab::hf
