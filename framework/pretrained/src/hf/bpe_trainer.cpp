// HF's BpeTrainer (tokenizers 0.22, models/bpe/trainer.rs and word.rs), rule for
// rule; see hf_trainers.hpp for the rules. The data structures differ where HF's
// are slow and the order they impose does not reach the result: hash sets of
// word indices become sorted vectors, the per-step hash map of new pair
// positions a sorted list, and the per-symbol length a per-token table.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/pretrained/hf_trainers.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

using Pair = std::uint64_t;  // pack_pair(left, right): compares as HF's (u32, u32)

// The growing vocabulary: HF's word_to_id / id_to_word, plus each token's length
// in the word's initial symbols (HF's Symbol::len, which max_token_length bounds).
class Vocabulary {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return tokens_.size(); }
  [[nodiscard]] const std::string& token(TokenId id) const { return tokens_[id]; }
  [[nodiscard]] std::uint64_t length(TokenId id) const { return lengths_[id]; }
  [[nodiscard]] const TokenId* find(const std::string& token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? nullptr : &it->second;
  }
  // The id of token, added with length if it is new (HF: "insert the new token
  // if it does not already exist").
  TokenId add(const std::string& token, std::uint64_t length) {
    const auto [it, inserted] = ids_.try_emplace(token, static_cast<TokenId>(tokens_.size()));
    if (inserted) {
      tokens_.push_back(token);
      lengths_.push_back(length);
    }
    return it->second;
  }
  std::vector<std::string> take_tokens() && { return std::move(tokens_); }

 private:
  std::unordered_map<std::string, TokenId> ids_;
  std::vector<std::string> tokens_;
  std::vector<std::uint64_t> lengths_;
};

std::vector<char32_t> code_points_of(const std::string& word) {
  std::vector<char32_t> out;
  for (std::size_t pos = 0; pos < word.size();) {
    const utf8::Sequence s = utf8::decode_sequence(word, pos);
    if (s.length == 0)
      throw Error("BPE training: a word is not valid UTF-8 at byte " + std::to_string(pos));
    out.push_back(s.code_point);
    pos += s.length;
  }
  return out;
}

std::string text_of(char32_t c) {
  std::string s;
  utf8::append(s, c);
  return s;
}

// Rule 2: the alphabet, weighted by word counts, limited, in code point order.
void add_alphabet(const std::vector<std::vector<char32_t>>& chars,
                  const std::vector<HfWordCount>& words, const HfBpeTrainerSettings& settings,
                  Vocabulary& vocabulary) {
  // Counts by code point: a flat table for the Basic Multilingual Plane (one
  // look-up per character of every word), a map for the rest.
  std::vector<std::uint64_t> plane0(0x10000, 0);
  std::map<char32_t, std::uint64_t> alphabet;
  for (std::size_t w = 0; w < words.size(); ++w)
    for (const char32_t c : chars[w]) {
      if (c < 0x10000)
        plane0[c] += words[w].count;
      else
        alphabet[c] += words[w].count;
    }
  for (char32_t c = 0; c < 0x10000; ++c)
    if (plane0[c] != 0) alphabet[c] = plane0[c];
  for (const char32_t c : settings.initial_alphabet)
    alphabet[c] = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::pair<char32_t, std::uint64_t>> kept(alphabet.begin(), alphabet.end());
  const std::size_t limit = settings.limit_alphabet.value_or(kept.size());
  if (kept.size() > limit) {
    // HF sorts by count with an unstable sort; ties go by code point here.
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(kept.size() - limit));
    std::sort(kept.begin(), kept.end());
  }
  for (const auto& entry : kept) vocabulary.add(text_of(entry.first), 1);
}

// Rule 3: one symbol per character the alphabet kept, with the prefix on all
// but the first and the suffix on the last; the new prefixed/suffixed forms
// numbered in the documented order. A character's symbol depends only on the
// character and on which of the two marks it gets, so it is worked out once per
// (character, marks), not once per occurrence.
std::vector<std::vector<TokenId>> words_as_symbols(const std::vector<std::vector<char32_t>>& chars,
                                                   const HfBpeTrainerSettings& settings,
                                                   Vocabulary& vocabulary) {
  constexpr std::int64_t kDropped = -1;  // not in the alphabet (limit_alphabet)
  // key: code point << 2 | prefixed << 1 | suffixed -> id, kDropped, or
  // -2 - index into fresh (a new symbol, numbered below).
  std::unordered_map<std::uint64_t, std::int64_t> symbol_of;
  std::vector<std::string> fresh;
  const auto key_of = [&](char32_t c, bool first, bool last) -> std::uint64_t {
    const bool prefixed = !first && settings.continuing_subword_prefix.has_value();
    const bool suffixed = last && settings.end_of_word_suffix.has_value();
    return (std::uint64_t{c} << 2) | (std::uint64_t{prefixed} << 1) | std::uint64_t{suffixed};
  };
  const auto resolve = [&](std::uint64_t key) -> std::int64_t {
    const auto [it, inserted] = symbol_of.try_emplace(key, kDropped);
    if (!inserted) return it->second;
    std::string s = text_of(static_cast<char32_t>(key >> 2));
    if (!vocabulary.find(s)) return kDropped;  // HF checks the bare character
    if (key & 2) s.insert(0, *settings.continuing_subword_prefix);
    if (key & 1) s += *settings.end_of_word_suffix;
    if (const TokenId* id = vocabulary.find(s)) return it->second = *id;
    fresh.push_back(std::move(s));
    return it->second = -2 - static_cast<std::int64_t>(fresh.size() - 1);
  };
  for (const auto& word : chars)
    for (std::size_t i = 0; i < word.size(); ++i)
      resolve(key_of(word[i], i == 0, i + 1 == word.size()));

  std::vector<std::size_t> order(fresh.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return fresh[a] < fresh[b]; });
  if (settings.symbol_order) {
    const auto rank = [&](std::size_t i) {
      const auto r = settings.symbol_order(fresh[i]);
      return r ? std::uint64_t{*r} : std::numeric_limits<std::uint64_t>::max();
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  }
  std::vector<TokenId> fresh_id(fresh.size());
  for (const std::size_t i : order) fresh_id[i] = vocabulary.add(fresh[i], 1);
  for (auto& [key, value] : symbol_of)
    if (value <= -2) value = fresh_id[static_cast<std::size_t>(-2 - value)];

  std::vector<std::vector<TokenId>> symbols(chars.size());
  for (std::size_t w = 0; w < chars.size(); ++w) {
    const auto& word = chars[w];
    symbols[w].reserve(word.size());
    for (std::size_t i = 0; i < word.size(); ++i) {
      const std::int64_t id = symbol_of.find(key_of(word[i], i == 0, i + 1 == word.size()))->second;
      if (id != kDropped) symbols[w].push_back(static_cast<TokenId>(id));
    }
  }
  return symbols;
}

// A pair count change: delta is +-1 times the word's count, carried here so that
// applying it does not read the word's entry again (a cache miss per change).
struct Change {
  Pair pair;
  std::int64_t delta;
  std::uint32_t word;
};

// A pair's count (HF's pair_counts, which may pass 2^31 here) and, for the step
// under way, where its gained words are gathered: one hash lookup per change.
struct PairState {
  std::int64_t count = 0;
  std::uint32_t step = 0;
  std::uint32_t slot = 0;
};
using PairStates = PairMap<PairState>;

// HF's Word::merge: every non-overlapping (left, right) from the left becomes
// replacement; the pair counts it changes are appended to changes.
void merge_word(std::vector<TokenId>& word, std::uint32_t index, std::int64_t count, TokenId left,
                TokenId right, TokenId replacement, const Vocabulary& vocabulary,
                std::uint64_t max_length, std::vector<Change>& changes) {
  // One pass that writes the merged word over itself (an erase per occurrence
  // moved the tail each time). The changes are HF's, in its order: the symbol
  // before is the one already written (merged, if the previous pair was an
  // occurrence too), the symbol after is the next one not yet read.
  const std::uint64_t new_length = vocabulary.length(replacement);
  const std::size_t n = word.size();
  std::size_t out = 0;
  for (std::size_t i = 0; i < n;) {
    if (word[i] != left || i + 1 >= n || word[i + 1] != right) {
      word[out++] = word[i++];
      continue;
    }
    if (out > 0) {
      changes.push_back({pack_pair(word[out - 1], left), -count, index});
      if (vocabulary.length(word[out - 1]) + new_length < max_length)
        changes.push_back({pack_pair(word[out - 1], replacement), count, index});
    }
    if (i + 2 < n) {
      changes.push_back({pack_pair(right, word[i + 2]), -count, index});
      if (vocabulary.length(word[i + 2]) + new_length < max_length)
        changes.push_back({pack_pair(replacement, word[i + 2]), count, index});
    }
    word[out++] = replacement;
    i += 2;
  }
  word.resize(out);
}

// HF's priority queue of Merge{pair, count, pos}: the highest count first, then
// the smaller pair; equal entries in push order. Most entries never come out:
// their count stays below the last merge's. So entries wait, unordered, in one
// bucket per power of two of their count, and only the highest bucket with any
// is a binary heap: a push below it is an append, and the heap stays small
// enough for the cache (one heap of every entry had a cache miss per level).
// Every entry in a bucket counts less than every entry in the heap, so the top
// of the heap is the top of all, as in HF's one heap.
class MergeQueue {
 public:
  struct Top {
    std::uint64_t count;
    Pair pair;
    std::uint32_t entry;
  };
  void push(std::uint64_t count, Pair pair, std::vector<std::uint32_t> words) {
    const auto entry = static_cast<std::uint32_t>(words_.size());
    words_.push_back(std::move(words));
    repush(count, pair, entry);
  }
  void repush(std::uint64_t count, Pair pair, std::uint32_t entry) {
    const Item item{count, pair, sequence_++, entry};
    const auto bucket = static_cast<std::size_t>(std::bit_width(count));
    if (bucket >= heap_bucket_) {
      heap_.push_back(item);
      std::push_heap(heap_.begin(), heap_.end());
    } else {
      buckets_[bucket].push_back(item);
      ++waiting_;
    }
  }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty() && waiting_ == 0; }
  Top pop() {  // not empty()
    if (heap_.empty()) refill();
    std::pop_heap(heap_.begin(), heap_.end());
    const Item item = heap_.back();
    heap_.pop_back();
    return {item.count, item.pair, item.entry};
  }
  [[nodiscard]] std::vector<std::uint32_t> take_words(std::uint32_t entry) {
    return std::move(words_[entry]);
  }

 private:
  struct Item {
    std::uint64_t count;
    Pair pair;
    std::uint64_t sequence;
    std::uint32_t entry;
    friend bool operator<(const Item& a, const Item& b) {  // a below b
      if (a.count != b.count) return a.count < b.count;
      if (a.pair != b.pair) return a.pair > b.pair;
      return a.sequence > b.sequence;
    }
  };
  static constexpr std::size_t kBuckets = 65;  // bit_width of a 64-bit count
  // The heap takes the highest bucket that has entries.
  void refill() {
    std::size_t b = heap_bucket_;
    while (buckets_[--b].empty()) {
    }
    heap_bucket_ = b;
    heap_.swap(buckets_[b]);
    buckets_[b].clear();
    waiting_ -= heap_.size();
    std::make_heap(heap_.begin(), heap_.end());
  }
  std::vector<Item> heap_;
  std::array<std::vector<Item>, kBuckets> buckets_;
  std::size_t heap_bucket_ = kBuckets;  // entries of this bucket and above are in heap_
  std::size_t waiting_ = 0;             // entries in buckets_
  std::vector<std::vector<std::uint32_t>> words_;
  std::uint64_t sequence_ = 0;
};

// Applies the changes of one step and queues a new entry for every pair that
// gained occurrences, with the words it gained them in. Changes come in word
// order, so each gained list is sorted as it is built.
class StepChanges {
 public:
  void apply(std::vector<Change>& changes, PairStates& states, std::uint32_t step,
             MergeQueue& queue) {
    touched_.clear();
    bool inserted = false;
    for (const Change& c : changes) {
      PairState& state = states.insert(c.pair, PairState{}, inserted);
      if (state.step != step) {
        state.step = step;
        state.slot = static_cast<std::uint32_t>(touched_.size());
        touched_.push_back({c.pair, {}});
      }
      state.count += c.delta;
      if (c.delta > 0) {
        auto& gained = touched_[state.slot].gained;
        if (gained.empty() || gained.back() != c.word) gained.push_back(c.word);
      }
    }
    for (auto& t : touched_) {
      const std::int64_t count = states.find(t.pair)->count;
      if (!t.gained.empty() && count > 0)
        queue.push(static_cast<std::uint64_t>(count), t.pair, std::move(t.gained));
    }
    changes.clear();
  }

 private:
  struct Touched {
    Pair pair;
    std::vector<std::uint32_t> gained;
  };
  std::vector<Touched> touched_;
};

// HF's count_pairs: every pair's count and the words it occurs in, one queue
// entry per pair. Words are visited in index order, so each pair's word list
// comes out sorted without a sort (a sort of all 10^7 windows of 100 MB took a
// tenth of the training).
void count_initial_pairs(const std::vector<std::vector<TokenId>>& symbols,
                         const std::vector<HfWordCount>& words, PairStates& states,
                         MergeQueue& queue) {
  PairMap<std::uint32_t> slot_of(1 << 16);
  std::vector<Pair> pairs;
  std::vector<std::vector<std::uint32_t>> where;
  bool inserted = false;
  for (std::uint32_t w = 0; w < symbols.size(); ++w) {
    const auto& s = symbols[w];
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      const Pair pair = pack_pair(s[i], s[i + 1]);
      const std::uint32_t slot =
          slot_of.insert(pair, static_cast<std::uint32_t>(pairs.size()), inserted);
      if (inserted) {
        pairs.push_back(pair);
        where.emplace_back();
      }
      states.insert(pair, PairState{}, inserted).count += static_cast<std::int64_t>(words[w].count);
      if (where[slot].empty() || where[slot].back() != w) where[slot].push_back(w);
    }
  }
  for (std::size_t slot = 0; slot < pairs.size(); ++slot)
    queue.push(static_cast<std::uint64_t>(states.find(pairs[slot])->count), pairs[slot],
               std::move(where[slot]));
}

// merge_word on targets[begin, end). The words are scattered over memory, and
// each costs two cache misses, its vector and then its symbols, that the loop
// would wait for one after the other (most of the merge loop's time); asking for
// them some words ahead overlaps them.
void merge_range(std::vector<std::vector<TokenId>>& symbols,
                 const std::vector<std::int64_t>& counts, const std::vector<std::uint32_t>& targets,
                 std::size_t begin, std::size_t end, Pair pair, TokenId replacement,
                 const Vocabulary& vocabulary, std::uint64_t max_length,
                 std::vector<Change>& changes) {
  constexpr std::size_t kAhead = 16;
  const TokenId left = pair_left(pair), right = pair_right(pair);
  for (std::size_t k = begin; k < end; ++k) {
    if (k + 2 * kAhead < end) {
      __builtin_prefetch(&symbols[targets[k + 2 * kAhead]]);
      __builtin_prefetch(&counts[targets[k + 2 * kAhead]]);
    }
    if (k + kAhead < end) __builtin_prefetch(symbols[targets[k + kAhead]].data());
    const std::uint32_t w = targets[k];
    merge_word(symbols[w], w, counts[w], left, right, replacement, vocabulary, max_length, changes);
  }
}

// Merges (left, right) in the given words, on several threads when there are many.
void merge_in_words(std::vector<std::vector<TokenId>>& symbols,
                    const std::vector<std::int64_t>& counts,
                    const std::vector<std::uint32_t>& targets, Pair pair, TokenId replacement,
                    const Vocabulary& vocabulary, std::uint64_t max_length, unsigned threads,
                    std::vector<Change>& changes) {
  constexpr std::size_t kWordsPerTask = 4096;
  threads = resolve_threads(threads);
  if (threads <= 1 || targets.size() < 2 * kWordsPerTask) {
    merge_range(symbols, counts, targets, 0, targets.size(), pair, replacement, vocabulary,
                max_length, changes);
    return;
  }
  const std::size_t tasks = (targets.size() + kWordsPerTask - 1) / kWordsPerTask;
  std::vector<std::vector<Change>> parts(tasks);
  parallel_for(tasks, threads, [&](std::size_t t) {
    const std::size_t end = std::min(targets.size(), (t + 1) * kWordsPerTask);
    merge_range(symbols, counts, targets, t * kWordsPerTask, end, pair, replacement, vocabulary,
                max_length, parts[t]);
  });
  for (const auto& part : parts) changes.insert(changes.end(), part.begin(), part.end());
}

}  // namespace

HfBpeResult train_hf_bpe(const std::vector<HfWordCount>& words,
                         const HfBpeTrainerSettings& settings) {
  Vocabulary vocabulary;
  for (const std::string& special : settings.special_tokens) {  // rule 1
    if (special.empty()) throw Error("BPE training: a special token is empty");
    vocabulary.add(special, 1);
  }
  std::vector<std::vector<char32_t>> chars;
  chars.reserve(words.size());
  for (const auto& w : words) chars.push_back(code_points_of(w.word));
  add_alphabet(chars, words, settings, vocabulary);  // rule 2
  std::vector<std::vector<TokenId>> symbols =
      words_as_symbols(chars, settings, vocabulary);  // rule 3
  chars.clear();
  chars.shrink_to_fit();

  const std::uint64_t max_length =
      settings.max_token_length.value_or(std::numeric_limits<std::uint64_t>::max());
  std::vector<std::int64_t> counts(words.size());
  for (std::size_t w = 0; w < words.size(); ++w)
    counts[w] = static_cast<std::int64_t>(words[w].count);
  PairStates states(1 << 16);
  MergeQueue queue;
  std::vector<Change> changes;
  StepChanges step_changes;
  count_initial_pairs(symbols, words, states, queue);

  std::vector<std::pair<Pair, TokenId>> merges;
  const std::string no_prefix;
  const std::string& prefix = settings.continuing_subword_prefix.value_or(no_prefix);
  while (vocabulary.size() < settings.vocab_size && !queue.empty()) {  // rules 4 and 5
    MergeQueue::Top top = queue.pop();
    const auto current = static_cast<std::uint64_t>(states.find(top.pair)->count);
    if (top.count != current) {
      queue.repush(current, top.pair, top.entry);
      continue;
    }
    if (top.count < 1 || settings.min_frequency > top.count) break;
    const TokenId left = pair_left(top.pair), right = pair_right(top.pair);
    std::string_view right_text = vocabulary.token(right);
    if (!prefix.empty() && right_text.starts_with(prefix)) right_text.remove_prefix(prefix.size());
    const TokenId id = vocabulary.add(vocabulary.token(left) + std::string(right_text),
                                      vocabulary.length(left) + vocabulary.length(right));
    merges.emplace_back(top.pair, id);
    merge_in_words(symbols, counts, queue.take_words(top.entry), top.pair, id, vocabulary,
                   max_length, settings.threads, changes);
    step_changes.apply(changes, states, static_cast<std::uint32_t>(merges.size()), queue);
  }

  // HF keeps merges in a map from pair to rank: a pair merged twice keeps the later rank.
  PairMap<std::uint32_t> last_rank(merges.size() + 1);
  for (std::uint32_t rank = 0; rank < merges.size(); ++rank) {
    bool inserted = false;
    last_rank.insert(merges[rank].first, rank, inserted) = rank;
  }
  HfBpeResult result;
  for (std::uint32_t rank = 0; rank < merges.size(); ++rank)
    if (*last_rank.find(merges[rank].first) == rank)
      result.merges.emplace_back(vocabulary.token(pair_left(merges[rank].first)),
                                 vocabulary.token(pair_right(merges[rank].first)));
  result.vocabulary = std::move(vocabulary).take_tokens();
  return result;
}

std::vector<std::string> train_hf_wordpiece(const std::vector<HfWordCount>& words,
                                            HfBpeTrainerSettings settings) {
  if (!settings.continuing_subword_prefix) settings.continuing_subword_prefix = "##";
  return train_hf_bpe(words, settings).vocabulary;
}

}  // namespace tokenlab
