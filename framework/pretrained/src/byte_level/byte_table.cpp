#include "byte_level/byte_table.hpp"

#include <bit>

namespace tokenlab::byte_level_detail {

ByteTable::ByteTable(std::size_t expected) {
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(64, expected + expected / 3));
  slots_.resize(capacity);
  mask_ = capacity - 1;
  shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
}

void ByteTable::insert(std::string_view bytes, TokenId id) {
  if (bytes.size() > ShortKey::kMaxBytes) {
    if (!long_.find(bytes)) long_.insert(id, std::string(bytes), "byte-level table");
    return;
  }
  const ShortKey key = ShortKey::of(bytes);
  for (std::size_t i = key.hash() >> shift_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == key) return;
    if (s.key.empty()) {
      s.key = key;
      s.id = id;
      return;
    }
  }
}

TokenId ByteTable::find_long(std::string_view bytes) const noexcept {
  const auto id = long_.find(bytes);
  return id ? *id : kNone;
}

}  // namespace tokenlab::byte_level_detail
