// File: pretrained/huge_page_allocator.hpp
// An allocator for the large tables a tokenizer file is loaded into (TokenTable,
// the fused encoder's byte table of 16 MB for o200k): allocations of 2 MiB or
// more are aligned to 2 MiB and advised to use transparent huge pages, so that
// filling such a table takes a few page faults rather than one a 4 KiB page (a
// tenth of loading o200k), and its random probes miss the TLB less. Smaller
// ones, or a kernel without THP, get ordinary memory: only the speed differs.
//
//   std::vector<Slot, HugePageAllocator<Slot>> slots(1u << 19);
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace tokenlab {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// bytes (a multiple of kHugePageBytes) of zeroed memory aligned to a huge page,
/// advised to use huge pages. Straight from mmap, whose pages the kernel zeroes
/// on first touch: aligned_alloc then memset zeroed a 16 MB table twice (41% of
/// loading o200k). Throws std::bad_alloc. Free with unmap_huge_pages.
inline void* map_huge_pages(std::size_t bytes) {
  const std::size_t span = bytes + kHugePageBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  if (aligned > start) (void)munmap(raw, aligned - start);
  if (const std::size_t tail = start + span - (aligned + bytes); tail > 0)
    (void)munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  // Advice: without it (or where the kernel refuses) the pages are small.
  (void)madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}
inline void unmap_huge_pages(void* p, std::size_t bytes) noexcept {
  (void)munmap(p, bytes);
}
/// bytes rounded up to whole huge pages.
[[nodiscard]] inline constexpr std::size_t huge_page_bytes(std::size_t bytes) noexcept {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = kHugePageBytes;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    return static_cast<T*>(map_huge_pages(huge_page_bytes(bytes)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage)
      std::allocator<T>().deallocate(p, n);
    else
      unmap_huge_pages(p, huge_page_bytes(n * sizeof(T)));
  }
  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;
  }
};

}  // namespace tokenlab
