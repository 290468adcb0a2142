// File: sentencepiece_writer.hpp
// A unigram or BPE model trained here with a SentencePiece-style pipeline,
// written as a SentencePiece ModelProto (.model) that spm_encode and
// SentencePieceProcessor (and tokenlab's own reader) run as tokenlab does.
//
//   const std::string model = write_sentencepiece(description, normalizer, pre_tokenizer);
//
// The pipeline must be SentencePiece's: --pre-tokenizer whitespace (▁ before each
// word, as add_dummy_prefix and escape_whitespaces give), white space collapsed
// and trimmed (remove_extra_whitespaces), normalization nfkc, nfc or none, with
// or without lowercase. The normalization is written as a precompiled charsmap
// built from tokenlab's own Normalizer, one rule per code point and per
// decomposition (docs/file-formats.md says where such rules and ICU can part).
// Anything else is refused with the setting and the nearest exportable choice.
//
// Pieces keep their ids. Unigram scores are written as floats, as the format
// holds them; trained scores lie on a 1/256 grid (unigram/unigram_trainer.hpp), so they
// are exact in float and SentencePiece's float sums break ties as tokenlab's
// double sums do. BPE pieces score -id, so
// the rank order is the merge order. SentencePiece's BPE merges by the rank of
// the merged piece; a model where that differs (rank_merges.hpp) is refused
// unless approximate.
#pragma once

#include <string>

#include "tokenlab/model_description.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

/// The serialized ModelProto. Throws Error naming the setting and the nearest
/// exportable choice for a model or pipeline SentencePiece cannot run.
TOKENLAB_PRETRAINED_API std::string write_sentencepiece(const ModelDescription& model,
                                                        const NormalizerOptions& normalizer,
                                                        const PreTokenizerOptions& pre_tokenizer);

}  // namespace tokenlab
