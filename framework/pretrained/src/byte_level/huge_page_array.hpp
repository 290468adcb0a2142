// File: byte_level/huge_page_array.hpp (private to tokenlab_pretrained)
// A fixed-size, zero-filled array for a table probed at random (the piece cache,
// the vocabulary's slots), placed on 2 MiB pages where the kernel gives them
// (transparent huge pages in "madvise" mode, Debian's default). With 4 KiB pages
// a 4 MiB table spans 1,024 pages, more than the TLB holds, so a probe missed
// the TLB as well as the cache: in the profile of o200k encoding the prefetch of
// the piece cache's slot was a quarter of the encode loop, a page walk each.
// Fewer pages also means fewer page faults when the table is filled.
//
//   HugePageArray<Slot> slots(65536);   // all bytes zero
//   slots[i].key = key;
//
// Contract: T is trivially copyable and an all-zero T is its empty value.
// A view (view(), a compiled entry's table) owns no memory and is read-only:
// nothing may write through it.
//
// Only these tables and the BPE model's merge map (HugePageAllocator below),
// which the encode loop probes at random, are placed on huge pages. Everything
// else a load or a count touches once or in order (the file's bytes, the
// streamed lists, TokenTable, the program's heap) is in ordinary pages: on a
// virtual machine whose host takes freed memory back, a huge page's first
// touch could cost milliseconds, and a lone command paid that for every 2 MiB
// (docs/performance.md, thirteenth round).
#pragma once

#include <sys/mman.h>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace tokenlab::byte_level_detail {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// bytes rounded up to whole huge pages.
[[nodiscard]] inline constexpr std::size_t huge_page_bytes(std::size_t bytes) noexcept {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

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

/// An allocator for a growing table probed at random in the encode loop (the
/// BPE model's merge map, 16 MB for Gemma 3): from 2 MiB on, map_huge_pages;
/// smaller, the heap.
template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return std::allocator<T>().allocate(n);
    return static_cast<T*>(map_huge_pages(huge_page_bytes(bytes)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes)
      std::allocator<T>().deallocate(p, n);
    else
      unmap_huge_pages(p, huge_page_bytes(n * sizeof(T)));
  }
  /// Default-initialises: a trivial T is left as its memory is (fresh huge
  /// pages are zero), so that a vector resized only to be overwritten costs
  /// no pass of writes first.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;
  }
};

template <class T>
class HugePageArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  HugePageArray() = default;
  explicit HugePageArray(std::size_t size) : size_(size), bytes_(size * sizeof(T)) {
    if (bytes_ >= kHugePageBytes) {
      bytes_ = huge_page_bytes(bytes_);
      data_ = static_cast<T*>(map_huge_pages(bytes_));  // zeroed by the kernel
      mapped_ = true;
    } else {
      data_ = static_cast<T*>(std::calloc(size == 0 ? 1 : size, sizeof(T)));
      if (data_ == nullptr) throw std::bad_alloc();
    }
  }
  /// A read-only view of size elements at data, kept alive by keep (a
  /// compiled entry's mapping): nothing allocated, nothing copied.
  static HugePageArray view(const T* data, std::size_t size, std::shared_ptr<const void> keep) {
    HugePageArray a;
    a.data_ = const_cast<T*>(data);
    a.size_ = size;
    a.viewed_ = true;
    a.keep_ = std::move(keep);
    return a;
  }
  HugePageArray(HugePageArray&& other) noexcept { swap(other); }
  HugePageArray& operator=(HugePageArray&& other) noexcept {
    HugePageArray(std::move(other)).swap(*this);
    return *this;
  }
  HugePageArray(const HugePageArray&) = delete;
  HugePageArray& operator=(const HugePageArray&) = delete;
  ~HugePageArray() {
    if (viewed_) return;
    if (mapped_)
      unmap_huge_pages(data_, bytes_);
    else
      std::free(data_);
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Every element back to all-zero bytes (not on a view).
  void clear() noexcept {
    assert(!viewed_);
    if (data_ != nullptr) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }
  [[nodiscard]] explicit operator bool() const noexcept { return data_ != nullptr; }

 private:
  void swap(HugePageArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(bytes_, other.bytes_);
    std::swap(mapped_, other.mapped_);
    std::swap(viewed_, other.viewed_);
    std::swap(keep_, other.keep_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;  // what was mapped, when mapped_
  bool mapped_ = false;
  bool viewed_ = false;               // data_ is not this array's to free or write
  std::shared_ptr<const void> keep_;  // what keeps a view's memory alive
};

}  // namespace tokenlab::byte_level_detail
