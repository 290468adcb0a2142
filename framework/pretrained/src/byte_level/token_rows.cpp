#include "byte_level/token_rows.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::byte_level_detail {

TokenRows token_rows(const ByteLevelEncoder& encoder, std::size_t id_limit, Spelling spelling) {
  // What each byte is written as: itself, or its letter (one or two bytes of
  // UTF-8: GPT-2's alphabet ends at U+0143).
  struct Letter {
    char bytes[2];
    std::uint8_t size;
  };
  std::array<Letter, 256> letters{};
  for (unsigned b = 0; b < 256; ++b) {
    std::string s(1, static_cast<char>(b));
    if (spelling == Spelling::gpt2_alphabet) {
      s.clear();
      utf8::append(s, byte_level_alphabet()[b]);
    }
    letters[b].size = static_cast<std::uint8_t>(s.size());
    std::memcpy(letters[b].bytes, s.data(), s.size());
  }
  struct Place {
    std::uint32_t at = 0;
    std::uint32_t size = 0;  // 0: no token (none is empty)
  };
  std::vector<Place> places(id_limit);
  // Not zeroed, so a page is paid for only once a string reaches it.
  std::size_t capacity = std::size_t{4} << 20;
  auto text = std::make_unique_for_overwrite<char[]>(capacity);
  std::size_t used = 0;
  std::size_t count = 0;
  encoder.for_each_token([&](std::string_view bytes, TokenId id) {
    if (id >= id_limit || bytes.empty()) return;
    // Every letter two bytes at most, and one byte written past the last.
    if (const std::size_t need = used + 2 * bytes.size() + 1; need > capacity) {
      capacity = std::max(2 * capacity, need);
      auto larger = std::make_unique_for_overwrite<char[]>(capacity);
      std::memcpy(larger.get(), text.get(), used);
      text = std::move(larger);
    }
    char* to = text.get() + used;
    for (const char byte : bytes) {
      const Letter& letter = letters[static_cast<unsigned char>(byte)];
      std::memcpy(to, letter.bytes, 2);
      to += letter.size;
    }
    const auto size = static_cast<std::size_t>(to - (text.get() + used));
    places[id] = {static_cast<std::uint32_t>(used), static_cast<std::uint32_t>(size)};
    used += size;
    ++count;
  });
  TokenRows made;
  made.rows.reserve(count);
  for (std::size_t id = 0; id < id_limit; ++id)
    if (const Place& place = places[id]; place.size != 0)
      made.rows.push_back(
          {static_cast<TokenId>(id), std::string_view(text.get() + place.at, place.size)});
  made.text = std::move(text);
  return made;
}

}  // namespace tokenlab::byte_level_detail
