// File: rank_merges.hpp
// BPE by trained merges (tokenlab, Hugging Face) against BPE by the rank of the
// merged piece (tiktoken, SentencePiece), for the exporters to those formats.
//
// tokenlab merges only the pairs it trained, lowest rank first. tiktoken and
// SentencePiece merge any two adjacent parts whose concatenation is a token,
// lowest rank (highest score) first, and tiktoken also takes a whole piece that
// is a token as that token. The two agree unless some token is also reached
// from a pair that was not its merge: trained "b"+"c", then "a"+"b", then
// "ab"+"c", the merges encode "abc" as "a" "bc", and the rank rule finds "abc".
//
//   const RankMergeConflicts c = rank_merge_conflicts(description, RankRule::tiktoken);
//   if (c.count > 0) ...  // refuse, or export saying it is approximate
#pragma once

#include <cstddef>

#include "tokenlab/model_description.hpp"
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

enum class RankRule {
  tiktoken,       // a whole piece that is a token first; base units are bytes
  sentencepiece,  // no whole-piece step; base units are characters
};

struct RankMergeConflicts {
  /// Tokens whose own text the rank rule encodes otherwise than the merges do.
  std::size_t count = 0;
  /// The first of them, when count > 0.
  TokenId example = 0;
};

/// Checks each token of a BPE description on its own text, which is where
/// such a token shows (a token the trainer built from one pair but the rank
/// rule builds from another); O(tokens x length^2).
TOKENLAB_PRETRAINED_API RankMergeConflicts rank_merge_conflicts(const ModelDescription& model,
                                                                RankRule rule);

}  // namespace tokenlab
