// File: pretrained/components.hpp
// The components of real tokenizers' pipelines, as tokenlab implements them,
// built from their parameters. Each reproduces one component of a reference
// library (the source named in its comment), not an approximation of it.
//
//   auto split = make_regex_split(kO200kPattern, SplitBehavior::isolated, false);
//   auto bytes = make_byte_level_pre_tokenizer(false, false);
//   auto model = make_bpe_model(table, merges, BpeModelOptions{});
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/normalizer.hpp"
#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/pretrained/pipeline.hpp"
#include "tokenlab/pretrained/token_table.hpp"
#include "tokenlab/regex.hpp"

namespace tokenlab {

// ---- regular expressions -------------------------------------------------------

/// The regex of HF's Split and Replace and of tiktoken's pat_str lives with the
/// text pipeline (tokenlab/regex.hpp), which trains with the same presets.
using PretrainedRegex = Regex;

/// The Unicode version of HF tokenizers' character classes (unicode_version.hpp):
/// every component here that classifies characters follows it (its regexes, \w
/// of Whitespace and of added tokens' single_word, Digits), except a Split told
/// otherwise (tiktoken's, whose classes are the library's). BERT's classes are
/// older still (bert_characters.hpp).
inline constexpr UnicodeVersion kHfUnicode = UnicodeVersion::v16_0;

// ---- normalizers ---------------------------------------------------------------

enum class UnicodeForm { nfc, nfd, nfkc, nfkd };
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_unicode_normalizer(UnicodeForm form);
/// Rust's char::to_lowercase, code point by code point.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_lowercase_normalizer();
/// HF Replace: every occurrence of a literal string, or of a regex.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_replace_normalizer(
    std::string pattern, bool is_regex, std::string content);
/// HF Prepend: prefix added to non-empty text.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_prepend_normalizer(std::string prefix);
/// HF Strip: white space removed from the left and/or right.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_strip_normalizer(bool left,
                                                                              bool right);
/// HF StripAccents: removes non-spacing marks (use after NFD/NFKD).
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_strip_accents_normalizer();
/// SentencePiece's precompiled character map (a Darts double array followed by
/// the replacement strings), as in a .model's normalizer_spec and HF's Precompiled
/// normalizer: longest match first, as spm_encode. where names it in messages.
/// hf_tokenizers: match as HF tokenizers' Precompiled does instead (issue #2116):
/// per grapheme cluster, a cluster under 6 bytes replaced whole by its shortest
/// matching rule, else code point by code point (shortest rule); and an empty map
/// or replacements that are not UTF-8 are refused, as HF refuses them.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_precompiled_normalizer(
    std::string charsmap, const std::string& where, bool hf_tokenizers = false);
/// HF BertNormalizer.
TOKENLAB_PRETRAINED_API std::unique_ptr<NormalizerStep> make_bert_normalizer(
    bool clean_text, bool handle_chinese_chars, bool strip_accents, bool lowercase);

// ---- pre-tokenizers ------------------------------------------------------------

/// HF's SplitDelimiterBehavior.
enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };
/// Parses "Removed", "Isolated", ... (HF's spelling); nullopt otherwise.
TOKENLAB_PRETRAINED_API std::optional<SplitBehavior> parse_split_behavior(std::string_view name);

/// HF Split with a regex (or, with is_regex false, a literal string), whose
/// classes are unicode's.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_split_pre_tokenizer(
    std::string pattern, bool is_regex, SplitBehavior behavior, bool invert,
    UnicodeVersion unicode = kHfUnicode);
/// HF ByteLevel: optional prefix space, optional GPT-2 regex split, then each
/// byte mapped to GPT-2's printable alphabet.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_byte_level_pre_tokenizer(
    bool add_prefix_space, bool use_regex);
enum class PrependScheme { always, never, first };
/// HF Metaspace: spaces become replacement, which is prepended per scheme, and
/// (with split) each piece starts at a replacement.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_metaspace_pre_tokenizer(
    char32_t replacement, PrependScheme scheme, bool split);
/// HF Whitespace: `\w+|[^\w\s]+`.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_whitespace_pre_tokenizer();
/// HF WhitespaceSplit: split at white space, which is removed.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_whitespace_split_pre_tokenizer();
/// HF BertPreTokenizer: split at white space, isolate each punctuation character.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_bert_pre_tokenizer();
/// HF Digits: digits split off, one by one when individual.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_digits_pre_tokenizer(
    bool individual);
/// HF Punctuation: each punctuation character split off with behavior.
TOKENLAB_PRETRAINED_API std::unique_ptr<PreTokenizerStep> make_punctuation_pre_tokenizer(
    SplitBehavior behavior);

/// GPT-2's bytes_to_unicode: the code point that stands for each byte.
TOKENLAB_PRETRAINED_API const std::array<char32_t, 256>& byte_level_alphabet();

// ---- models --------------------------------------------------------------------

struct BpeModelOptions {
  std::optional<std::string> unknown_token;
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
  bool fuse_unknown = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  /// HF's dropout: used only by sampling; encode() is deterministic, as HF's
  /// encode is only when dropout is unset, so a dropout file is refused unless 0.
  std::optional<double> dropout;
};
/// HF BPE. merges are token pairs in priority order; where names the merges in
/// messages ("tokenizer.json: model.merges").
TOKENLAB_PRETRAINED_API std::unique_ptr<PretrainedModel> make_bpe_model(
    std::shared_ptr<const TokenTable> tokens,
    const std::vector<std::pair<std::string, std::string>>& merges, const BpeModelOptions& options,
    const std::string& where);
/// tiktoken's byte-pair encoding: merge the adjacent pair whose concatenation
/// has the lowest rank, over the bytes of each piece. tokens hold raw bytes.
TOKENLAB_PRETRAINED_API std::unique_ptr<PretrainedModel> make_tiktoken_model(
    std::shared_ptr<const TokenTable> tokens);
/// HF WordPiece: greedy longest match first.
TOKENLAB_PRETRAINED_API std::unique_ptr<PretrainedModel> make_wordpiece_model(
    std::shared_ptr<const TokenTable> tokens, std::string unknown_token,
    std::string continuing_subword_prefix, std::size_t max_input_chars_per_word,
    const std::string& where);
/// HF WordLevel: the whole piece or the unknown token.
TOKENLAB_PRETRAINED_API std::unique_ptr<PretrainedModel> make_word_level_model(
    std::shared_ptr<const TokenTable> tokens, std::string unknown_token, const std::string& where);
/// HF Unigram: Viterbi over the pieces' scores (scores[id]), unknown fused.
TOKENLAB_PRETRAINED_API std::unique_ptr<PretrainedModel> make_unigram_model(
    std::shared_ptr<const TokenTable> tokens, std::vector<double> scores,
    std::optional<TokenId> unknown_id, bool byte_fallback);

// ---- decoders ------------------------------------------------------------------

TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_byte_level_decoder();
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_metaspace_decoder(char32_t replacement,
                                                                            PrependScheme scheme);
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_wordpiece_decoder(std::string prefix,
                                                                            bool cleanup);
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_byte_fallback_decoder();
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_fuse_decoder();
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_strip_decoder(char32_t content,
                                                                        std::size_t start,
                                                                        std::size_t stop);
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_replace_decoder(std::string pattern,
                                                                          bool is_regex,
                                                                          std::string content);
/// HF BPEDecoder: suffix replaced by a space, except after the last token.
TOKENLAB_PRETRAINED_API std::unique_ptr<DecoderStep> make_bpe_suffix_decoder(std::string suffix);

}  // namespace tokenlab
