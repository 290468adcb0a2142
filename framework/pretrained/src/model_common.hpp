// What the models of Hugging Face tokenizers (hf/) and tiktoken (tiktoken/) share:
// the byte-pair merge loop of HF's BPE and tiktoken's encoder, and the per-thread
// cache of whole-piece encodings. Internal to tokenlab_pretrained: nothing here is
// installed.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/word_cache.hpp"

namespace tokenlab::pretrained_detail {

// A symbol of a word being merged: a doubly linked list over a vector.
struct Symbol {
  TokenId id;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t start;  // byte range in the piece (tiktoken looks pairs up by bytes)
  std::uint32_t end;
  bool alive = true;  // false once merged into its left neighbour
};

struct Candidate {
  std::uint32_t rank;
  std::uint32_t pos;
  TokenId new_id;
  // The smallest rank first, then the leftmost position: HF's Merge ordering and
  // tiktoken's first minimum.
  bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

struct PairResult {
  std::uint32_t rank = 0;
  TokenId new_id = 0;
};

// Merges symbols by a pair ranking until no adjacent pair ranks. lookup(left,
// right) returns the pair's rank and merged id, or rank UINT32_MAX.
template <class Lookup>
void merge_all(std::vector<Symbol>& symbols, Lookup&& lookup) {
  if (symbols.size() < 2) return;
  std::priority_queue<Candidate> queue;
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    const PairResult r = lookup(symbols[i], symbols[i + 1]);
    if (r.rank != UINT32_MAX) queue.push({r.rank, static_cast<std::uint32_t>(i), r.new_id});
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;  // merged away, or last
    const Symbol right = symbols[static_cast<std::size_t>(left.next)];
    const PairResult now = lookup(left, right);
    if (now.rank != top.rank || now.new_id != top.new_id) continue;  // stale
    left.id = top.new_id;
    left.end = right.end;
    symbols[static_cast<std::size_t>(left.next)].alive = false;
    left.next = right.next;
    if (right.next >= 0)
      symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos);
    if (left.prev >= 0) {
      const PairResult r = lookup(symbols[static_cast<std::size_t>(left.prev)], left);
      if (r.rank != UINT32_MAX)
        queue.push({r.rank, static_cast<std::uint32_t>(left.prev), r.new_id});
    }
    if (left.next >= 0) {
      const PairResult r = lookup(left, symbols[static_cast<std::size_t>(left.next)]);
      if (r.rank != UINT32_MAX) queue.push({r.rank, top.pos, r.new_id});
    }
  }
}

// Whole-piece encodings per thread and model, as HF and tiktoken keep: real text
// repeats its words, and a hit skips the merge loop or the lattice entirely.
using PieceCache =
    WordCache<WordCacheShape{.max_word_bytes = 64, .max_ids = 16, .slots = 1u << 14, .models = 4}>;

}  // namespace tokenlab::pretrained_detail
