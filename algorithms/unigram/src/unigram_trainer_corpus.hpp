// Internal: what the unigram trainer's two stages share, the corpus of distinct
// words and its constants (unigram_trainer_seeding.cpp builds the seed vocabulary from it,
// unigram_trainer_em.cpp runs EM and pruning over it), as SentencePiece's unigram trainer is one
// model and one trainer.
#pragma once

#include "tokenlab/unigram/unigram_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/unigram/unigram_lattice.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::unigram::detail {

__extension__ typedef unsigned __int128 Uint128;  // exact sums of count x length

// Words longer than this (in code points) are left out of seeding and EM, as
// SentencePiece leaves out long sentences; it also keeps lattice positions in 16 bits.
inline constexpr std::size_t kMaxWordChars = 4096;
// Expected counts are summed in fixed point (units of 2^-20, fewer bits for huge
// counts: see EmTrainer::fixed_scale_for): integer addition is associative, so the
// totals are bit-identical whatever the thread count and whatever order the
// workers finish in, without one partial vector per chunk.
inline constexpr double kFixedScale = 1048576.0;
// An unknown character costs this much below the least likely piece (SentencePiece's kUnkPenalty).
inline constexpr double kUnknownPenalty = 10.0;
inline constexpr double kExpectedCountThreshold = 0.5;
inline constexpr std::size_t kChunkWords = 512;
inline constexpr std::size_t kChunkPieces = 256;
inline constexpr std::uint32_t kRemoved = 0xFFFFFFFFu;
inline constexpr std::uint64_t kMask21 = (1u << 21) - 1;

inline std::size_t utf8_length(std::uint32_t cp) noexcept {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

inline std::size_t lead_length(unsigned char c) noexcept {
  return c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
}

// The distinct words the trainer works on, as UTF-8 and as code points.
struct Corpus {
  std::vector<std::string_view> text;
  std::vector<std::uint64_t> count;
  std::vector<std::uint32_t> cps;
  std::vector<std::size_t> cp_begin{0};
  std::deque<std::string> repaired;  // storage for words that were not valid UTF-8
  std::uint64_t total = 0;
  std::size_t skipped = 0;
  unsigned scaled_by = 0;  // counts were divided by 2^scaled_by (see load_corpus)

  [[nodiscard]] std::size_t size() const noexcept { return text.size(); }
  [[nodiscard]] std::uint32_t length(std::size_t w) const noexcept {
    return static_cast<std::uint32_t>(cp_begin[w + 1] - cp_begin[w]);
  }
};

/// The sum of count x length over the words (character occurrences), exactly.
Uint128 character_weight(const Corpus& c);
inline constexpr Uint128 kMaxCharacterWeight = static_cast<Uint128>(1) << 62;

/// The distinct words of counts (long ones left out, counts scaled if their
/// sums would overflow; see Corpus::skipped and scaled_by).
Corpus load_corpus(const WordCounts& counts);
/// The framework's alphabet with each character's count in the corpus.
std::vector<std::pair<std::uint32_t, std::uint64_t>> required_characters(
    const Corpus& c, const WordCounts& counts, const TrainerConfig& config);
/// Seed pieces (required characters first) with log-probability scores.
SeedVocabulary seed_from_corpus(
    const Corpus& corpus, const std::vector<std::pair<std::uint32_t, std::uint64_t>>& required,
    const TrainerConfig& config);

}  // namespace tokenlab::unigram::detail
