#include "byte_level/piece_cache.hpp"

#include <algorithm>

#include "tokenlab/pretrained/thread_caches.hpp"

namespace tokenlab::byte_level_detail {

struct ThreadPieceCaches {
  std::array<PieceCache, 4> caches;
  std::uint64_t clock = 0;
};

namespace {

ThreadPieceCaches& this_thread_caches() {
  thread_local ThreadPieceCaches mine;
  return mine;
}

// A store to every 4 KiB page: the kernel allocates and zeroes each page (2 MiB
// at a time where the array has huge pages) at its first write, which a read
// does not do (it maps the shared zero page).
void write_each_page(void* data, std::size_t bytes) {
  auto* p = static_cast<volatile unsigned char*>(data);
  for (std::size_t at = 0; at < bytes; at += 4096) p[at] = 0;
}

}  // namespace

PieceCache& PieceCache::of_thread(std::uint64_t identity) {
  ThreadPieceCaches& mine = this_thread_caches();
  ++mine.clock;
  PieceCache* victim = &mine.caches[0];
  for (PieceCache& c : mine.caches) {
    if (c.identity_ == identity) {
      c.last_use_ = mine.clock;
      return c;
    }
    if (c.last_use_ < victim->last_use_) victim = &c;
  }
  if (!victim->slots_) {
    victim->slots_ = HugePageArray<Slot>(kSlots);
    victim->pairs_ = HugePageArray<PairSlot>(kPairSlots);
  } else if (victim->identity_ != 0) {  // another encoder's entries
    victim->slots_.clear();
    victim->pairs_.clear();
  }
  victim->identity_ = identity;
  victim->last_use_ = mine.clock;
  return *victim;
}

void PieceCache::prepare_thread() {
  PieceCache& c = this_thread_caches().caches[0];
  if (c.slots_) return;
  c.slots_ = HugePageArray<Slot>(kSlots);
  c.pairs_ = HugePageArray<PairSlot>(kPairSlots);
  write_each_page(c.slots_.data(), kSlots * sizeof(Slot));
  write_each_page(c.pairs_.data(), kPairSlots * sizeof(PairSlot));
}

}  // namespace tokenlab::byte_level_detail

namespace tokenlab {

void prepare_thread_caches() {
  byte_level_detail::PieceCache::prepare_thread();
}

}  // namespace tokenlab
