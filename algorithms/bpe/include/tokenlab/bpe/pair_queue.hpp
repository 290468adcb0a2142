// File: pair_queue.hpp
// The merge trainer's priority queue of pair entries: the highest count first,
// then the smallest tie key.
//
// Most entries never come out: their count stays below the last merge's (the
// trainer queues every pair at the start, and again each time one changes). So
// entries wait, unordered, in one bucket per power of two of their count, and
// only the highest bucket that has any is a binary heap: a push below it is an
// append, and the heap stays small enough for the cache (one heap of every
// entry waited on a cache miss at each level of a pop). Every entry in a bucket
// counts less than every entry in the heap, so the heap's top is the top of all.
// The hf/ trainers' MergeQueue is the same idea with HF's order.
//
// Contract: entries that compare equal (same count and tie) come out in an
// unspecified order; the trainer's entries that do are copies for one pair, or
// stale ones it checks and queues again, so the merges do not depend on it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tokenlab::bpe {

class PairQueue {
 public:
  struct Entry {
    std::uint64_t count;
    std::uint64_t tie;  // smaller wins among equal counts
    std::uint64_t key;
  };

  void clear() {
    heap_.clear();
    for (auto& bucket : buckets_) bucket.clear();
    heap_bucket_ = kBuckets;
    waiting_ = 0;
  }

  void push(const Entry& entry) {
    const auto bucket = static_cast<std::size_t>(std::bit_width(entry.count));
    if (bucket >= heap_bucket_) {
      heap_.push_back(entry);
      std::push_heap(heap_.begin(), heap_.end(), Below{});
    } else {
      buckets_[bucket].push_back(entry);
      ++waiting_;
    }
  }

  [[nodiscard]] bool empty() const noexcept { return heap_.empty() && waiting_ == 0; }

  /// The first entry, removed. Not empty().
  Entry pop() {
    if (heap_.empty()) refill();
    std::pop_heap(heap_.begin(), heap_.end(), Below{});
    const Entry top = heap_.back();
    heap_.pop_back();
    return top;
  }

 private:
  static constexpr std::size_t kBuckets = 65;  // bit_width of a 64-bit count

  struct Below {  // a comes out after b
    bool operator()(const Entry& a, const Entry& b) const noexcept {
      return a.count != b.count ? a.count < b.count : a.tie > b.tie;
    }
  };

  // The heap takes the highest bucket that has entries (there is one: !empty()).
  void refill() {
    std::size_t b = heap_bucket_;
    while (buckets_[--b].empty()) {
    }
    heap_bucket_ = b;
    heap_.swap(buckets_[b]);
    waiting_ -= heap_.size();
    std::make_heap(heap_.begin(), heap_.end(), Below{});
  }

  std::vector<Entry> heap_;
  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::size_t heap_bucket_ = kBuckets;  // entries of this bucket and above are in heap_
  std::size_t waiting_ = 0;             // entries in buckets_
};

}  // namespace tokenlab::bpe
