// File: tokenizer_json_writer.hpp
// A tokenlab model written as a Hugging Face tokenizer.json that HF tokenizers
// (and tokenlab's own reader) encode exactly as tokenlab does.
//
//   std::stringstream s; segmenter.export_model(s, kModelDescriptionFormat);
//   const std::string json =
//       write_tokenizer_json(read_model_description(s), normalizer_options, pre_options);
//
// Every tokenlab setting maps to HF components field by field
// (docs/file-formats.md); a setting with no exact HF equivalent is refused with
// an Error that names it and the nearest exportable choice, never approximated:
//   normalization nfc, nfkc, none     -> NFC, NFKC, -
//   + lowercase                        -> Lowercase (per code point, as tokenlab)
//   white space collapsed and trimmed  -> Replace(White_Space+ -> " "), Strip
//   bert (+lowercase, +strip-accents)  -> BertNormalizer (with the bert pre-tokenizer)
//   strip-accents with nfc/nfkc/none   -> refused (HF's StripAccents also removes
//                                         spacing and enclosing marks, Mc and Me)
//   whitespace/prefix                  -> Metaspace(▁, always, split)
//   whitespace/none                    -> WhitespaceSplit
//   unicode/prefix (the default)       -> Prepend(" ") after the normalizers, then
//                                         Split(unicode_words_pattern(), Isolated),
//                                         Metaspace(▁, never, no split)
//   unicode/none                       -> WhitespaceSplit, Split(the same pattern)
//   bert/none                          -> BertPreTokenizer
//   gpt2, cl100k, qwen2, o200k/space   -> Split(the preset's regex, Isolated)
//                                         (+ ByteLevel for byte-level BPE)
//   icu-words, suffix marker           -> refused
#pragma once

#include <optional>
#include <string>

#include "tokenlab/model_description.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

struct TokenizerJsonOptions {
  /// Write a BPE model's default BPE-dropout as the model's "dropout", so that
  /// HF samples a segmentation on every encode (for training data), as tokenlab
  /// samples with it; otherwise null, and HF encodes as tokenlab's encode does.
  /// Throws Error when the model has no dropout to write.
  bool dropout = false;
};

/// Why a model with this pipeline cannot be written as a tokenizer.json (what
/// write_tokenizer_json throws after "cannot export to tokenizer.json: ": the
/// setting, why, and the nearest exportable choice), or nullopt when it can be.
/// byte_level: the model is a byte-level BPE (bpe units=bytes). The one check
/// of the pipeline, which compare and sweep also run before training, so that
/// a study says up front which of its models could not be exported.
///
/// Example: tokenizer_json_refusal({}, PreTokenizerOptions::parse("icu-words"))
///          names --pre-tokenizer icu-words/prefix; the defaults give nullopt.
TOKENLAB_PRETRAINED_API std::optional<std::string> tokenizer_json_refusal(
    const NormalizerOptions& normalizer, const PreTokenizerOptions& pre_tokenizer,
    bool byte_level = false);

TOKENLAB_PRETRAINED_API std::string write_tokenizer_json(const ModelDescription& model,
                                                         const NormalizerOptions& normalizer,
                                                         const PreTokenizerOptions& pre_tokenizer,
                                                         const TokenizerJsonOptions& options = {});

}  // namespace tokenlab
