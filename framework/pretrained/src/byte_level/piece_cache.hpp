// File: byte_level/piece_cache.hpp (private to tokenlab_pretrained)
// The byte-level encoder's cache from a pre-tokenized piece to its ids: per
// thread and encoder, direct-mapped, 64-byte slots (the key inline, up to 9
// ids, one cache line), 65,536 of them (4 MiB). Running text repeats its pieces
// (Zipf): on 10 MB of English Wikipedia with o200k, 92% of the pieces are found
// here (86% with 16,384 slots) and never reach the vocabulary or the merge loop.
//
//   PieceCache& cache = PieceCache::of_thread(encoder_identity);   // once a line
//   if (const PieceCache::Slot* hit = cache.find(key, hash)) ... else cache.put(...)
//
// Contract: the identity names one immutable encoder (new_model_identity()), so
// an entry is the encoder's own answer for its key. A thread keeps caches for
// its 4 most recently used encoders.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "byte_level/huge_page_array.hpp"
#include "byte_level/short_key.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::byte_level_detail {

class PieceCache {
 public:
  static constexpr std::size_t kMaxIds = 9;
  static constexpr std::size_t kSlots = std::size_t{1} << 16;

  struct Slot {
    ShortKey key;
    std::uint32_t count = 0;
    TokenId ids[kMaxIds] = {};
  };
  static_assert(sizeof(Slot) == 64);

  /// This thread's cache for the encoder with this identity (emptied when the
  /// thread last used it for another encoder).
  static PieceCache& of_thread(std::uint64_t identity);
  /// Gives this thread a cache that no encoder has used yet, its pages
  /// written once (prepare_thread_caches()), unless it has one already.
  static void prepare_thread();

  void prefetch(std::uint64_t hash) const noexcept {
    __builtin_prefetch(&slots_[(hash >> 24) & (kSlots - 1)]);
  }
  [[nodiscard]] const Slot* find(const ShortKey& key, std::uint64_t hash) const noexcept {
    const Slot& s = slots_[(hash >> 24) & (kSlots - 1)];
    return s.key == key ? &s : nullptr;
  }
  // The merge of two adjacent parts, by their ids (which fix their bytes, so
  // the answer of either merge rule): the pieces the cache misses merge the
  // same pairs again and again (a Japanese clause of 60 bytes, too long for
  // the cache, merges each of its characters' bytes), and this table (1 MiB)
  // stays in the core's cache where the vocabulary's (16 MiB) does not.
  struct PairSlot {
    std::uint64_t pair_plus_one = 0;  // 0: empty (pack_pair(kNone, kNone) + 1 wraps to 0)
    std::uint32_t rank = 0;
    TokenId merged = 0;
  };
  static constexpr std::size_t kPairSlots = std::size_t{1} << 16;
  [[nodiscard]] const PairSlot* find_pair(std::uint64_t pair) const noexcept {
    const PairSlot& s = pairs_[pair_index(pair)];
    return s.pair_plus_one == pair + 1 ? &s : nullptr;
  }
  void prefetch_pair(std::uint64_t pair) const noexcept {
    __builtin_prefetch(&pairs_[pair_index(pair)]);
  }
  void put_pair(std::uint64_t pair, std::uint32_t rank, TokenId merged) noexcept {
    pairs_[pair_index(pair)] = PairSlot{pair + 1, rank, merged};
  }

  /// A pre-tokenized piece of the line being encoded, with its key and hash
  /// once worked out.
  struct Piece {
    ShortKey key;
    std::uint64_t hash;
    std::uint32_t start;
    std::uint32_t size;
  };
  /// Scratch for ByteLevelEncoder::encode: the line's pieces (kept to reuse
  /// its allocation; meaningless between calls).
  std::vector<Piece> pieces;

  void put(const ShortKey& key, std::uint64_t hash, const TokenId* ids,
           std::size_t count) noexcept {
    if (count > kMaxIds) return;
    Slot& s = slots_[(hash >> 24) & (kSlots - 1)];
    s.key = key;
    s.count = static_cast<std::uint32_t>(count);
    for (std::size_t i = 0; i < count; ++i) s.ids[i] = ids[i];
  }

 private:
  static std::size_t pair_index(std::uint64_t pair) noexcept {
    return static_cast<std::size_t>((pair * 0x9E3779B97F4A7C15ull) >> 48);
  }

  HugePageArray<Slot> slots_;  // allocated on first use
  HugePageArray<PairSlot> pairs_;
  std::uint64_t identity_ = 0;  // 0: no encoder has used it (new_model_identity() starts at 1)
  std::uint64_t last_use_ = 0;
  friend struct ThreadPieceCaches;
};

}  // namespace tokenlab::byte_level_detail
