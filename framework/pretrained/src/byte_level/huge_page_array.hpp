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

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "tokenlab/pretrained/huge_page_allocator.hpp"

namespace tokenlab::byte_level_detail {

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
  HugePageArray(HugePageArray&& other) noexcept { swap(other); }
  HugePageArray& operator=(HugePageArray&& other) noexcept {
    HugePageArray(std::move(other)).swap(*this);
    return *this;
  }
  HugePageArray(const HugePageArray&) = delete;
  HugePageArray& operator=(const HugePageArray&) = delete;
  ~HugePageArray() {
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
  /// Every element back to all-zero bytes.
  void clear() noexcept {
    if (data_ != nullptr) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }
  [[nodiscard]] explicit operator bool() const noexcept { return data_ != nullptr; }

 private:
  void swap(HugePageArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(bytes_, other.bytes_);
    std::swap(mapped_, other.mapped_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;  // what was mapped, when mapped_
  bool mapped_ = false;
};

}  // namespace tokenlab::byte_level_detail
