// BPE encoding: merges applied by rank with a heap, a per-thread word cache, dropout.
#include "bpe_model_data.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_cache.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::bpe {

namespace {

using Model = BpeSegmenter::Model;

// Recent words, per thread and model (tokenlab/word_cache.hpp).
using Cache =
    WordCache<WordCacheShape{.max_word_bytes = 64, .max_ids = 14, .slots = 1u << 14, .models = 4}>;

struct Scratch {
  std::vector<TokenId> symbols;
  std::vector<std::uint32_t> prev;
  std::vector<std::uint32_t> next;
  std::vector<std::uint64_t> heap;  // rank << 32 | position: lowest rank, then leftmost
  std::vector<std::uint64_t> skipped;
};

thread_local Scratch tls_scratch;

constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void BpeSegmenter::encode_impl(std::string_view word, std::vector<TokenId>& out, std::uint64_t* rng,
                               double dropout) const {
  const Model& m = *model_;
  Scratch& s = tls_scratch;
  s.symbols.clear();
  m.for_each_unit(
      word, [&](TokenId id) { s.symbols.push_back(id); },
      [&](std::string_view bytes) {
        m.emit_unknown(bytes, [&](TokenId id) { s.symbols.push_back(id); });
      });
  const auto n = static_cast<std::uint32_t>(s.symbols.size());
  TokenId* sym = s.symbols.data();

  if (n >= 2 && !m.merges.empty()) {
    s.prev.resize(n);
    s.next.resize(n);
    s.heap.clear();
    s.skipped.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      s.prev[i] = i == 0 ? kEnd : i - 1;
      s.next[i] = i + 1 == n ? kEnd : i + 1;
    }
    const auto later = std::greater<std::uint64_t>{};
    // Queues the pair starting at i, if it has a merge; keep_heap restores the heap.
    const auto consider = [&](std::uint32_t i, bool keep_heap) {
      const std::uint32_t j = s.next[i];
      if (j == kEnd) return;
      const TokenId rank = m.rank_of(sym[i], sym[j]);
      if (rank == kNone) return;
      s.heap.push_back((std::uint64_t{rank} << 32) | i);
      if (keep_heap) std::push_heap(s.heap.begin(), s.heap.end(), later);
    };
    for (std::uint32_t i = 0; i + 1 < n; ++i) consider(i, false);
    std::make_heap(s.heap.begin(), s.heap.end(), later);
    while (!s.heap.empty()) {
      std::pop_heap(s.heap.begin(), s.heap.end(), later);
      const std::uint64_t entry = s.heap.back();
      s.heap.pop_back();
      const auto rank = static_cast<std::uint32_t>(entry >> 32);
      const auto i = static_cast<std::uint32_t>(entry);
      const std::uint32_t j = s.next[i];
      const MergeRule& rule = m.merges[rank];
      // Stale when position i was absorbed or its pair changed since the push.
      if (j == kEnd || sym[i] != rule.left || sym[j] != rule.right) continue;
      if (rng != nullptr && next_unit(*rng) < dropout) {
        s.skipped.push_back(entry);
        continue;
      }
      sym[i] = rule.result;
      sym[j] = kBarrier;
      s.next[i] = s.next[j];
      if (s.next[j] != kEnd) s.prev[s.next[j]] = i;
      s.next[j] = kEnd;  // marks j dead for stale entries
      if (s.prev[i] != kEnd) consider(s.prev[i], true);
      consider(i, true);
      // Dropout: what was skipped competes again now that the word changed.
      for (const std::uint64_t e : s.skipped) {
        s.heap.push_back(e);
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
      s.skipped.clear();
    }
    for (std::uint32_t i = 0; i != kEnd; i = s.next[i])
      if (sym[i] != kBarrier) out.push_back(sym[i]);
    return;
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (sym[i] != kBarrier) out.push_back(sym[i]);
}

void BpeSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  Cache::encode(model_->serial, word, out, [this](std::string_view w, std::vector<TokenId>& o) {
    encode_impl(w, o, nullptr, 0.0);
  });
}

void BpeSegmenter::encode_sampled(std::string_view word, const SamplingOptions& options,
                                  std::uint64_t& rng_state, std::vector<TokenId>& out) const {
  // A negative dropout means the model's default; NaN and values above 1 are errors,
  // never a silent "no sampling".
  if (std::isnan(options.dropout) || options.dropout > 1.0)
    throw Error(
        "bpe: dropout must be at most 1 (a probability in [0, 1], or negative for the "
        "model's default), got " +
        std::to_string(options.dropout));
  const double p = options.dropout < 0.0 ? model_->dropout : options.dropout;
  if (p == 0.0) {
    encode(word, out);
    return;
  }
  encode_impl(word, out, &rng_state, p);
}

}  // namespace tokenlab::bpe
