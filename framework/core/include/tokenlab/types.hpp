// File: types.hpp
// Small vocabulary types shared by every component.
#pragma once

#include <cstdint>

namespace tokenlab {

/// A token id: dense, from 0 to vocabulary size - 1.
using TokenId = std::uint32_t;

/// Optional segmenter abilities, advertised in a bitmask by plugins.
enum Capability : std::uint64_t {
  kCapabilityNone = 0,
  /// encode_sampled(): stochastic segmentation (BPE-dropout, unigram sampling).
  kCapabilitySampling = 1u << 0,
  /// nbest(): the k best segmentations with their scores.
  kCapabilityNBest = 1u << 1,
  /// train() reports each step (merge, EM round, pruning) to the observer.
  kCapabilityTrace = 1u << 2,
};

using Capabilities = std::uint64_t;

/// The boundary marker every pre-tokenized word carries: U+2581 LOWER ONE EIGHTH BLOCK.
inline constexpr char kBoundaryMarker[] = "\u2581";
inline constexpr std::uint32_t kBoundaryMarkerCodePoint = 0x2581;

}  // namespace tokenlab
