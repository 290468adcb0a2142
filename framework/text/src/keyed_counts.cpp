#include "tokenlab/keyed_counts.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

constexpr unsigned kTagShift = 32;

std::size_t home_slot(std::uint32_t tag, std::size_t mask) noexcept {
  return (static_cast<std::size_t>(tag) * 0x9E3779B1u) & mask;
}

std::size_t partition_of(std::uint64_t hash) noexcept {
  // The low bits pick the partition and the high 32 (the tag) the slot in it, so
  // the two choices are independent.
  return static_cast<std::size_t>(hash) & (KeyedCounts::kPartitions - 1);
}

void grow(std::vector<std::uint64_t>& slots) {
  std::vector<std::uint64_t> old = std::move(slots);
  slots.assign(std::max<std::size_t>(64, old.size() * 2), 0);
  const std::size_t mask = slots.size() - 1;
  for (const std::uint64_t value : old) {
    if (value == 0) continue;
    std::size_t slot = home_slot(static_cast<std::uint32_t>(value >> kTagShift), mask);
    while (slots[slot] != 0) slot = (slot + 1) & mask;
    slots[slot] = value;
  }
}

}  // namespace

KeyedCounts::KeyedCounts() = default;
KeyedCounts::~KeyedCounts() = default;

void KeyedCounts::add_locked(Partition& p, std::string_view word, std::uint64_t hash,
                             std::uint64_t count, OccurrenceKey first) {
  if ((p.entries.size() + 1) * 2 > p.slots.size()) grow(p.slots);
  const auto tag = static_cast<std::uint32_t>(hash >> kTagShift);
  const std::size_t mask = p.slots.size() - 1;
  for (std::size_t slot = home_slot(tag, mask);; slot = (slot + 1) & mask) {
    const std::uint64_t occupant = p.slots[slot];
    if (occupant == 0) {
      if (p.entries.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
        throw Error("more than 2^32-2 distinct words in one partition of the counts");
      p.entries.push_back(KeyedEntry{std::string(word), count, first});
      p.slots[slot] = (static_cast<std::uint64_t>(tag) << kTagShift) | p.entries.size();
      return;
    }
    if (static_cast<std::uint32_t>(occupant >> kTagShift) != tag) continue;
    KeyedEntry& entry = p.entries[static_cast<std::uint32_t>(occupant) - 1];
    if (entry.word != word) continue;
    if (__builtin_add_overflow(entry.count, count, &entry.count))
      throw Error("count overflow: the count of '" + std::string(word.substr(0, 60)) +
                  "' exceeds 2^64-1 (18446744073709551615)");
    entry.first = std::min(entry.first, first);
    return;
  }
}

void KeyedCounts::add(std::string_view word, std::uint64_t count, OccurrenceKey first) {
  const std::uint64_t hash = WordCounts::hash(word);
  Partition& p = partitions_[partition_of(hash)];
  std::lock_guard lock(p.mutex);
  add_locked(p, word, hash, count, first);
}

void KeyedCounts::add_block(std::uint64_t block, const WordCounts& counts) {
  std::vector<WordCount> entries;
  entries.reserve(counts.size());
  for (const auto& e : counts.entries()) entries.push_back({e.word, e.count});
  add_block(block, entries);
}

void KeyedCounts::add_block(std::uint64_t block, std::span<const WordCount> entries) {
  if (entries.empty()) return;
  // Group the block's entries by partition (a counting sort), then take each
  // partition's lock once. Starting at a different partition for each block
  // keeps two threads from queueing on the same locks in the same order.
  std::vector<std::uint64_t> hashes(entries.size());
  std::array<std::uint32_t, kPartitions + 1> starts{};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    hashes[i] = WordCounts::hash(entries[i].word);
    ++starts[partition_of(hashes[i]) + 1];
  }
  for (std::size_t p = 0; p < kPartitions; ++p) starts[p + 1] += starts[p];
  std::vector<std::uint32_t> order(entries.size());
  std::array<std::uint32_t, kPartitions> fill{};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::size_t p = partition_of(hashes[i]);
    order[starts[p] + fill[p]++] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t step = 0; step < kPartitions; ++step) {
    const std::size_t p = (step + block) % kPartitions;
    if (starts[p] == starts[p + 1]) continue;
    Partition& partition = partitions_[p];
    std::lock_guard lock(partition.mutex);
    for (std::uint32_t k = starts[p]; k < starts[p + 1]; ++k) {
      const std::uint32_t i = order[k];
      add_locked(partition, entries[i].word, hashes[i], entries[i].count, occurrence_key(block, i));
    }
  }
}

std::size_t KeyedCounts::size() const noexcept {
  std::size_t n = 0;
  for (const Partition& p : partitions_) n += p.entries.size();
  return n;
}

std::vector<KeyedEntry> KeyedCounts::take_sorted() && {
  std::vector<KeyedEntry> all;
  all.reserve(size());
  for (Partition& p : partitions_) {
    p.slots = {};
    std::move(p.entries.begin(), p.entries.end(), std::back_inserter(all));
    p.entries = {};  // freed partition by partition: the peak is one copy plus one partition
  }
  std::sort(all.begin(), all.end(),
            [](const KeyedEntry& a, const KeyedEntry& b) { return a.first < b.first; });
  return all;
}

WordCounts KeyedCounts::take_word_counts() && {
  std::vector<KeyedEntry> sorted = std::move(*this).take_sorted();
  std::vector<WordCounts::Entry> entries;
  entries.reserve(sorted.size());
  for (KeyedEntry& e : sorted) entries.push_back({std::move(e.word), e.count});
  sorted = {};
  return WordCounts::from_entries(std::move(entries));
}

}  // namespace tokenlab
