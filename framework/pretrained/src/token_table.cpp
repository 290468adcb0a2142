#include "tokenlab/pretrained/token_table.hpp"

#include <cstring>

#include "tokenlab/error.hpp"

namespace tokenlab {

std::uint64_t TokenTable::hash(std::string_view token) noexcept {
  // FNV-1a over 8-byte words, then a final mix: cheap for the short strings
  // tokens are, and well spread in the high bits the slots keep.
  std::uint64_t h = 0xcbf29ce484222325ull ^ token.size();
  std::size_t i = 0;
  for (; i + 8 <= token.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, token.data() + i, 8);
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, token.data() + i, token.size() - i);
  h = (h ^ tail) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return h;
}

std::size_t TokenTable::slot_of(std::string_view token, std::uint64_t h) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  const std::uint64_t tag = h >> 32;
  for (std::size_t s = h & mask;; s = (s + 1) & mask) {
    const std::uint64_t slot = slots_[s];
    if (slot == 0) return s;
    if ((slot >> 32) == tag && tokens_[(slot & 0xFFFFFFFFu) - 1] == token) return s;
  }
}

void TokenTable::rehash(std::size_t capacity) {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  for (const std::uint64_t slot : old) {
    if (slot == 0) continue;
    std::size_t s = hash(tokens_[(slot & 0xFFFFFFFFu) - 1]) & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = slot;
  }
}

void TokenTable::reserve(std::size_t n) {
  tokens_.reserve(n);
  present_.reserve(n);
  std::size_t capacity = 1024;
  while (capacity < n * 2) capacity *= 2;
  if (capacity > slots_.size()) rehash(capacity);
}

bool TokenTable::insert(TokenId id, std::string token, const std::string& where) {
  if (id > kMaxId)
    throw Error(where + ": id " + std::to_string(id) + " is larger than tokenlab accepts (" +
                std::to_string(kMaxId) + ")");
  if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 1024 : slots_.size() * 2);
  const std::uint64_t h = hash(token);
  const std::size_t s = slot_of(token, h);
  if (slots_[s] != 0) {
    const TokenId existing = static_cast<TokenId>((slots_[s] & 0xFFFFFFFFu) - 1);
    if (existing == id) return false;
    throw Error(where + ": token \"" + token + "\" has two ids, " + std::to_string(existing) +
                " and " + std::to_string(id));
  }
  if (id < present_.size() && present_[id])
    throw Error(where + ": id " + std::to_string(id) + " is given to two tokens, \"" + tokens_[id] +
                "\" and \"" + token + "\"");
  if (id >= tokens_.size()) {
    tokens_.resize(id + 1);
    present_.resize(id + 1, false);
  }
  present_[id] = true;
  tokens_[id] = std::move(token);
  slots_[s] = ((h >> 32) << 32) | (std::uint64_t{id} + 1);
  ++count_;
  return true;
}

std::optional<TokenId> TokenTable::find(std::string_view token) const noexcept {
  if (slots_.empty()) return std::nullopt;
  const std::uint64_t slot = slots_[slot_of(token, hash(token))];
  if (slot == 0) return std::nullopt;
  return static_cast<TokenId>((slot & 0xFFFFFFFFu) - 1);
}

const std::string* TokenTable::token(TokenId id) const noexcept {
  if (id >= present_.size() || !present_[id]) return nullptr;
  return &tokens_[id];
}

}  // namespace tokenlab
