#include "tokenlab/keyed_counts.hpp"

#include <algorithm>
#include <limits>

#include "tokenlab/error.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

namespace {

constexpr unsigned kTagShift = 32;

std::size_t home_slot(std::uint32_t tag, std::size_t mask) noexcept {
  return (static_cast<std::size_t>(tag) * 0x9E3779B1u) & mask;
}

}  // namespace

void KeyedCounts::grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(64, old.size() * 2), 0);
  const std::size_t mask = slots_.size() - 1;
  for (const std::uint64_t value : old) {
    if (value == 0) continue;
    std::size_t slot = home_slot(static_cast<std::uint32_t>(value >> kTagShift), mask);
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = value;
  }
}

void KeyedCounts::add(std::string_view word, std::uint64_t count, OccurrenceKey first) {
  if ((entries_.size() + 1) * 2 > slots_.size()) grow();  // load factor <= 1/2
  const auto tag = static_cast<std::uint32_t>(WordCounts::hash(word) >> kTagShift);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = home_slot(tag, mask);; slot = (slot + 1) & mask) {
    const std::uint64_t occupant = slots_[slot];
    if (occupant == 0) {
      if (entries_.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
        throw Error("more than 2^32-2 distinct words on one rank: use more ranks");
      entries_.push_back(KeyedEntry{std::string(word), count, first});
      slots_[slot] = (static_cast<std::uint64_t>(tag) << kTagShift) | entries_.size();
      return;
    }
    if (static_cast<std::uint32_t>(occupant >> kTagShift) != tag) continue;
    KeyedEntry& entry = entries_[static_cast<std::uint32_t>(occupant) - 1];
    if (entry.word != word) continue;
    if (__builtin_add_overflow(entry.count, count, &entry.count))
      throw Error("count overflow: the count of '" + std::string(word.substr(0, 60)) +
                  "' exceeds 2^64-1 (18446744073709551615)");
    entry.first = std::min(entry.first, first);
    return;
  }
}

std::vector<KeyedEntry> KeyedCounts::take_sorted() && {
  slots_ = {};
  std::vector<KeyedEntry> sorted = std::move(entries_);
  entries_.clear();
  std::sort(sorted.begin(), sorted.end(),
            [](const KeyedEntry& a, const KeyedEntry& b) { return a.first < b.first; });
  return sorted;
}

}  // namespace tokenlab
