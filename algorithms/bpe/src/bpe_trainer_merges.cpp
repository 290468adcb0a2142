#include "tokenlab/bpe/bpe_trainer.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"

namespace tokenlab::bpe {
namespace {

// Fixed by word index, never by thread count: the reduction below visits chunks in
// this order, so pair ids, first-seen keys and word lists are thread-independent.
constexpr std::size_t kChunkWords = 4096;
// Chunks counted concurrently before their results are reduced; bounds the memory
// held by per-chunk tables.
constexpr std::size_t kChunksPerBatch = 32;

constexpr std::uint64_t kNoPosition = std::numeric_limits<std::uint64_t>::max();

// Per-chunk pair statistics, in the chunk's first-seen order.
struct LocalCounts {
  PairIndex map{256};
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> firsts;
  std::vector<std::uint32_t> last_word;
  // (local pair, word) once per word holding the pair, in word order.
  std::vector<std::uint32_t> occurrence_pair;
  std::vector<std::uint32_t> occurrence_word;
};

std::uint64_t position_key(std::uint32_t word, std::uint64_t unit_offset) noexcept {
  return (static_cast<std::uint64_t>(word) << 32) | unit_offset;
}

}  // namespace

MergeTrainer::MergeTrainer(MergeTrainerInput input, const MergeTrainerOptions& options)
    : symbols_(std::move(input.symbols)),
      unit_lengths_(std::move(input.unit_lengths)),
      options_(options) {
  const std::vector<std::uint32_t>& offsets = input.offsets;
  const std::vector<std::uint64_t>& counts = input.counts;
  if (offsets.size() != counts.size() + 1 || offsets.front() != 0 ||
      offsets.back() != symbols_.size())
    throw Error("bpe trainer: word offsets do not match the symbols and counts");
  if (counts.size() >= std::numeric_limits<std::uint32_t>::max())
    throw Error("bpe trainer: too many distinct words (at most 4294967294)");
  if (options_.min_count == 0) options_.min_count = 1;
  words_.resize(counts.size());
  for (std::size_t w = 0; w < counts.size(); ++w) {
    if (offsets[w + 1] < offsets[w]) throw Error("bpe trainer: word offsets decrease");
    words_[w] = {counts[w], offsets[w], offsets[w + 1] - offsets[w]};
  }
  for (const TokenId id : symbols_)
    if (id >= unit_lengths_.size()) throw Error("bpe trainer: symbol id without a unit length");
  threads_ = resolve_threads(options_.threads);
  count_initial_pairs(threads_);
}

void MergeTrainer::count_initial_pairs(unsigned threads) {
  const std::size_t word_total = words_.size();
  const std::size_t chunk_total = (word_total + kChunkWords - 1) / kChunkWords;
  index_.reset(1024);
  std::vector<LocalCounts> locals;

  for (std::size_t batch = 0; batch < chunk_total; batch += kChunksPerBatch) {
    const std::size_t in_batch = std::min(kChunksPerBatch, chunk_total - batch);
    locals.assign(in_batch, LocalCounts{});
    parallel_for(in_batch, threads, [&](std::size_t k) {
      LocalCounts& local = locals[k];
      const std::size_t begin = (batch + k) * kChunkWords;
      const std::size_t end = std::min(word_total, begin + kChunkWords);
      for (std::size_t w = begin; w < end; ++w) {
        const TokenId* s = symbols_.data() + words_[w].offset;
        const std::uint32_t n = words_[w].length;
        const std::uint64_t c = words_[w].count;
        const auto word = static_cast<std::uint32_t>(w);
        std::uint64_t offset = 0;
        for (std::uint32_t j = 0; j + 1 < n; ++j) {
          const std::uint64_t key = pack_pair(s[j], s[j + 1]);
          const auto next_local = static_cast<std::uint32_t>(local.keys.size());
          bool inserted = false;
          const std::uint32_t l = local.map.insert(key, next_local, inserted);
          if (inserted) {
            local.keys.push_back(key);
            local.counts.push_back(0);
            local.firsts.push_back(position_key(word, offset));
            local.last_word.push_back(std::numeric_limits<std::uint32_t>::max());
          }
          local.counts[l] += c;
          if (local.last_word[l] != word) {
            local.last_word[l] = word;
            local.occurrence_pair.push_back(l);
            local.occurrence_word.push_back(word);
          }
          offset += unit_lengths_[s[j]];
        }
      }
    });
    // Reduce in chunk order: the first chunk to see a pair fixes its id and first key.
    std::vector<std::uint32_t> global;
    for (LocalCounts& local : locals) {
      global.resize(local.keys.size());
      for (std::size_t l = 0; l < local.keys.size(); ++l) {
        std::uint32_t id = index_.find(local.keys[l]);
        if (id == PairIndex::kMissing) {
          id = new_pair(local.keys[l]);
          pairs_[id].first = local.firsts[l];
        }
        pairs_[id].count += local.counts[l];
        global[l] = id;
      }
      for (std::size_t o = 0; o < local.occurrence_pair.size(); ++o)
        pairs_[global[local.occurrence_pair[o]]].words.push_back(local.occurrence_word[o]);
      local = LocalCounts{};
    }
  }

  total_tokens_ = 0;
  for (const Word& word : words_) total_tokens_ += word.count * word.length;

  queue_.clear();
  for (std::uint32_t id = 0; id < pairs_.size(); ++id) {
    Pair& p = pairs_[id];
    if (p.count == 0) continue;  // a free slot
    const std::uint64_t length =
        std::uint64_t{unit_lengths_[pair_left(p.key)]} + unit_lengths_[pair_right(p.key)];
    if (p.count < options_.min_count ||
        (options_.max_token_length > 0 && length > options_.max_token_length)) {
      released_low_ = released_low_ || p.count < options_.min_count;
      release_pair(id);
      continue;
    }
    queue_.push({p.count, tie_of(p), p.key});
  }
}

std::uint32_t MergeTrainer::new_pair(std::uint64_t key) {
  std::uint32_t id;
  if (!free_pairs_.empty()) {
    id = free_pairs_.back();
    free_pairs_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(pairs_.size());
    pairs_.emplace_back();
  }
  Pair& p = pairs_[id];
  p.key = key;
  p.count = 0;
  p.first = kNoPosition;
  p.stamp = 0;
  p.words.clear();
  bool inserted = false;
  index_.insert(key, id, inserted);
  return id;
}

void MergeTrainer::release_pair(std::uint32_t id) {
  Pair& p = pairs_[id];
  index_.erase(p.key);
  p.count = 0;
  p.stamp = 0;
  std::vector<std::uint32_t>().swap(p.words);
  free_pairs_.push_back(id);
}

std::uint64_t MergeTrainer::tie_of(const Pair& pair) const noexcept {
  return options_.tie_break == TieBreak::kFirstSeen ? pair.first : pair.key;
}

void MergeTrainer::push(const Pair& pair) {
  queue_.push({pair.count, tie_of(pair), pair.key});
}

std::uint64_t MergeTrainer::exact_first(Pair& pair) {
  const TokenId a = pair_left(pair.key);
  const TokenId b = pair_right(pair.key);
  auto& words = pair.words;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::uint32_t w = words[i];
    const TokenId* s = symbols_.data() + words_[w].offset;
    const std::uint32_t n = words_[w].length;
    std::uint64_t offset = 0;
    for (std::uint32_t j = 0; j + 1 < n; ++j) {
      if (s[j] == a && s[j + 1] == b) {
        // Words before i lost the pair for good (pairs never reappear), so drop them.
        words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i));
        return position_key(w, offset);
      }
      offset += unit_lengths_[s[j]];
    }
  }
  throw Error("bpe trainer: internal error: a pair with a positive count occurs nowhere");
}

void MergeTrainer::decrement(TokenId left, TokenId right, std::uint64_t count) {
  const std::uint32_t id = index_.find(pack_pair(left, right));
  if (id == PairIndex::kMissing) return;  // untracked: merged, too long or too rare
  Pair& p = pairs_[id];
  p.count -= count;
  if (p.count == 0) release_pair(id);
}

void MergeTrainer::increment(TokenId left, TokenId right, std::uint64_t count, std::uint32_t word,
                             std::uint64_t position) {
  if (options_.max_token_length > 0 &&
      std::uint64_t{unit_lengths_[left]} + unit_lengths_[right] > options_.max_token_length)
    return;
  const std::uint64_t key = pack_pair(left, right);
  std::uint32_t id = index_.find(key);
  if (id == PairIndex::kMissing) id = new_pair(key);
  Pair& p = pairs_[id];
  if (p.stamp != step_) {
    p.stamp = step_;
    touched_.push_back(id);
  }
  p.count += count;
  p.first = std::min(p.first, position_key(word, position));
  // Words arrive in ascending order within a step, and a pair gains occurrences only
  // in the step that creates its newer token, so the list stays sorted.
  if (p.words.empty() || p.words.back() != word) p.words.push_back(word);
}

template <class Events>
std::uint32_t MergeTrainer::rewrite_word(std::uint32_t w, TokenId a, TokenId b, TokenId result,
                                         Events& events) {
  TokenId* s = symbols_.data() + words_[w].offset;
  const std::uint32_t n = words_[w].length;
  const std::uint32_t len_ab = unit_lengths_[a] + unit_lengths_[b];
  std::uint32_t i = 0;
  std::uint32_t j = 0;
  std::uint32_t merged = 0;
  std::uint64_t offset = 0;  // unit offset of s[i] == units in s[0, j)
  // In place: s[j - 1] is the current left neighbour (possibly a fresh result),
  // s[i + 2] the untouched right neighbour, exactly the deltas a rescan would give.
  while (i < n) {
    if (i + 1 < n && s[i] == a && s[i + 1] == b) {
      if (j > 0) {
        const TokenId left = s[j - 1];
        events.lost(left, a, w);
        events.gained(left, result, w, offset - unit_lengths_[left]);
      }
      if (i + 2 < n) {
        const TokenId right = s[i + 2];
        events.lost(b, right, w);
        events.gained(result, right, w, offset);
      }
      s[j++] = result;
      offset += len_ab;
      i += 2;
      ++merged;
    } else {
      offset += unit_lengths_[s[i]];
      s[j++] = s[i++];
    }
  }
  words_[w].length = j;
  return merged;
}

namespace {
// Words of a merged pair rewritten per parallel task; fixed, so the task split never
// depends on the thread count.
constexpr std::size_t kSliceWords = 2048;
// Below this many words a step is rewritten on the calling thread.
constexpr std::size_t kParallelWords = 4 * kSliceWords;
// Prefetch distances, in words and in count changes.
constexpr std::size_t kEntriesAhead = 16;
constexpr std::size_t kSymbolsAhead = 8;
constexpr std::size_t kSlotsAhead = 16;
constexpr std::size_t kPairsAhead = 8;
}  // namespace

std::uint64_t MergeTrainer::rewrite_slice(const std::vector<std::uint32_t>& words,
                                          std::size_t slice, TokenId a, TokenId b, TokenId result,
                                          DeltaSlice& out) {
  // Writes through a pointer into room made once a word (a merge makes at most
  // four changes, and a word of n symbols holds at most n / 2 merges): a
  // push_back a change, kept out of line by GCC, was 3% of training.
  struct Recorder {
    Delta* at;
    const Word* words;
    void lost(TokenId l, TokenId r, std::uint32_t w) { *at++ = {l, r, w, 0, 0, words[w].count}; }
    void gained(TokenId l, TokenId r, std::uint32_t w, std::uint64_t pos) {
      *at++ = {l, r, w, 1, pos, words[w].count};
    }
  };
  Recorder recorder{out.buffer.data(), words_.data()};
  const std::size_t begin = slice * kSliceWords;
  const std::size_t end = std::min(words.size(), begin + kSliceWords);
  std::uint64_t removed = 0;
  for (std::size_t x = begin; x < end; ++x) {
    // The words lie anywhere: their records are fetched kEntriesAhead words
    // ahead, their symbols (which need the record) kSymbolsAhead.
    if (x + kEntriesAhead < end) __builtin_prefetch(&words_[words[x + kEntriesAhead]]);
    if (x + kSymbolsAhead < end)
      __builtin_prefetch(symbols_.data() + words_[words[x + kSymbolsAhead]].offset);
    const std::size_t used = static_cast<std::size_t>(recorder.at - out.buffer.data());
    const std::size_t room = used + 2 * std::size_t{words_[words[x]].length};
    if (room > out.buffer.size()) {
      out.buffer.resize(std::max(room, 2 * out.buffer.size()));
      recorder.at = out.buffer.data() + used;
    }
    removed += words_[words[x]].count * rewrite_word(words[x], a, b, result, recorder);
  }
  out.size = static_cast<std::size_t>(recorder.at - out.buffer.data());
  return removed;
}

void MergeTrainer::apply_deltas(const DeltaSlice& slice) {
  const Delta* deltas = slice.buffer.data();
  const std::size_t n = slice.size;
  for (std::size_t i = 0; i < n; ++i) {
    // Two stages ahead: the index slot, then (found in the cache by now) the pair.
    // The id is only a hint: the deltas before may release the pair, and its id
    // may be given to another, so each delta looks its pair up again.
    if (i + kSlotsAhead < n)
      index_.prefetch(pack_pair(deltas[i + kSlotsAhead].left, deltas[i + kSlotsAhead].right));
    if (i + kPairsAhead < n) {
      const std::uint32_t id =
          index_.find(pack_pair(deltas[i + kPairsAhead].left, deltas[i + kPairsAhead].right));
      if (id != PairIndex::kMissing) __builtin_prefetch(&pairs_[id]);
    }
    const Delta& d = deltas[i];
    if (d.gained != 0)
      increment(d.left, d.right, d.count, d.word, d.position);
    else
      decrement(d.left, d.right, d.count);
  }
}

void MergeTrainer::apply_merge(std::uint32_t pair_id, TokenId result) {
  ++step_;
  const std::uint64_t merged_key = pairs_[pair_id].key;
  const TokenId a = pair_left(merged_key);
  const TokenId b = pair_right(merged_key);
  std::vector<std::uint32_t> words = std::move(pairs_[pair_id].words);
  // Released first, so deltas that touch the merged pair itself find nothing.
  release_pair(pair_id);
  touched_.clear();

  // Rewriting records the count changes, which are applied afterwards in word
  // order: the same changes in the same order as applying each as it is found,
  // but the words' cache misses and the pairs' overlap with their neighbours'.
  // Rewriting touches disjoint words, so large steps rewrite in parallel.
  const std::size_t slices = (words.size() + kSliceWords - 1) / kSliceWords;
  if (slice_deltas_.size() < std::max<std::size_t>(slices, 1))
    slice_deltas_.resize(std::max<std::size_t>(slices, 1));
  std::uint64_t removed = 0;
  if (threads_ > 1 && words.size() >= kParallelWords) {
    std::vector<std::uint64_t> slice_removed(slices, 0);
    parallel_for(slices, threads_, [&](std::size_t k) {
      slice_removed[k] = rewrite_slice(words, k, a, b, result, slice_deltas_[k]);
    });
    for (std::size_t k = 0; k < slices; ++k) {
      apply_deltas(slice_deltas_[k]);
      removed += slice_removed[k];
    }
  } else {
    // One buffer for every slice: rewriting a slice and applying its changes
    // alternate, and the buffers of all slices would stay allocated.
    for (std::size_t k = 0; k < slices; ++k) {
      removed += rewrite_slice(words, k, a, b, result, slice_deltas_[0]);
      apply_deltas(slice_deltas_[0]);
    }
  }
  total_tokens_ -= removed;

  for (const std::uint32_t id : touched_) {
    Pair& p = pairs_[id];
    if (p.stamp != step_ || p.count == 0) continue;  // died again within the step
    if (p.count < options_.min_count) {
      released_low_ = true;
      release_pair(id);
      continue;
    }
    p.stamp = 0;  // so a second listing of the same id in touched_ pushes once
    push(p);
  }
}

StopReason MergeTrainer::run(MergeSink& sink) {
  for (;;) {
    if (sink.done()) return StopReason::kSinkDone;
    std::uint32_t best = PairIndex::kMissing;
    while (!queue_.empty()) {
      const PairQueue::Entry top = queue_.pop();
      const std::uint32_t id = index_.find(top.key);
      if (id == PairIndex::kMissing) continue;  // stale: merged, rejected or gone
      Pair& p = pairs_[id];
      if (p.count != top.count || tie_of(p) != top.tie) {
        // Counts only fall and first-seen keys only rise, so the stored entry was an
        // overestimate; requeue the pair at its true priority.
        if (p.count < options_.min_count) {
          released_low_ = true;
          release_pair(id);
        } else {
          push(p);
        }
        continue;
      }
      if (options_.tie_break == TieBreak::kFirstSeen) {
        const std::uint64_t exact = exact_first(p);
        if (exact != p.first) {
          p.first = exact;
          push(p);
          continue;
        }
      }
      best = id;
      break;
    }
    if (best == PairIndex::kMissing) {
      return released_low_ ? StopReason::kBelowMinCount : StopReason::kNoPairs;
    }
    const Pair& p = pairs_[best];
    const std::uint64_t count = p.count;
    const TokenId a = pair_left(p.key);
    const TokenId b = pair_right(p.key);
    const std::optional<TokenId> result = sink.create(a, b);
    if (!result) {
      release_pair(best);
      continue;
    }
    if (*result != unit_lengths_.size())
      throw Error("bpe trainer: the sink returned id " + std::to_string(*result) + ", expected " +
                  std::to_string(unit_lengths_.size()));
    unit_lengths_.push_back(unit_lengths_[a] + unit_lengths_[b]);
    apply_merge(best, *result);
    merges_.push_back({a, b, *result});
    sink.merged(merges_.back(), count, total_tokens_);
  }
}

std::vector<TokenId> MergeTrainer::word(std::size_t i) const {
  const TokenId* s = symbols_.data() + words_.at(i).offset;
  return {s, s + words_[i].length};
}

}  // namespace tokenlab::bpe
