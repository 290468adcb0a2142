// File: segmenter_support.hpp
// Small helpers that most segmenter implementations need; optional for plugin authors.
//
//   add_special_tokens(vocab, options, {"<unk>"}, "<unk>", "bpe");
//   std::string text = decode_pieces(vocab, ids);
//   PayloadIArchive ar(in, "bpe", kFormatVersion);  // payload.hpp, included here
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab {

/// What an unknown token decodes to: U+2047 DOUBLE QUESTION MARK, as SentencePiece.
inline constexpr char kUnknownSurface[] = "\u2047";

/// Replaces vocabulary with options.special_tokens (or defaults when unset), marking
/// unknown_token as the unknown token and adding it first if the list lacks it:
/// step 1 of lay_out_vocabulary (vocabulary_layout.hpp), for callers that need
/// nothing else. Throws Error if vocab_size cannot hold the specials plus one piece.
TOKENLAB_API void add_special_tokens(Vocabulary& vocabulary, const TrainOptions& options,
                                     const std::vector<std::string>& defaults,
                                     const std::string& unknown_token, const std::string& plugin);

/// Concatenates pieces; the unknown token becomes kUnknownSurface and other special
/// tokens vanish (they have no surface text).
TOKENLAB_API std::string decode_pieces(const Vocabulary& vocabulary, std::span<const TokenId> ids);

}  // namespace tokenlab
