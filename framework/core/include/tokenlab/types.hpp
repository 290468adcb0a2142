// File: types.hpp
// Small vocabulary types shared by every component.
#pragma once

#include <cstddef>
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

/// The most segmentations an n-best query returns, as SentencePiece clamps its
/// nbest_size: the search's memory grows with k times the word's length.
inline constexpr std::size_t kMaxNBest = 1024;
/// The most search states one n-best query may create before it fails with an
/// Error (about 100 MB): bounds the work for any k on any word.
inline constexpr std::size_t kMaxNBestHypotheses = std::size_t{1} << 22;

/// The boundary marker every pre-tokenized word carries: U+2581 LOWER ONE EIGHTH BLOCK.
inline constexpr char kBoundaryMarker[] = "\u2581";
inline constexpr std::uint32_t kBoundaryMarkerCodePoint = 0x2581;

}  // namespace tokenlab
