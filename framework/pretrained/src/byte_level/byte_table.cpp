#include "byte_level/byte_table.hpp"

#include <algorithm>
#include <bit>

namespace tokenlab::byte_level_detail {

ByteTable::ByteTable(std::size_t expected) {
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(64, expected + expected / 3));
  slots_ = HugePageArray<Slot>(capacity);
  tags_ = HugePageArray<std::uint8_t>(capacity);
  mask_ = capacity - 1;
  shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
}

void ByteTable::insert(std::span<const Entry> entries) {
  // In the order of their home slots (a stable counting sort on the top bits),
  // the writes sweep the table once instead of missing the cache at random:
  // inserting 200k tokens in id order was a fifth of loading o200k.
  constexpr unsigned kBucketBits = 12;  // the top bits of the hash, and so of the home slot
  const auto bucket_of = [](const ShortKey& key) {
    return static_cast<std::size_t>(key.hash() >> (64 - kBucketBits));
  };
  std::vector<std::uint32_t> starts((std::size_t{1} << kBucketBits) + 1, 0);
  for (const Entry& e : entries)
    if (e.bytes.size() <= ShortKey::kMaxBytes) ++starts[bucket_of(ShortKey::of(e.bytes)) + 1];
  for (std::size_t b = 1; b < starts.size(); ++b) starts[b] += starts[b - 1];
  std::vector<std::uint32_t> order(starts.back());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.bytes.size() > ShortKey::kMaxBytes) {
      if (!long_.find(e.bytes)) long_.insert(e.id, std::string(e.bytes), "byte-level table");
      continue;
    }
    order[starts[bucket_of(ShortKey::of(e.bytes))]++] = static_cast<std::uint32_t>(i);
  }
  for (const std::uint32_t i : order) insert_one(ShortKey::of(entries[i].bytes), entries[i].id);
}

void ByteTable::insert_one(const ShortKey& key, TokenId id) {
  const std::uint64_t h = key.hash();
  for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
    if (tags_[i] == 0) {
      tags_[i] = tag_of(h);
      slots_[i].key = key;
      slots_[i].id = id;
      return;
    }
    if (slots_[i].key == key) return;
  }
}

TokenId ByteTable::find_long(std::string_view bytes) const noexcept {
  const auto id = long_.find(bytes);
  return id ? *id : kNone;
}

}  // namespace tokenlab::byte_level_detail
