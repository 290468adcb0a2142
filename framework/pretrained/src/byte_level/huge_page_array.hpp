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
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace tokenlab::byte_level_detail {

template <class T>
class HugePageArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  HugePageArray() = default;
  explicit HugePageArray(std::size_t size) : size_(size) {
    constexpr std::size_t kHugePage = std::size_t{2} << 20;
    const std::size_t bytes = size * sizeof(T);
    // Tables under a huge page gain nothing from the alignment; keep them small.
    const std::size_t alignment = bytes >= kHugePage ? kHugePage : alignof(std::max_align_t);
    const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void* memory = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
    if (memory == nullptr) throw std::bad_alloc();
    // Advice only: without it (or where the kernel refuses) the pages are small.
    if (alignment == kHugePage) (void)madvise(memory, rounded, MADV_HUGEPAGE);
    std::memset(memory, 0, rounded == 0 ? alignment : rounded);
    data_.reset(static_cast<T*>(memory));
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T* data() noexcept { return data_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_.get(); }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Every element back to all-zero bytes.
  void clear() noexcept { std::memset(static_cast<void*>(data_.get()), 0, size_ * sizeof(T)); }
  [[nodiscard]] explicit operator bool() const noexcept { return data_ != nullptr; }

 private:
  struct Free {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace tokenlab::byte_level_detail
