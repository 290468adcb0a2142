// PieceTrie (tokenlab/piece_trie.hpp): every key is found with its value, no
// other string is, and common_prefixes lists exactly the keys that start at a
// place, shortest first; whatever the keys' shapes (the construction sorts them
// by their bytes, bucket by bucket, and falls back to comparisons for small
// buckets and long shared prefixes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/piece_trie.hpp"

using tokenlab::PieceTrie;

namespace {

// Keys with many shared prefixes: short keys over a few bytes (high bytes
// too), keys that are prefixes of other keys, hundreds under one prefix, and
// keys sharing a prefix longer than the bucket sort's depth limit.
std::map<std::string, std::uint32_t> keys_of_every_shape(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::string alphabet("ab\0\xff\xc3\xa9z", 7);
  std::map<std::string, std::uint32_t> keys;
  std::uint32_t value = 0;
  const auto add = [&](const std::string& key) {
    if (!key.empty() && keys.emplace(key, value).second) ++value;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string key;
    const auto length = 1 + random() % 9;
    for (std::size_t j = 0; j < length; ++j) key += alphabet[random() % alphabet.size()];
    add(key);
  }
  const std::string long_prefix(100, 'q');
  for (int i = 0; i < 200; ++i) add(long_prefix.substr(0, 60 + i % 50) + std::to_string(i));
  for (int i = 0; i < 300; ++i) add("##" + std::to_string(i * 7919));
  return keys;
}

}  // namespace

TEST_CASE("a piece trie finds every key with its value and nothing else", "[framework][trie]") {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const auto keys = keys_of_every_shape(seed);
    std::vector<std::pair<std::string_view, std::uint32_t>> entries;
    for (const auto& [key, value] : keys) entries.emplace_back(key, value);
    std::shuffle(entries.begin(), entries.end(), std::mt19937_64(seed));
    const PieceTrie trie(entries);
    for (const auto& [key, value] : keys) REQUIRE(trie.find(key) == value);
    // Strings one byte off each key: a key only when the map has them.
    for (const auto& [key, value] : keys) {
      for (const std::string& other : {key + "a", key.substr(0, key.size() - 1), "x" + key}) {
        const auto it = keys.find(other);
        REQUIRE(trie.find(other) == (it == keys.end() ? PieceTrie::kNone : it->second));
      }
    }
  }
}

TEST_CASE("a piece trie lists the keys at a place shortest first", "[framework][trie]") {
  const auto keys = keys_of_every_shape(7);
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;
  for (const auto& [key, value] : keys) entries.emplace_back(key, value);
  const PieceTrie trie(entries);
  std::mt19937_64 random(11);
  std::string text;
  for (int i = 0; i < 400; ++i) {
    auto it = keys.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(random() % keys.size()));
    text += it->first;
  }
  for (std::size_t pos = 0; pos < text.size(); pos += 1 + random() % 13) {
    std::vector<std::pair<std::size_t, std::uint32_t>> found;
    trie.common_prefixes(text, pos, [&](std::size_t length, std::uint32_t value) {
      found.emplace_back(length, value);
    });
    std::vector<std::pair<std::size_t, std::uint32_t>> expected;
    for (std::size_t length = 1; pos + length <= text.size() && length <= 200; ++length)
      if (const auto it = keys.find(text.substr(pos, length)); it != keys.end())
        expected.emplace_back(length, it->second);
    REQUIRE(found == expected);
  }
}

TEST_CASE("a piece trie refuses a key given twice and an empty key", "[framework][trie]") {
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;
  for (int i = 0; i < 100; ++i) entries.emplace_back("ab", i);  // one bucket of 100
  CHECK_THROWS_WITH(PieceTrie(entries), "duplicate piece 'ab' in a trie");
  CHECK_THROWS_WITH(PieceTrie({{"a", 0}, {"", 1}}), "empty piece in a trie");
}
