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
//   bert/none                          -> BertPreTokenizer
//   gpt2, cl100k, qwen2, o200k/space   -> Split(the preset's regex, Isolated)
//                                         (+ ByteLevel for byte-level BPE)
//   unicode, icu-words, suffix marker  -> refused
#pragma once

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

TOKENLAB_PRETRAINED_API std::string write_tokenizer_json(const ModelDescription& model,
                                                         const NormalizerOptions& normalizer,
                                                         const PreTokenizerOptions& pre_tokenizer,
                                                         const TokenizerJsonOptions& options = {});

}  // namespace tokenlab
