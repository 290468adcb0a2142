// File: word_cache.hpp
// The encoders' cache of recent words: per thread, a few models, direct-mapped.
//
//   using Cache = WordCache<{.max_word_bytes = 48, .max_ids = 14, .slots = 4096}>;
//   Cache::encode(model_identity_, word, out,
//                 [&](std::string_view w, std::vector<TokenId>& o) { encode_uncached(w, o); });
//
// Why: words in running text repeat heavily (Zipf), so a few thousand slots catch
// most of them, and a hit costs one hash, one slot read and one short compare.
// Nothing is allocated after a thread's first use of a model. A thread that
// alternates between a few models (compare, tests) keeps one cache per model,
// recycling the least recently used, instead of wiping one cache at every switch.
//
// Contract: encode_uncached must be a pure function of (model, word): the cache
// returns what it returned before. A model gets its identity from
// new_model_identity() whenever its state changes (train, load), so entries of a
// retrained model, or of a destroyed one whose address is reused, never match.
// Words longer than max_word_bytes, and encodings longer than max_ids, are not
// cached. Each shared library that instantiates a cache has its own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_hash.hpp"

namespace tokenlab {

/// A fresh model identity: unique in the process, never 0, never reused.
[[nodiscard]] TOKENLAB_API std::uint64_t new_model_identity() noexcept;

struct WordCacheShape {
  std::size_t max_word_bytes = 48;  // at most 255
  std::size_t max_ids = 14;         // at most 255
  std::size_t slots = 4096;         // per model and thread; a power of two
  std::size_t models = 4;           // per thread
};

template <WordCacheShape kShape>
class WordCache {
  static_assert(kShape.max_word_bytes > 0 && kShape.max_word_bytes <= 255);
  static_assert(kShape.max_ids > 0 && kShape.max_ids <= 255);
  static_assert(kShape.slots > 0 && (kShape.slots & (kShape.slots - 1)) == 0);
  static_assert(kShape.models > 0);

 public:
  /// Appends the encoding of word to out: cached, or computed by
  /// encode_uncached(word, out) and remembered.
  template <class EncodeUncached>
  static void encode(std::uint64_t model, std::string_view word, std::vector<TokenId>& out,
                     EncodeUncached&& encode_uncached) {
    if (word.empty() || word.size() > kShape.max_word_bytes) {
      encode_uncached(word, out);
      return;
    }
    // word_hash and same_bytes are inline: std::hash<std::string_view> was
    // an out-of-line call to libstdc++'s _Hash_bytes, 2.7% of encoding English
    // with Gemma 3's whole-line BPE.
    const std::uint64_t hash = word_hash(word);
    Slot& slot = for_model(model).slots[hash & (kShape.slots - 1)];
    if (slot.hash == hash && slot.word_length == word.size() &&
        detail::same_bytes(slot.word, word.data(), word.size())) {
      out.insert(out.end(), slot.ids, slot.ids + slot.id_count);
      return;
    }
    const std::size_t start = out.size();
    encode_uncached(word, out);
    const std::size_t produced = out.size() - start;
    if (produced > kShape.max_ids) return;
    slot.hash = hash;
    slot.word_length = static_cast<std::uint8_t>(word.size());
    slot.id_count = static_cast<std::uint8_t>(produced);
    std::memcpy(slot.word, word.data(), word.size());
    // A word may encode to nothing (a model that drops unknown characters),
    // and an empty out's data() may be null, which memcpy must not get.
    if (produced != 0) std::memcpy(slot.ids, out.data() + start, produced * sizeof(TokenId));
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint8_t word_length = 0;  // 0: empty (the empty word is never cached)
    std::uint8_t id_count = 0;
    char word[kShape.max_word_bytes];
    TokenId ids[kShape.max_ids];
  };
  struct ModelCache {
    std::uint64_t model = 0;
    std::uint64_t last_use = 0;
    std::vector<Slot> slots;
  };
  struct ThreadCaches {
    std::array<ModelCache, kShape.models> caches;
    std::uint64_t clock = 0;
  };

  static ModelCache& for_model(std::uint64_t model) {
    thread_local ThreadCaches mine;
    ++mine.clock;
    ModelCache* victim = &mine.caches[0];
    for (ModelCache& c : mine.caches) {
      if (c.model == model) {
        c.last_use = mine.clock;
        return c;
      }
      if (c.last_use < victim->last_use) victim = &c;
    }
    victim->model = model;
    victim->last_use = mine.clock;
    victim->slots.assign(kShape.slots, Slot{});
    return *victim;
  }
};

}  // namespace tokenlab
