#include "tokenlab/pretrained/token_table.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "tokenlab/error.hpp"
#include "tokenlab/word_hash.hpp"

namespace tokenlab {

std::uint64_t TokenTable::hash(std::string_view token) noexcept {
  // word_hash (word_hash.hpp): at most two overlapping loads and one multiply
  // for a token under 16 bytes, mixed into every bit (the slots keep the low
  // bits, the tags the high ones). The FNV loop before it loaded a token's
  // last bytes through a call to memcpy.
  return word_hash(token);
}

std::size_t TokenTable::slot_of(std::string_view token, std::uint64_t h) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  const std::uint64_t tag = h >> 32;
  for (std::size_t s = home(h);; s = (s + 1) & mask) {
    const std::uint64_t slot = slots_[s];
    if (slot == 0) return s;
    if ((slot >> 32) != tag) continue;
    // Compared inline: a call to memcmp a probe was 3.5% of loading GPT-4o.
    const std::string& candidate = tokens_[(slot & 0xFFFFFFFFu) - 1];
    if (candidate.size() == token.size() &&
        detail::same_bytes(candidate.data(), token.data(), token.size()))
      return s;
  }
}

void TokenTable::rehash(std::size_t capacity) {
  auto old = std::move(slots_);
  slots_.assign(capacity, 0);
  shift_ = 64u - static_cast<unsigned>(std::countr_zero(capacity));
  const std::size_t mask = capacity - 1;
  // A slot's home is the top bits of its token's hash, which its tag keeps
  // (capacity is at most 2^32): moved without reading the token again. (Homed
  // by the low bits, every doubling hashed each token's string again, a cache
  // miss a token: growing a 262,144-token table from 64 Ki slots took longer
  // than inserting its tokens.)
  for (const std::uint64_t slot : old) {
    if (slot == 0) continue;
    std::size_t s = home(slot & ~std::uint64_t{0xFFFFFFFFu});
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = slot;
  }
}

void TokenTable::reserve(std::size_t n) {
  // The rows, indexed by id, get room for ids past n: a vocabulary's gaps
  // (GPT-4o's 200,000 tokens run to id 200,018) and the added tokens a file
  // lists after it (Llama 3's 256). Without it, the first such id doubled the
  // 200,000 strings' vector into a fresh 14 MiB that the kernel zeroed and
  // the strings moved to. The slots hold tokens, not ids: sized for n.
  const std::size_t rows = n + n / 64 + 256;
  tokens_.reserve(rows);
  present_.reserve(rows);
  std::size_t capacity = 1024;
  while (capacity < n * 2) capacity *= 2;
  if (capacity > slots_.size()) rehash(capacity);
}

void TokenTable::reserve_rows(std::size_t n) {
  // The strings' vector reserved, its pages faulted in only where rows are
  // written; the hash starts at 64 Ki slots and doubles (each doubling a
  // rehash of the tokens so far: about one more insertion of each, overall).
  tokens_.reserve(n);
  present_.reserve(n);
  if (slots_.size() < (std::size_t{1} << 16)) rehash(std::size_t{1} << 16);
}

void TokenTable::extend_to(TokenId id) {
  if (id < tokens_.size()) return;
  tokens_.resize(std::size_t{id} + 1);
  // Grown by doubling (its size is not id_limit(), tokens_' is): grown by one
  // a row, vector<bool>::resize was 4% of loading o200k.
  if (id >= present_.size())
    present_.resize(std::max<std::size_t>(std::size_t{id} + 1, present_.size() * 2), false);
}

TokenTable::Clash TokenTable::add(TokenId id, std::string& token) {
  if (id > kMaxId) return {.kind = Clash::id_has_token};  // fail() names it first
  if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 1024 : slots_.size() * 2);
  const std::uint64_t h = hash(token);
  const std::size_t s = slot_of(token, h);
  if (slots_[s] != 0) {
    const TokenId existing = static_cast<TokenId>((slots_[s] & 0xFFFFFFFFu) - 1);
    if (existing == id) return {.repeated = true};
    return {.kind = Clash::token_has_id, .other = existing};
  }
  if (id < present_.size() && present_[id]) return {.kind = Clash::id_has_token};
  extend_to(id);
  present_[id] = true;
  tokens_[id] = std::move(token);
  slots_[s] = ((h >> 32) << 32) | (std::uint64_t{id} + 1);
  ++count_;
  return {};
}

void TokenTable::fail(const Clash& clash, TokenId id, const std::string& token,
                      const std::string& where) const {
  if (id > kMaxId)
    throw Error(where + ": id " + std::to_string(id) + " is larger than tokenlab accepts (" +
                std::to_string(kMaxId) + ")");
  if (clash.kind == Clash::token_has_id)
    throw Error(where + ": token \"" + token + "\" has two ids, " + std::to_string(clash.other) +
                " and " + std::to_string(id));
  throw Error(where + ": id " + std::to_string(id) + " is given to two tokens, \"" + tokens_[id] +
              "\" and \"" + token + "\"");
}

bool TokenTable::insert(TokenId id, std::string token, const std::string& where) {
  return insert(id, std::move(token), [&] { return where; });
}

std::size_t TokenTable::insert_new(std::span<const Row> rows) {
  // Each row's home slot prefetched kDistance rows ahead (a table reserved
  // beforehand does not move meanwhile; if it grows, the hints are only stale).
  constexpr std::size_t kDistance = 16;
  std::uint64_t hashes[kDistance];
  const auto prefetch = [&](std::size_t i) {
    hashes[i % kDistance] = hash(rows[i].token);
    if (!slots_.empty()) __builtin_prefetch(&slots_[home(hashes[i % kDistance])]);
  };
  for (std::size_t i = 0; i < std::min(kDistance, rows.size()); ++i) prefetch(i);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const std::uint64_t h = hashes[i % kDistance];
    if (i + kDistance < rows.size()) prefetch(i + kDistance);
    if (row.id > kMaxId || (row.id < present_.size() && present_[row.id])) return i;
    if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 1024 : slots_.size() * 2);
    const std::size_t s = slot_of(row.token, h);
    if (slots_[s] != 0) return i;
    extend_to(row.id);
    present_[row.id] = true;
    tokens_[row.id].assign(row.token);
    slots_[s] = ((h >> 32) << 32) | (std::uint64_t{row.id} + 1);
    ++count_;
  }
  return rows.size();
}

std::shared_ptr<TokenTable> TokenTable::deferred(std::size_t size, std::size_t id_limit,
                                                 std::function<void(TokenTable&)> fill) {
  auto table = std::make_shared<TokenTable>();
  table->deferred_ = std::make_unique<Deferred>();
  table->deferred_->size = size;
  table->deferred_->id_limit = id_limit;
  table->deferred_->fill = std::move(fill);
  table->pending_.store(true, std::memory_order_release);
  return table;
}

void TokenTable::fill_now() const noexcept {
  // noexcept: a fill that runs out of memory ends the program, where the
  // eager table would have thrown std::bad_alloc at load. The rows are the
  // table's own (never a const object: deferred() made it), written once,
  // before any reader of them passes the acquire above.
  std::call_once(deferred_->once, [this] {
    auto& self = const_cast<TokenTable&>(*this);
    auto fill = std::move(self.deferred_->fill);
    fill(self);
    self.pending_.store(false, std::memory_order_release);
  });
}

std::optional<TokenId> TokenTable::find(std::string_view token) const noexcept {
  fill_if_deferred();
  if (slots_.empty()) return std::nullopt;
  const std::uint64_t slot = slots_[slot_of(token, hash(token))];
  if (slot == 0) return std::nullopt;
  return static_cast<TokenId>((slot & 0xFFFFFFFFu) - 1);
}

void TokenTable::find_all(std::span<const std::string_view> tokens,
                          std::span<TokenId> ids) const noexcept {
  fill_if_deferred();
  if (slots_.empty()) {
    std::fill(ids.begin(), ids.end(), kNotFound);
    return;
  }
  // Three stages kDistance lookups apart: prefetch a lookup's home slot; then,
  // the slot in cache, prefetch the token its tag names (the string to compare,
  // usually inside the std::string); then look it up, both now in cache.
  constexpr std::size_t kDistance = 8;
  constexpr std::size_t kBatch = 64;
  std::uint64_t hashes[kBatch];
  for (std::size_t batch = 0; batch < tokens.size(); batch += kBatch) {
    const std::size_t n = std::min(kBatch, tokens.size() - batch);
    for (std::size_t i = 0; i < n + 2 * kDistance; ++i) {
      if (i < n) {
        hashes[i] = hash(tokens[batch + i]);
        __builtin_prefetch(&slots_[home(hashes[i])]);
      }
      if (i >= kDistance && i - kDistance < n) {
        const std::uint64_t slot = slots_[home(hashes[i - kDistance])];
        if (slot != 0) __builtin_prefetch(&tokens_[(slot & 0xFFFFFFFFu) - 1]);
      }
      if (i >= 2 * kDistance) {
        const std::size_t j = i - 2 * kDistance;
        const std::uint64_t slot = slots_[slot_of(tokens[batch + j], hashes[j])];
        ids[batch + j] = slot == 0 ? kNotFound : static_cast<TokenId>((slot & 0xFFFFFFFFu) - 1);
      }
    }
  }
}

const std::string* TokenTable::token(TokenId id) const noexcept {
  fill_if_deferred();
  if (id >= present_.size() || !present_[id]) return nullptr;
  return &tokens_[id];
}

}  // namespace tokenlab
