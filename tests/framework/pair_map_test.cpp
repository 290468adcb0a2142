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

TEST_CASE("PairMap's slots saved as bytes are looked up in place by a view",
          "[pair_map][compiled]") {
  PairMap<Merge> map;
  std::map<std::uint64_t, Merge> expected;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const std::uint64_t key = pack_pair(i % 97, i / 97);
    map.insert_or_assign(key, {i, i + 1});
    expected[key] = {i, i + 1};
  }
  // As a compiled entry holds them: the bytes of the slots, 8-byte aligned.
  const std::size_t bytes = map.capacity() * PairMap<Merge>::slot_bytes();
  std::vector<std::uint64_t> saved(bytes / 8);
  std::memcpy(saved.data(), map.slot_data(), bytes);
  map.erase(pack_pair(0, 0));  // the map goes on; the saved bytes do not change

  const auto view = PairMap<Merge>::View::of(saved.data(), map.capacity(), expected.size());
  REQUIRE(view.has_value());
  CHECK(view->size() == expected.size());
  CHECK(view->capacity() == map.capacity());
  CHECK(view->slot_data() == saved.data());
  for (const auto& [key, value] : expected) {
    const Merge* found = view->find(key);
    REQUIRE(found != nullptr);
    REQUIRE(*found == value);
  }
  for (std::uint32_t left = 97; left < 300; ++left)
    CHECK(view->find(pack_pair(left, 0)) == nullptr);

  SECTION("a map's own view sees its slots") {
    const auto own = map.view();
    CHECK(own.size() == map.size());
    CHECK(own.find(pack_pair(0, 0)) == nullptr);
    REQUIRE(own.find(pack_pair(1, 0)) != nullptr);
    CHECK(*own.find(pack_pair(1, 0)) == *map.find(pack_pair(1, 0)));
  }

  SECTION("slots that would not make a table whose probes end are refused") {
    // Not a power of two; too small; more entries claimed than three quarters.
    CHECK_FALSE(PairMap<Merge>::View::of(saved.data(), map.capacity() - 1, 10).has_value());
    CHECK_FALSE(PairMap<Merge>::View::of(saved.data(), 8, 0).has_value());
    CHECK_FALSE(PairMap<Merge>::View::of(saved.data(), 16, 13).has_value());
    // Every slot full: a probe for a missing key would never end.
    std::vector<std::uint64_t> full(16 * PairMap<Merge>::slot_bytes() / 8);
    for (std::size_t i = 0; i < 16; ++i) {
      const std::uint64_t key = pack_pair(1, static_cast<std::uint32_t>(i));
      std::memcpy(reinterpret_cast<char*>(full.data()) + i * PairMap<Merge>::slot_bytes(), &key,
                  sizeof key);
    }
    CHECK_FALSE(PairMap<Merge>::View::of(full.data(), 16, 12).has_value());
  }

  SECTION("the entry count is taken as given, not counted (the checksum vouches for it)") {
    const auto claimed = PairMap<Merge>::View::of(saved.data(), map.capacity(), 7);
    REQUIRE(claimed.has_value());
    CHECK(claimed->size() == 7);
    CHECK(*claimed->find(pack_pair(1, 0)) == expected[pack_pair(1, 0)]);
  }
}
