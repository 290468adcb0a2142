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
#include <cstdlib>
#include <memory>
#include <new>

namespace tokenlab {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    (void)madvise(p, rounded, MADV_HUGEPAGE);  // advice: failing it only costs speed
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage)
      std::allocator<T>().deallocate(p, n);
    else
      std::free(p);
  }
  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;
  }
};

}  // namespace tokenlab
