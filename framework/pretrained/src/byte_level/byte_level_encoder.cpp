#include "byte_level/byte_level_encoder.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "byte_level/piece_cache.hpp"
#include "model_common.hpp"
#include "tokenlab/interruption.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_cache.hpp"

namespace tokenlab {

using byte_level_detail::ByteTable;
using byte_level_detail::PieceCache;
using byte_level_detail::ShortKey;

namespace {

// Pieces up to this many bytes merge in stack arrays (merge_scan, merge_short);
// longer ones (a run of 10,000 spaces) through a heap (merge_long).
constexpr std::size_t kShortPiece = 128;
// Pieces up to this many bytes take tiktoken's scan (merge_scan), longer ones
// up to kShortPiece a tournament tree (merge_short): at 2 MB of English the tree
// executed 14% more instructions in the loop, at 1 MB of Japanese 29% fewer.
constexpr std::size_t kScanPiece = 16;
// Pieces cut, hashed and prefetched before the first is looked up.
constexpr std::size_t kBatch = 256;

}  // namespace

ByteLevelEncoder::ByteLevelEncoder(std::string_view pattern, UnicodeVersion unicode, Rule rule,
                                   bool whole_piece_first, std::size_t vocabulary)
    : split_(std::string(pattern), unicode),
      rule_(rule),
      whole_piece_first_(whole_piece_first),
      tokens_(vocabulary),
      identity_(new_model_identity()) {
  byte_ids_.fill(ByteTable::kNone);
}

ByteLevelEncoder::ByteLevelEncoder(std::string_view pattern, UnicodeVersion unicode, Rule rule,
                                   bool whole_piece_first, ByteTable tokens)
    : split_(std::string(pattern), unicode),
      rule_(rule),
      whole_piece_first_(whole_piece_first),
      tokens_(std::move(tokens)),
      identity_(new_model_identity()) {}

std::vector<TokenId> ByteLevelEncoder::tokens_merging_apart(unsigned threads) const {
  std::vector<ByteTable::Entry> tokens;
  tokens_.for_each([&](std::string_view bytes, TokenId id) { tokens.push_back({bytes, id}); });
  constexpr std::size_t kChunk = 4096;
  std::vector<std::vector<TokenId>> apart((tokens.size() + kChunk - 1) / kChunk);
  parallel_for(apart.size(), threads, [&](std::size_t chunk) {
    PieceCache& cache = PieceCache::of_thread(identity_);  // the calling thread's
    std::vector<TokenId> ids;
    const std::size_t end = std::min(tokens.size(), (chunk + 1) * kChunk);
    for (std::size_t i = chunk * kChunk; i < end; ++i) {
      const auto& [bytes, id] = tokens[i];
      ids.clear();
      if (bytes.size() == 1)
        ids.push_back(byte_ids_[static_cast<unsigned char>(bytes[0])]);
      else
        merge_piece(bytes, ids, cache);
      if (ids.size() != 1 || ids[0] != id) apart[chunk].push_back(id);
    }
  });
  std::vector<TokenId> all;
  for (const auto& chunk : apart) all.insert(all.end(), chunk.begin(), chunk.end());
  std::sort(all.begin(), all.end());
  return all;
}

bool ByteLevelEncoder::every_split_listed(std::span<const hf_detail::MergeIds> merges,
                                          std::span<const hf_detail::MergeIds> every_split) const {
  if (rule_ != Rule::merges) return false;
  // The file's merges, less those of tokens not spelled in bytes (not in
  // merges_), must be the list, in its order.
  std::size_t next = 0;
  for (const hf_detail::MergeIds& m : merges) {
    if (merges_.find(pack_pair(m.left, m.right)) == nullptr) continue;
    if (next == every_split.size() || !(every_split[next] == m)) return false;
    ++next;
  }
  return next == every_split.size();
}

std::vector<hf_detail::MergeIds> ByteLevelEncoder::implied_merges(bool every_split) const {
  std::vector<std::string_view> by_id;
  tokens_.for_each([&](std::string_view bytes, TokenId id) {
    if (id >= by_id.size()) by_id.resize(std::size_t{id} + 1);
    by_id[id] = bytes;
  });
  std::vector<hf_detail::MergeIds> merges;
  for (std::size_t id = 0; id < by_id.size(); ++id) {
    const std::string_view bytes = by_id[id];
    const auto merged = static_cast<TokenId>(id);
    if (!every_split) {
      const std::size_t k = id < split_at_.size() ? split_at_[id] : 0;
      if (k != 0 && k < bytes.size())
        merges.push_back({tokens_.find(bytes.substr(0, k)), tokens_.find(bytes.substr(k)), merged});
      continue;
    }
    const std::size_t first = merges.size();
    for (std::size_t k = 1; k < bytes.size(); ++k) {
      const TokenId left = tokens_.find(bytes.substr(0, k));
      if (left == ByteTable::kNone) continue;
      const TokenId right = tokens_.find(bytes.substr(k));
      if (right != ByteTable::kNone) merges.push_back({left, right, merged});
    }
    std::sort(
        merges.begin() + static_cast<std::ptrdiff_t>(first), merges.end(),
        [](const hf_detail::MergeIds& a, const hf_detail::MergeIds& b) { return a.left < b.left; });
  }
  return merges;
}

void ByteLevelEncoder::save(compiled::Writer& out, const std::vector<TokenId>* merging_apart,
                            bool as_ranks) const {
  out.string(split_.key());
  out.value(static_cast<std::uint8_t>(split_.unicode_version()));
  out.value(static_cast<std::uint8_t>(as_ranks ? Rule::ranks : rule_));
  out.value(static_cast<std::uint8_t>(whole_piece_first_ || merging_apart != nullptr));
  out.bytes(byte_ids_.data(), sizeof byte_ids_);
  // The bitmap's words: the tokens merging apart, or this encoder's own.
  std::vector<std::uint64_t>& words = out.owned_words();
  if (merging_apart != nullptr) {
    for (const TokenId id : *merging_apart) {
      if (id / 64 >= words.size()) words.resize(id / 64 + 1, 0);
      words[id / 64] |= std::uint64_t{1} << (id % 64);
    }
  } else {
    words = merging_apart_;
  }
  out.value(static_cast<std::uint64_t>(words.size()));
  out.bytes(words.data(), words.size() * sizeof(std::uint64_t));
  tokens_.save(out);
  if (!as_ranks) {
    merges_.save(out);
    out.value(static_cast<std::uint64_t>(byte_pairs_.size()));
    out.bytes(byte_pairs_.data(), byte_pairs_.size() * sizeof(Merge));
  } else {
    byte_level_detail::MergeTable().save(out);
    // Every split being a merge, two bytes that are a token merge into it.
    const std::vector<Merge> pairs = byte_pairs_by_token([](TokenId) { return true; });
    static_assert(sizeof(Merge) == sizeof(std::uint64_t));
    std::vector<std::uint64_t>& kept = out.owned_words();  // viewed until out commits
    kept.resize(pairs.size());
    std::memcpy(kept.data(), pairs.data(), pairs.size() * sizeof(Merge));
    out.value(static_cast<std::uint64_t>(pairs.size()));
    out.bytes(kept.data(), kept.size() * sizeof(Merge));
  }
  out.value(static_cast<std::uint64_t>(split_at_.size()));
  out.bytes(split_at_.data(), split_at_.size());
}

std::shared_ptr<ByteLevelEncoder> ByteLevelEncoder::load(compiled::Reader& in) {
  const std::string pattern = in.string();
  const auto unicode = in.value<std::uint8_t>();
  const auto rule = in.value<std::uint8_t>();
  const auto whole_piece_first = in.value<std::uint8_t>();
  std::array<TokenId, 256> byte_ids;
  in.read(byte_ids.data(), sizeof byte_ids);
  if (!is_preset_pattern(pattern) || unicode > 1 || rule > 2 || whole_piece_first > 1)
    throw compiled::Stale("byte-level encoder");
  const auto apart_words = in.value<std::uint64_t>();
  if (apart_words > (TokenTable::kMaxId + 1) / 64 + 1)
    throw compiled::Stale("tokens merging apart");
  std::vector<std::uint64_t> merging_apart(apart_words);
  in.read(merging_apart.data(), apart_words * sizeof(std::uint64_t));
  ByteTable tokens = ByteTable::load(in);
  // Private constructor: not through make_shared.
  std::shared_ptr<ByteLevelEncoder> encoder(
      new ByteLevelEncoder(pattern, static_cast<UnicodeVersion>(unicode), static_cast<Rule>(rule),
                           whole_piece_first != 0, std::move(tokens)));
  encoder->byte_ids_ = byte_ids;
  encoder->merging_apart_ = std::move(merging_apart);
  encoder->merges_ = byte_level_detail::MergeTable::load(in);
  const auto pairs = in.value<std::uint64_t>();
  if (pairs != 0 && pairs != (std::uint64_t{1} << 16)) throw compiled::Stale("byte pairs");
  encoder->byte_pairs_.resize(pairs);
  in.read(encoder->byte_pairs_.data(), pairs * sizeof(Merge));
  const auto splits = in.value<std::uint64_t>();
  if (splits > TokenTable::kMaxId + std::uint64_t{1} ||
      (static_cast<Rule>(rule) == Rule::token_splits) != (splits != 0))
    throw compiled::Stale("token splits");
  const std::string_view split_bytes = in.view(splits);
  encoder->split_at_ = {reinterpret_cast<const std::uint8_t*>(split_bytes.data()), splits};
  encoder->split_at_owner_ = in.mapping();
  return encoder;
}

void ByteLevelEncoder::add_merge(TokenId left, TokenId right, std::uint32_t rank, TokenId merged) {
  merges_.insert_or_assign(pack_pair(left, right), Merge{rank, merged});
}

void ByteLevelEncoder::prefetch_merge(TokenId left, TokenId right) const noexcept {
  merges_.prefetch(pack_pair(left, right));
}

void ByteLevelEncoder::encode(std::string_view text, std::vector<TokenId>& out) const {
  using Piece = PieceCache::Piece;
  PieceCache& cache = PieceCache::of_thread(identity_);
  // The cache's scratch list, not a thread_local here: GCC recomputed a
  // thread_local's address (a __tls_get_addr call in a shared library) at each
  // use rather than keep it in a register, several calls a piece.
  std::vector<Piece>& pieces = cache.pieces;
  pieces.clear();
  // The preset patterns match at every position, so the matches tile the text;
  // a preset sequence's pieces tile it too.
  split_.for_each_piece(text, [&](std::size_t start, std::size_t end) {
    pieces.push_back(
        {{}, 0, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end - start)});
  });
  // kBatch pieces at a time, in three passes, so that their cache misses
  // overlap instead of waiting one after another: hash each and prefetch its
  // cache slot; look each up and prefetch the vocabulary slot of those not
  // cached; then emit in order (looking up again: putting one piece in the
  // cache may evict another's slot).
  for (std::size_t batch = 0; batch < pieces.size(); batch += kBatch) {
    throw_if_interrupted();  // a host may stop a long text
    const std::size_t stop = std::min(pieces.size(), batch + kBatch);
    for (std::size_t i = batch; i < stop; ++i) {
      Piece& p = pieces[i];
      if (p.size > ShortKey::kMaxBytes) continue;
      p.key = ShortKey::of(text, p.start, p.size);
      p.hash = p.key.hash();
      cache.prefetch(p.hash);
    }
    if (whole_piece_first_)
      for (std::size_t i = batch; i < stop; ++i)
        if (const Piece& p = pieces[i]; p.size <= ShortKey::kMaxBytes && !cache.find(p.key, p.hash))
          tokens_.prefetch(p.key);
    // A hit's ids are copied as a whole slot's worth (a fixed-size copy, no
    // call) into a staging buffer, then moved to out with one insert before
    // each miss and at the end of the batch: out.insert for each hit was a
    // memmove call of a few bytes, 4% of encoding English.
    TokenId staged[kBatch * PieceCache::kMaxIds];
    std::size_t staged_count = 0;
    const auto flush = [&] {
      out.insert(out.end(), staged, staged + staged_count);
      staged_count = 0;
    };
    for (std::size_t i = batch; i < stop; ++i) {
      const Piece& p = pieces[i];
      if (p.size <= ShortKey::kMaxBytes) {
        if (const PieceCache::Slot* hit = cache.find(p.key, p.hash)) {
          std::memcpy(staged + staged_count, hit->ids, sizeof hit->ids);
          staged_count += hit->count;
          continue;
        }
      }
      flush();
      const std::string_view piece = text.substr(p.start, p.size);
      if (p.size > ShortKey::kMaxBytes) {
        encode_piece(piece, out, cache);
        continue;
      }
      const std::size_t first = out.size();
      encode_piece(piece, out, cache);
      cache.put(p.key, p.hash, out.data() + first, out.size() - first);
    }
    flush();
  }
}

void ByteLevelEncoder::encode_piece(std::string_view piece, std::vector<TokenId>& out) const {
  encode_piece(piece, out, PieceCache::of_thread(identity_));
}

ByteLevelEncoder::Merge ByteLevelEncoder::cached_merge_of(PieceCache& cache, std::string_view piece,
                                                          std::uint32_t start, std::uint32_t mid,
                                                          std::uint32_t end, TokenId left,
                                                          TokenId right) const noexcept {
  const std::uint64_t pair = pack_pair(left, right);
  if (const PieceCache::PairSlot* hit = cache.find_pair(pair)) return {hit->rank, hit->merged};
  const Merge m = merge_of(piece, start, mid, end, left, right);
  cache.put_pair(pair, m.rank, m.merged);
  return m;
}

void ByteLevelEncoder::encode_piece(std::string_view piece, std::vector<TokenId>& out,
                                    PieceCache& cache) const {
  if (piece.empty()) return;
  if (piece.size() == 1) {
    out.push_back(byte_ids_[static_cast<unsigned char>(piece[0])]);
    return;
  }
  if (whole_piece_first_) {
    if (const TokenId id = tokens_.find(piece); id != ByteTable::kNone && !merges_apart(id)) {
      out.push_back(id);
      return;
    }
  }
  merge_piece(piece, out, cache);
}

void ByteLevelEncoder::merge_piece(std::string_view piece, std::vector<TokenId>& out,
                                   PieceCache& cache) const {
  if (piece.size() <= kScanPiece)
    merge_scan(piece, out, cache);
  else if (piece.size() <= kShortPiece)
    merge_short(piece, out, cache);
  else
    merge_long(piece, out, cache);
}

void ByteLevelEncoder::merge_scan(std::string_view piece, std::vector<TokenId>& out,
                                  PieceCache& cache) const {
  // tiktoken's own loop, for pieces of up to kScanPiece bytes (most words):
  // after each merge, a scan of the parts for the lowest rank, then a copy to
  // close the gap. Quadratic, and the fewest instructions at these lengths.
  struct Part {  // no initializers: the array is not zeroed on each call
    std::uint32_t start;
    TokenId id;
    Merge with_next;  // merging this part with the next one
  };
  Part parts[kScanPiece + 1];
  const auto n = static_cast<std::uint32_t>(piece.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  for (std::uint32_t i = 0; i < n; ++i) {
    parts[i].start = i;
    parts[i].id = byte_ids_[bytes[i]];
    // Two bytes: the dense table, which stays in cache, not the vocabulary's.
    if (i + 1 < n) parts[i].with_next = byte_pairs_[(std::size_t{bytes[i]} << 8) | bytes[i + 1]];
  }
  parts[n].start = n;  // where the last part ends; moves left with the parts
  std::uint32_t count = n;
  const auto refresh = [&](std::uint32_t i) {  // i + 1 < count
    parts[i].with_next = cached_merge_of(cache, piece, parts[i].start, parts[i + 1].start,
                                         parts[i + 2].start, parts[i].id, parts[i + 1].id);
  };
  for (;;) {
    // The lowest rank, the leftmost on ties: tiktoken's and HF's order.
    std::uint32_t best = 0;
    std::uint32_t best_rank = UINT32_MAX;
    for (std::uint32_t i = 0; i + 1 < count; ++i)
      if (parts[i].with_next.rank < best_rank) {
        best_rank = parts[i].with_next.rank;
        best = i;
      }
    if (best_rank == UINT32_MAX) break;
    parts[best].id = parts[best].with_next.merged;
    std::copy(parts + best + 2, parts + count + 1, parts + best + 1);
    --count;
    // Both new pairs' pair-cache slots are fetched before either is read, so
    // that their misses (the cache is 1 MiB) overlap instead of queueing.
    const bool right = best + 1 < count;
    const bool left = best > 0;
    if (right) cache.prefetch_pair(pack_pair(parts[best].id, parts[best + 1].id));
    if (left) cache.prefetch_pair(pack_pair(parts[best - 1].id, parts[best].id));
    if (right) refresh(best);
    if (left) refresh(best - 1);
  }
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(parts[i].id);
}

void ByteLevelEncoder::merge_short(std::string_view piece, std::vector<TokenId>& out,
                                   PieceCache& cache) const {
  // The parts as arrays indexed by the position of their first byte, which a
  // merge keeps (the left part absorbs the right one); a part absorbed leaves
  // the links (next, prev). The pairs' ranks sit in a tournament tree whose
  // leaves are (rank << 8 | position): its root is the lowest rank and, on
  // ties, the leftmost pair (tiktoken's and HF's order), and a merge changes
  // three leaves, each a walk of log2(n) steps to the root. A scan of all the
  // parts for the lowest rank after each merge, then a copy to close the gap,
  // was quadratic: Japanese clauses of 60 to 128 bytes spent half their time
  // there. No initializers: the arrays are not zeroed on each call.
  static_assert(kShortPiece <= 128, "positions fit the key's low byte and the links");
  std::uint64_t tree[2 * kShortPiece];
  TokenId merged[kShortPiece];
  TokenId id[kShortPiece];
  std::uint8_t next[kShortPiece];  // the next part's first byte, or n
  std::uint8_t prev[kShortPiece];
  constexpr std::uint64_t kNone = UINT64_MAX;
  const auto n = static_cast<std::uint32_t>(piece.size());
  const std::uint32_t leaves = std::bit_ceil(n);
  const auto key = [](const Merge& m, std::uint32_t at) {
    return m.rank == UINT32_MAX ? kNone : (std::uint64_t{m.rank} << 8) | at;
  };
  const auto set = [&](std::uint32_t at, std::uint64_t k) {
    std::uint32_t node = leaves + at;
    tree[node] = k;
    for (node >>= 1; node != 0; node >>= 1)
      tree[node] = std::min(tree[2 * node], tree[2 * node + 1]);
  };
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  for (std::uint32_t i = 0; i < n; ++i) {
    id[i] = byte_ids_[bytes[i]];
    next[i] = static_cast<std::uint8_t>(i + 1);
    prev[i] = static_cast<std::uint8_t>(i - 1);
    if (i + 1 < n) {
      // Two bytes: the dense table, which stays in cache, not the vocabulary's.
      const Merge m = byte_pairs_[(std::size_t{bytes[i]} << 8) | bytes[i + 1]];
      tree[leaves + i] = key(m, i);
      merged[i] = m.merged;
    }
  }
  for (std::uint32_t i = n - 1; i < leaves; ++i)
    tree[leaves + i] = kNone;  // the last part, padding
  for (std::uint32_t node = leaves - 1; node != 0; --node)
    tree[node] = std::min(tree[2 * node], tree[2 * node + 1]);
  // The merge of part i with the part after it, which ends at end.
  const auto refresh = [&](std::uint32_t i, std::uint32_t after, std::uint32_t end) {
    const Merge m = cached_merge_of(cache, piece, i, after, end, id[i], id[after]);
    merged[i] = m.merged;
    set(i, key(m, i));
  };
  while (tree[1] != kNone) {
    const auto best = static_cast<std::uint32_t>(tree[1] & 0xFF);
    const std::uint32_t right = next[best];
    const std::uint32_t after = next[right];  // the part after the merged one, or n
    id[best] = merged[best];
    set(right, kNone);
    next[best] = static_cast<std::uint8_t>(after);
    if (after < n) prev[after] = static_cast<std::uint8_t>(best);
    // Both new pairs' pair-cache slots are fetched before either is read, so
    // that their misses (the cache is 1 MiB) overlap instead of queueing.
    const std::uint32_t before = prev[best];  // meaningful when best > 0
    if (after < n) cache.prefetch_pair(pack_pair(id[best], id[after]));
    if (best > 0) cache.prefetch_pair(pack_pair(id[before], id[best]));
    if (after < n)
      refresh(best, after, next[after]);
    else
      set(best, kNone);
    if (best > 0) refresh(before, best, after);
  }
  for (std::uint32_t i = 0; i < n; i = next[i]) out.push_back(id[i]);
}

void ByteLevelEncoder::merge_long(std::string_view piece, std::vector<TokenId>& out,
                                  PieceCache& cache) const {
  using pretrained_detail::PairResult;
  using pretrained_detail::Symbol;
  thread_local std::vector<Symbol> symbols;
  symbols.clear();
  const auto n = static_cast<std::int32_t>(piece.size());
  for (std::int32_t i = 0; i < n; ++i)
    symbols.push_back({byte_ids_[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])],
                       i - 1, i + 1 < n ? i + 1 : -1, static_cast<std::uint32_t>(i),
                       static_cast<std::uint32_t>(i + 1), true});
  pretrained_detail::merge_all(symbols, [&](const Symbol& l, const Symbol& r) -> PairResult {
    const Merge m = cached_merge_of(cache, piece, l.start, l.end, r.end, l.id, r.id);
    return {m.rank, m.merged};
  });
  for (const Symbol& s : symbols)
    if (s.alive) out.push_back(s.id);
}

std::size_t ByteLevelEncoder::add_tokens(std::span<const ByteTable::Entry> tokens) {
  const std::size_t repeated = tokens_.insert(tokens);
  if (rule_ != Rule::ranks) return repeated;
  if (byte_pairs_.empty()) byte_pairs_.assign(std::size_t{1} << 16, Merge{UINT32_MAX, 0});
  for (const ByteTable::Entry& e : tokens)
    if (e.bytes.size() == 2) {
      const auto a = static_cast<unsigned char>(e.bytes[0]);
      const auto b = static_cast<unsigned char>(e.bytes[1]);
      Merge& m = byte_pairs_[(std::size_t{a} << 8) | b];
      if (m.rank == UINT32_MAX) m = {e.id, e.id};
    }
  return repeated;
}

void ByteLevelEncoder::use_token_splits(std::vector<std::uint8_t> split_at) {
  rule_ = Rule::token_splits;
  auto owned = std::make_shared<const std::vector<std::uint8_t>>(std::move(split_at));
  split_at_ = *owned;
  split_at_owner_ = std::move(owned);
  tokens_.mark_each([&](TokenId id) { return id < split_at_.size() ? split_at_[id] : 0u; });
}

void ByteLevelEncoder::finish() {
  if (rule_ == Rule::ranks) return;  // add_tokens has filled byte_pairs_
  if (rule_ == Rule::token_splits) {
    // A token of two bytes has one split: it is a pair's merge if it has one.
    byte_pairs_ = byte_pairs_by_token(
        [&](TokenId id) { return id < split_at_.size() && split_at_[id] == 1; });
    return;
  }
  // Each of the 65,536 pairs of bytes looked up in the merges (the bytes'
  // ids are distinct), not each of the merges' two ids in a map of the
  // bytes': a sixth of the lookups, and none in a node-based map.
  byte_pairs_.assign(std::size_t{1} << 16, Merge{UINT32_MAX, 0});
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      if (const Merge* m = merges_.find(pack_pair(byte_ids_[a], byte_ids_[b])))
        byte_pairs_[(std::size_t{a} << 8) | b] = *m;
}

namespace {

// For Rule::token_splits: by merged id, the byte length of the left part of
// its merge, when the merges of tokens spelled in the alphabet (spelling[id]
// 1; the others can make no piece's part) are one a token in increasing order
// of the merged id and every left part is under 256 bytes; else empty.
// entries: each spelled token's bytes.
std::vector<std::uint8_t> token_splits(std::span<const hf_detail::MergeIds> merges,
                                       const std::vector<std::uint8_t>& spelling,
                                       std::span<const ByteTable::Entry> entries) {
  std::vector<std::uint32_t> length(spelling.size(), 0);
  for (const ByteTable::Entry& e : entries)
    length[e.id] = static_cast<std::uint32_t>(e.bytes.size());
  std::vector<std::uint8_t> split_at(spelling.size(), 0);
  std::uint64_t last = 0;  // the last merged id + 1
  for (const hf_detail::MergeIds& m : merges) {
    if (spelling[m.left] != 1 || spelling[m.right] != 1) continue;
    if (m.merged + std::uint64_t{1} <= last || m.merged >= split_at.size() ||
        length[m.left] >= 256 || length[m.left] + length[m.right] != length[m.merged])
      return {};
    last = m.merged + std::uint64_t{1};
    split_at[m.merged] = static_cast<std::uint8_t>(length[m.left]);
  }
  return split_at;
}

}  // namespace

bool is_preset_pattern(std::string_view pattern) noexcept {
  return pattern == kGpt2Pattern || pattern == kCl100kPattern || pattern == kQwen2Pattern ||
         pattern == kO200kPattern ||
         split_sequence_run(pattern, UnicodeVersion::library) != nullptr;
}

std::shared_ptr<const ByteLevelEncoder> make_hf_byte_level(
    std::string_view pattern, const TokenTable& tokens, std::span<const hf_detail::MergeIds> merges,
    const BpeModelOptions& options) {
  if (!is_preset_pattern(pattern) || !options.continuing_subword_prefix.empty() ||
      !options.end_of_word_suffix.empty() || options.byte_fallback ||
      (options.dropout && *options.dropout != 0.0))
    return nullptr;
  // HF's classes are Unicode 16.0's (unicode_version.hpp).
  auto encoder = std::make_shared<ByteLevelEncoder>(pattern, UnicodeVersion::v16_0,
                                                    ByteLevelEncoder::Rule::merges,
                                                    options.ignore_merges, tokens.size());
  // GPT-2's alphabet back to bytes: a token spelled otherwise can never be a
  // byte-level piece's part, nor can a merge with one; both are left out.
  const auto& alphabet = byte_level_alphabet();
  std::array<std::int16_t, 0x200> byte_of;  // the alphabet ends at U+0143
  byte_of.fill(-1);
  for (unsigned b = 0; b < 256; ++b) {
    std::string spelled;
    utf8::append(spelled, alphabet[b]);
    const auto id = tokens.find(spelled);
    if (!id || alphabet[b] >= byte_of.size()) return nullptr;  // HF: the unknown token
    encoder->set_byte(static_cast<unsigned char>(b), *id);
    byte_of[alphabet[b]] = static_cast<std::int16_t>(b);
  }
  // Every token's bytes end to end in one string (a token's bytes are no longer
  // than its spelling, so reserving the spellings' length keeps the views
  // valid). spelling[id]: 1 the token is spelled in the alphabet, 2 it is empty
  // (no piece's part: a merge with it leaves this encoder out), 0 otherwise.
  // (Handing them over in chunks, as the tiktoken reader does, measured no
  // faster here: 75.4 against 71.2 ms at the minimum of 25 rounds.)
  std::size_t spelled_length = 0;
  for (TokenId id = 0; id < tokens.id_limit(); ++id)
    if (const std::string* token = tokens.token(id)) spelled_length += token->size();
  std::string bytes(spelled_length, '\0');
  char* to = bytes.data();
  std::vector<std::uint8_t> spelling(tokens.id_limit(), 0);
  std::vector<ByteTable::Entry> entries;
  entries.reserve(tokens.size());
  for (TokenId id = 0; id < tokens.id_limit(); ++id) {
    const std::string* token = tokens.token(id);
    if (!token) continue;
    if (token->empty()) {
      spelling[id] = 2;
      continue;
    }
    // The alphabet is U+0000 to U+0143: one or two bytes of UTF-8 (lead C2 to
    // C5). A longer or ill-formed sequence is no letter of it. Decoded here
    // rather than by two out-of-line calls a character, a third of this loop.
    const auto* s = reinterpret_cast<const unsigned char*>(token->data());
    const std::size_t n = token->size();
    char* const start = to;
    bool ok = true;
    for (std::size_t i = 0; ok && i < n;) {
      char32_t c = s[i];
      if (c < 0x80) {
        ++i;
      } else if (c >= 0xC2 && c <= 0xDF && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
        c = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
        i += 2;
      } else {
        c = 0x1FF;  // outside the alphabet
      }
      ok = c < byte_of.size() && byte_of[c] >= 0;
      if (ok) *to++ = static_cast<char>(byte_of[c]);
    }
    if (!ok) {
      to = start;
      continue;
    }
    spelling[id] = 1;
    entries.push_back({std::string_view(start, static_cast<std::size_t>(to - start)), id});
  }
  encoder->add_tokens(entries);
  for (const hf_detail::MergeIds& merge : merges)
    if (spelling[merge.left] == 2 || spelling[merge.right] == 2) return nullptr;
  if (std::vector<std::uint8_t> split_at = token_splits(merges, spelling, entries);
      !split_at.empty()) {
    encoder->use_token_splits(std::move(split_at));
    encoder->finish();
    return encoder;
  }
  // As HF's map (and BpeModel): a repeated pair keeps its last rank. The ids
  // are the reader's (hf/merge_ids.hpp): a merge of tokens spelled in the
  // alphabet makes one, whose bytes are theirs end to end.
  encoder->reserve_merges(merges.size());
  constexpr std::size_t kAhead = 16;  // merges whose slots are on their way
  for (std::size_t i = 0; i < merges.size(); ++i) {
    if (i + kAhead < merges.size())
      encoder->prefetch_merge(merges[i + kAhead].left, merges[i + kAhead].right);
    if (spelling[merges[i].left] == 1 && spelling[merges[i].right] == 1)
      encoder->add_merge(merges[i].left, merges[i].right, static_cast<std::uint32_t>(i),
                         merges[i].merged);
  }
  encoder->finish();
  return encoder;
}

}  // namespace tokenlab
