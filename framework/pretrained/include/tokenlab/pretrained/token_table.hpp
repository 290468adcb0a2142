// File: pretrained/token_table.hpp
// The id <-> token string table of a real model's tokenizer.
//
// Unlike tokenlab's Vocabulary, ids may have gaps (o200k_base has no tokens
// 199998 and 200000-200017) and special tokens may sit anywhere. Token strings
// are stored as the model file spells them (byte-level BPE in GPT-2's printable
// alphabet, SentencePiece with U+2581).
//
//   TokenTable t;
//   t.insert(5, "hello", "vocab.json");
//   t.find("hello") == 5; *t.token(5) == "hello"; t.id_limit() == 6
//
// Not thread-safe for writers; any number of concurrent readers is fine.
//
// A table may be deferred: its size is known, its rows are inserted by a
// function on the first find, find_all or token (once, whichever thread asks
// first). A tiktoken file's 200,000 strings are read back only by decoding and
// --pieces, so encoding ids never builds them (docs/performance.md, tenth round).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"  // StringHash

namespace tokenlab {

class TOKENLAB_PRETRAINED_API TokenTable {
 public:
  /// Ids above this are refused: a corrupt file must not make us allocate without bound.
  static constexpr TokenId kMaxId = (1u << 24) - 1;

  TokenTable() = default;
  TokenTable(const TokenTable&) = delete;
  TokenTable& operator=(const TokenTable&) = delete;

  /// A table of size tokens with ids below id_limit, which fill inserts (with
  /// reserve, insert_new or insert) the first time a row is looked up. fill
  /// must give exactly that many tokens and ids (a contract: it is not
  /// checked), must not throw, and must not look this table up.
  static std::shared_ptr<TokenTable> deferred(std::size_t size, std::size_t id_limit,
                                              std::function<void(TokenTable&)> fill);

  /// Adds token with id. Throws Error naming where (a file and JSON path) when the
  /// id is already taken by another token, the token already has another id, or
  /// the id exceeds kMaxId. Re-inserting the same (id, token) pair is a no-op that
  /// returns false (a reader of a {token: id} object refuses it: a name twice).
  bool insert(TokenId id, std::string token, const std::string& where);
  /// As above, but where() (returning the place as a std::string) is called only
  /// to spell an error: a reader of 200,000 tokens must not build 200,000
  /// messages it never shows.
  template <class Where>
  requires std::is_invocable_r_v<std::string, const Where&>
  bool insert(TokenId id, std::string token, const Where& where) {
    const Clash clash = add(id, token);
    if (clash.kind != Clash::none) fail(clash, id, token, where());
    return !clash.repeated;
  }
  /// Inserts rows in order while each is a new id with a new token, the cache
  /// misses of many rows overlapped (a vocabulary of 200,000 tokens inserted
  /// one by one waits on a miss each); returns the index of the first row that
  /// is not (not inserted: the caller inserts it with insert() to get its
  /// error, or skips it), or rows.size(). Ids over kMaxId stop it too.
  struct Row {
    TokenId id;
    std::string_view token;
  };
  std::size_t insert_new(std::span<const Row> rows);
  [[nodiscard]] std::optional<TokenId> find(std::string_view token) const noexcept;
  /// ids[i] = the id of tokens[i], or kNotFound; the same as find() on each, but
  /// with the cache misses of many lookups overlapped (a tokenizer.json's
  /// 200,000 merges are three lookups each, two cache misses a lookup).
  static constexpr TokenId kNotFound = 0xFFFFFFFFu;
  void find_all(std::span<const std::string_view> tokens, std::span<TokenId> ids) const noexcept;
  /// The token of id, or nullptr when id is a gap or out of range.
  [[nodiscard]] const std::string* token(TokenId id) const noexcept;
  /// One past the largest id: the number of rows an embedding matrix needs.
  [[nodiscard]] std::size_t id_limit() const noexcept {
    return deferred_ ? deferred_->id_limit : tokens_.size();
  }
  /// Whether a deferred table's rows are still to be filled (nothing has looked
  /// a row up yet): for tests of what a load and an encode leave undone.
  [[nodiscard]] bool rows_pending() const noexcept {
    return pending_.load(std::memory_order_acquire);
  }
  /// The number of tokens (id_limit() minus the gaps).
  [[nodiscard]] std::size_t size() const noexcept { return deferred_ ? deferred_->size : count_; }
  /// Room for n tokens with ids below n, so that inserting them allocates nothing.
  void reserve(std::size_t n);
  /// Room for rows of ids below n, none of it touched, and a hash that grows
  /// as tokens come: for a table filled before its size is known (n an upper
  /// bound, such as the room of the list the tokens are streamed into).
  void reserve_rows(std::size_t n);

 private:
  // Open addressing over ids: a slot holds the top 32 bits of the token's hash
  // and id + 1 (0 = empty), and a token's first slot is the top bits of its
  // hash (home()). Real vocabularies have 30k-260k tokens and every
  // encoded piece looks several up, so a probe must touch one cache line, not a
  // node per entry as std::unordered_map does.
  // What add() found in the way of an insertion.
  struct Clash {
    enum Kind { none, token_has_id, id_has_token } kind = none;
    bool repeated = false;  // the same (id, token) again: not an error here
    TokenId other = 0;      // the token's other id (token_has_id)
  };
  Clash add(TokenId id, std::string& token);
  [[noreturn]] void fail(const Clash& clash, TokenId id, const std::string& token,
                         const std::string& where) const;
  // Makes id a row (tokens_ up to it; present_ grown by doubling).
  void extend_to(TokenId id);
  static std::uint64_t hash(std::string_view token) noexcept;
  void rehash(std::size_t capacity);
  [[nodiscard]] std::size_t slot_of(std::string_view token, std::uint64_t h) const noexcept;
  // A hash's first slot: its top bits, which the tag in the slot keeps too.
  [[nodiscard]] std::size_t home(std::uint64_t h) const noexcept {
    return static_cast<std::size_t>(h >> shift_);
  }
  // Runs a deferred table's fill unless it has run.
  void fill_if_deferred() const noexcept {
    if (pending_.load(std::memory_order_acquire)) fill_now();
  }
  void fill_now() const noexcept;

  struct Deferred {
    std::size_t size = 0;
    std::size_t id_limit = 0;
    std::function<void(TokenTable&)> fill;
    std::once_flag once;
  };
  std::unique_ptr<Deferred> deferred_;  // set for the table's life once deferred
  std::atomic<bool> pending_{false};    // fill has not run

  // Ordinary pages, not huge ones (200,000 tokens fill 6 MB and 4 MB): the
  // table is filled once at load, and a lone command's huge pages could cost
  // milliseconds each on a virtual machine (docs/performance.md, thirteenth round).
  std::vector<std::string> tokens_;
  std::vector<bool> present_;
  std::vector<std::uint64_t> slots_;
  unsigned shift_ = 63;  // 64 - log2(slots_.size()) once there are slots
  std::size_t count_ = 0;
};

}  // namespace tokenlab
