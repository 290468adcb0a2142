// PairMap (tokenlab/pair_map.hpp): the open-addressing map behind the merge
// trainers, the encoders' merge tables and the compiled-model cache's copy of
// a BPE model's merge table.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "tokenlab/pair_map.hpp"

using tokenlab::pack_pair;
using tokenlab::PairMap;

namespace {

struct Merge {  // as a BPE model's value: a rank and the merged id
  std::uint32_t rank = 0;
  std::uint32_t merged = 0;
  bool operator==(const Merge&) const = default;
};

// The map's contents against a std::map's, both ways.
void same_contents(const PairMap<Merge>& map, const std::map<std::uint64_t, Merge>& expected) {
  REQUIRE(map.size() == expected.size());
  for (const auto& [key, value] : expected) {
    const Merge* found = map.find(key);
    REQUIRE(found != nullptr);
    REQUIRE(*found == value);
  }
  std::size_t seen = 0;
  map.for_each([&](std::uint64_t key, const Merge& value) {
    ++seen;
    const auto it = expected.find(key);
    REQUIRE(it != expected.end());
    REQUIRE(it->second == value);
  });
  REQUIRE(seen == expected.size());
}

}  // namespace

TEST_CASE("PairMap finds what was inserted and nothing else, through growth and erasure",
          "[pair_map]") {
  // Keys from few ids, so that probes run into each other's slots, and
  // erasures shift runs back (no tombstones may hide a key).
  std::mt19937 random(7);
  std::uniform_int_distribution<std::uint32_t> id(0, 40);
  PairMap<Merge> map;
  std::map<std::uint64_t, Merge> expected;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t key = pack_pair(id(random), id(random));
    if (random() % 3 == 0) {
      map.erase(key);
      expected.erase(key);
    } else {
      const Merge value{static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(key)};
      map.insert_or_assign(key, value);
      expected[key] = value;
    }
    if (step % 1000 == 0) same_contents(map, expected);
  }
  same_contents(map, expected);
  CHECK(map.find(pack_pair(41, 0)) == nullptr);
}

TEST_CASE("PairMap's slots saved as bytes make the same map again", "[pair_map][compiled]") {
  PairMap<Merge> map;
  std::map<std::uint64_t, Merge> expected;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const std::uint64_t key = pack_pair(i % 97, i / 97);
    map.insert_or_assign(key, {i, i + 1});
    expected[key] = {i, i + 1};
  }
  const std::size_t bytes = map.capacity() * PairMap<Merge>::slot_bytes();
  std::vector<char> saved(bytes);
  std::memcpy(saved.data(), map.slot_data(), bytes);
  const auto fill_from = [](const std::vector<char>& from) {
    return [&from](void* to, std::size_t n) {
      REQUIRE(n == from.size());
      std::memcpy(to, from.data(), n);
    };
  };

  PairMap<Merge> copy;
  REQUIRE(copy.assign_slots(map.capacity(), map.size(), fill_from(saved)));
  same_contents(copy, expected);
  // And it goes on as a map: an insert, a change, an erasure.
  copy.insert_or_assign(pack_pair(500, 500), {1, 2});
  copy.insert_or_assign(pack_pair(0, 0), {9, 9});
  copy.erase(pack_pair(1, 0));
  expected[pack_pair(500, 500)] = {1, 2};
  expected[pack_pair(0, 0)] = {9, 9};
  expected.erase(pack_pair(1, 0));
  same_contents(copy, expected);

  SECTION("slots that would not make a table whose probes end are refused") {
    PairMap<Merge> refused;
    // Not a power of two; too small; the size the entry claims is not its full slots.
    CHECK_FALSE(refused.assign_slots(map.capacity() - 1, map.size(), [](void*, std::size_t) {}));
    CHECK_FALSE(refused.assign_slots(8, 0, [](void*, std::size_t) {}));
    CHECK_FALSE(refused.assign_slots(map.capacity(), map.size() + 1, fill_from(saved)));
    // Every slot full: a probe for a missing key would never end.
    std::vector<char> full(16 * PairMap<Merge>::slot_bytes());
    for (std::size_t i = 0; i < 16; ++i) {
      const std::uint64_t key = pack_pair(1, static_cast<std::uint32_t>(i));
      std::memcpy(full.data() + i * PairMap<Merge>::slot_bytes(), &key, sizeof key);
    }
    CHECK_FALSE(refused.assign_slots(16, 16, fill_from(full)));
    // What a refusal leaves is an empty map that works.
    CHECK(refused.size() == 0);
    CHECK(refused.find(pack_pair(1, 1)) == nullptr);
    refused.insert_or_assign(pack_pair(1, 1), {3, 4});
    CHECK(*refused.find(pack_pair(1, 1)) == Merge{3, 4});
  }
}
