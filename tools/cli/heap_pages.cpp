#include "heap_pages.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tokenlab::cli {

bool tune_program_heap() noexcept {
#if defined(__GLIBC__)
  if (std::getenv("TOKENLAB_SYSTEM_HEAP") != nullptr) return false;
  // Each is 1 when glibc takes it.
  const bool taken = (mallopt(M_MMAP_THRESHOLD, 32 << 20) &  // mallopt's documented largest
                      mallopt(M_TOP_PAD, 256 << 20) & mallopt(M_TRIM_THRESHOLD, 1 << 30) &
                      mallopt(M_ARENA_MAX, 1)) == 1;
  if (std::getenv("TOKENLAB_HUGE_PAGES") != nullptr) {
    // Grow the heap now (a block larger than what is left at its top), then
    // advise the whole huge pages of that growth.
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
    void* grow = std::malloc(std::size_t{1} << 20);
    const auto block = reinterpret_cast<std::uintptr_t>(grow);
    const auto after = reinterpret_cast<std::uintptr_t>(sbrk(0));
    std::free(grow);
    // The break did not move, or the block is not below it (a sanitizer's
    // allocator; or sbrk was refused and malloc mapped the block): not the heap.
    const std::uintptr_t from = (before + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t to = after & ~(kHugePage - 1);
    if (after > before && block < after && to > from)
      (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  }
  return taken;
#else
  return false;
#endif
}

}  // namespace tokenlab::cli
