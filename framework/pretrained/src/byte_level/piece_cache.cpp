#include "byte_level/piece_cache.hpp"

#include <algorithm>

namespace tokenlab::byte_level_detail {

struct ThreadPieceCaches {
  std::array<PieceCache, 4> caches;
  std::uint64_t clock = 0;
};

PieceCache& PieceCache::of_thread(std::uint64_t identity) {
  thread_local ThreadPieceCaches mine;
  ++mine.clock;
  PieceCache* victim = &mine.caches[0];
  for (PieceCache& c : mine.caches) {
    if (c.identity_ == identity) {
      c.last_use_ = mine.clock;
      return c;
    }
    if (c.last_use_ < victim->last_use_) victim = &c;
  }
  victim->identity_ = identity;
  victim->last_use_ = mine.clock;
  if (victim->slots_) {
    victim->slots_.clear();
    victim->pairs_.clear();
  } else {
    victim->slots_ = HugePageArray<Slot>(kSlots);
    victim->pairs_ = HugePageArray<PairSlot>(kPairSlots);
  }
  return *victim;
}

}  // namespace tokenlab::byte_level_detail
