#include "byte_level/byte_table.hpp"

#include "byte_level/compiled_arrays.hpp"

#include <algorithm>
#include <bit>

namespace tokenlab::byte_level_detail {

ByteTable::ByteTable(std::size_t expected) {
  // At most 4/5 full: o200k's 200,000 tokens take 262,144 slots (8 MiB), not
  // 524,288. The tags keep a lookup of a pair that is no token to a run of
  // about 10 tag bytes; the half-size table halves what the kernel zeroes at
  // load and what encoding's lookups spread over in the cache.
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(64, expected + expected / 4));
  slots_ = HugePageArray<Slot>(capacity);
  tags_ = HugePageArray<std::uint8_t>(capacity);
  mask_ = capacity - 1;
  shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
}

std::size_t ByteTable::insert(std::span<const Entry> entries) {
  // In entries' order, each key's home slot prefetched kDistance entries ahead,
  // so that the misses overlap. (Sorting the keys by home slot first, so that
  // the writes swept the table, cost more than it saved: the scatter into the
  // sorted order missed the cache as often.)
  constexpr std::size_t kDistance = 16;
  ShortKey keys[kDistance];
  const auto prefetch = [&](std::size_t i) {
    if (entries[i].bytes.size() > ShortKey::kMaxBytes) return;
    const ShortKey& key = keys[i % kDistance] = ShortKey::of(entries[i].bytes);
    const std::size_t home = key.hash() >> shift_;
    __builtin_prefetch(&tags_[home]);
    __builtin_prefetch(&slots_[home]);
  };
  for (std::size_t i = 0; i < std::min(kDistance, entries.size()); ++i) prefetch(i);
  std::size_t repeated = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const ShortKey key = keys[i % kDistance];
    if (i + kDistance < entries.size()) prefetch(i + kDistance);
    // A repeated key keeps its first id.
    const bool added = e.bytes.size() > ShortKey::kMaxBytes
                           ? long_.emplace(std::string(e.bytes), e.id).second
                           : insert_one(key, e.id);
    repeated += added ? 0 : 1;
  }
  return repeated;
}

bool ByteTable::insert_one(const ShortKey& key, TokenId id) {
  const std::uint64_t h = key.hash();
  const std::uint8_t tag = tag_of(h);
  // A slot is compared only where its tag matches, as find() does: the run of
  // full slots before a free one (about 10 at 4/5 full) spans several cache
  // lines of slots but one of tags.
  for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
    const std::uint8_t t = tags_[i];
    if (t == 0) {
      tags_[i] = tag;
      slots_[i].key = key;
      slots_[i].id = id;
      return true;
    }
    if (t == tag && slots_[i].key == key) return false;
  }
}

void ByteTable::save(compiled::Writer& out) const {
  save_array(out, tags_);
  save_array(out, slots_);
  out.value(static_cast<std::uint64_t>(long_.size()));
  for (const auto& [bytes, id] : long_) {
    out.value(id);
    out.string(bytes);
  }
}

ByteTable ByteTable::load(compiled::Reader& in) {
  ByteTable t;
  t.tags_ = view_array<std::uint8_t>(in);
  t.slots_ = view_array<Slot>(in);
  const std::size_t capacity = t.tags_.size();
  if (capacity < 64 || !std::has_single_bit(capacity) || t.slots_.size() != capacity)
    throw compiled::Stale("byte table");
  // A probe stops at a free slot: a table without one (an entry someone else
  // wrote into a shared cache) would never end a lookup that misses.
  if (std::count(t.tags_.data(), t.tags_.data() + capacity, std::uint8_t{0}) == 0)
    throw compiled::Stale("byte table without a free slot");
  t.mask_ = capacity - 1;
  t.shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
  const auto long_tokens = in.value<std::uint64_t>();
  in.expect(long_tokens, 16);
  for (std::uint64_t i = 0; i < long_tokens; ++i) {
    const auto id = in.value<TokenId>();
    t.long_.emplace(in.string(), id);
  }
  return t;
}

TokenId ByteTable::find_long(std::string_view bytes) const noexcept {
  const auto it = long_.find(bytes);
  return it == long_.end() ? kNone : it->second;
}

}  // namespace tokenlab::byte_level_detail
