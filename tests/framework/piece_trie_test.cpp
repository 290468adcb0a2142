// PieceTrie (tokenlab/piece_trie.hpp): every key is found with its value, no
// other string is, and common_prefixes lists exactly the keys that start at a
// place, shortest first; whatever the keys' shapes (the construction sorts them
// by their bytes, bucket by bucket, and falls back to comparisons for small
// buckets and long shared prefixes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
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

TEST_CASE("a piece trie read back from its arrays answers as the one written",
          "[framework][trie]") {
  const PieceTrie built({{"a", 1}, {"ab", 2}, {"abc", 3}, {"b", 4}, {"\xE2\x96\x81x", 5}});
  std::uint32_t value_limit = 6;  // the values are 1 to 5
  const auto copy_of = [&](std::string nodes, std::string dense, PieceTrie& into) {
    std::size_t at = 0;
    const std::string both = nodes + dense;
    return into.assign(nodes.size() / PieceTrie::node_bytes(), dense.size() / 4, value_limit,
                       [&](void* to, std::size_t bytes) {
                         if (bytes > 0) std::memcpy(to, both.data() + at, bytes);
                         at += bytes;
                       });
  };
  const std::string nodes(static_cast<const char*>(built.node_data()),
                          built.node_count() * PieceTrie::node_bytes());
  const std::string dense(reinterpret_cast<const char*>(built.dense_data()),
                          built.dense_words() * 4);
  PieceTrie read;
  REQUIRE(copy_of(nodes, dense, read));
  for (const std::string key : {"a", "ab", "abc", "b", "\xE2\x96\x81x", "abcd", "c", ""})
    CHECK(read.find(key) == built.find(key));
  // A child index past the nodes (the first node's first_child, its first
  // word, made huge) is refused, and leaves the trie empty: a query of a
  // damaged entry's trie could otherwise read past its arrays.
  std::string damaged = nodes;
  const std::uint32_t far = 1u << 30;
  std::memcpy(damaged.data(), &far, sizeof far);
  PieceTrie refused;
  CHECK_FALSE(copy_of(damaged, dense, refused));
  CHECK(refused.find("a") == PieceTrie::kNone);
  CHECK_FALSE(copy_of("", "", refused));  // not even a root
  // A value at or past the limit (the vocabulary's size) is refused too.
  value_limit = 5;
  CHECK_FALSE(copy_of(nodes, dense, refused));
  value_limit = 60;
  // A root with 52 children has a direct table: a table word past the nodes is
  // refused too.
  std::vector<std::pair<std::string_view, std::uint32_t>> letters;
  static const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    letters.emplace_back(std::string_view(alphabet).substr(i, 1), static_cast<std::uint32_t>(i));
  const PieceTrie wide(letters);
  REQUIRE(wide.dense_words() == 256);
  const std::string wide_nodes(static_cast<const char*>(wide.node_data()),
                               wide.node_count() * PieceTrie::node_bytes());
  std::string wide_dense(reinterpret_cast<const char*>(wide.dense_data()), 256 * 4);
  PieceTrie wide_read;
  REQUIRE(copy_of(wide_nodes, wide_dense, wide_read));
  CHECK(wide_read.find("Q") == wide.find("Q"));
  const std::uint32_t past = static_cast<std::uint32_t>(wide.node_count());
  std::memcpy(wide_dense.data() + 4 * 'Q', &past, sizeof past);
  CHECK_FALSE(copy_of(wide_nodes, wide_dense, wide_read));
}
