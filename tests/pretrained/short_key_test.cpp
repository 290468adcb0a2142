// The byte-level encoder's packed keys (framework/pretrained/src/byte_level/
// short_key.hpp): both ways of making a key, from the bytes alone and from a
// window of a longer text, must give the same key for every length up to 23
// and every byte value (zero bytes included, which o200k's tokens hold), and
// keys of different byte strings must differ: the vocabulary table and the
// piece cache compare nothing else.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>

#include "byte_level/short_key.hpp"

using tokenlab::byte_level_detail::ShortKey;

namespace {

std::tuple<std::uint64_t, std::uint64_t, std::uint64_t> words(const ShortKey& k) {
  return {k.w[0], k.w[1], k.w[2]};
}

}  // namespace

TEST_CASE("a short key is the same made from the bytes or from a window of a text",
          "[pretrained][byte-level]") {
  // 64 bytes of every kind: zeros, ASCII, UTF-8 lead and tail bytes, 0xFF.
  std::string text;
  for (int i = 0; i < 64; ++i) text += static_cast<char>((i * 37 + (i % 5 == 0 ? 0 : 11)) & 0xFF);
  text[3] = '\0';
  text[20] = '\0';
  for (std::size_t start = 0; start < text.size(); ++start) {
    for (std::size_t size = 0; size <= ShortKey::kMaxBytes && start + size <= text.size(); ++size) {
      const std::string bytes = text.substr(start, size);
      const ShortKey alone = ShortKey::of(bytes);
      CAPTURE(start, size);
      REQUIRE(words(alone) == words(ShortKey::of(text, start, size)));
      REQUIRE(alone.length() == size);
      // The bytes come back from the words in order, then zeros.
      for (std::size_t i = 0; i < 23; ++i) {
        const auto byte = static_cast<unsigned char>(alone.w[i / 8] >> (8 * (i % 8)));
        REQUIRE(byte == (i < size ? static_cast<unsigned char>(bytes[i]) : 0));
      }
    }
  }
}

TEST_CASE("short keys of different bytes differ, trailing zero bytes included",
          "[pretrained][byte-level]") {
  std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> seen;
  const std::string zeros(23, '\0');
  for (std::size_t n = 0; n <= ShortKey::kMaxBytes; ++n) {
    REQUIRE(seen.insert(words(ShortKey::of(zeros.substr(0, n)))).second);
    if (n > 0) REQUIRE(seen.insert(words(ShortKey::of(std::string(n, 'a')))).second);
  }
  REQUIRE(words(ShortKey::of(std::string("a\0", 2))) != words(ShortKey::of("a")));
  REQUIRE(ShortKey::of(" the") == ShortKey::of(std::string(" the")));
  REQUIRE_FALSE(ShortKey::of(" the") == ShortKey::of(" The"));
}
