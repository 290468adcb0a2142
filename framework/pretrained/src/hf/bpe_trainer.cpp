// HF's BpeTrainer (tokenizers 0.22, models/bpe/trainer.rs and word.rs), rule for
// rule; see hf_trainers.hpp for the rules. The data structures differ where HF's
// are slow and the order they impose does not reach the result: hash sets of
// word indices become sorted vectors, the per-step hash map of new pair
// positions a sorted list, and the per-symbol length a per-token table.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/pretrained/hf_trainers.hpp"
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
  std::map<char32_t, std::uint64_t> alphabet;
  for (std::size_t w = 0; w < words.size(); ++w)
    for (const char32_t c : chars[w]) alphabet[c] += words[w].count;
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
// numbered in the documented order.
std::vector<std::vector<TokenId>> words_as_symbols(const std::vector<std::vector<char32_t>>& chars,
                                                   const HfBpeTrainerSettings& settings,
                                                   Vocabulary& vocabulary) {
  const auto symbol_text = [&](char32_t c, bool first, bool last) -> std::optional<std::string> {
    std::string s = text_of(c);
    if (!vocabulary.find(s)) return std::nullopt;  // dropped by limit_alphabet
    if (!first && settings.continuing_subword_prefix)
      s.insert(0, *settings.continuing_subword_prefix);
    if (last && settings.end_of_word_suffix) s += *settings.end_of_word_suffix;
    return s;
  };
  const auto for_each_symbol = [&](const std::vector<char32_t>& word, auto&& fn) {
    for (std::size_t i = 0; i < word.size(); ++i)
      if (auto s = symbol_text(word[i], i == 0, i + 1 == word.size())) fn(*s);
  };
  std::vector<std::string> fresh;
  for (const auto& word : chars)
    for_each_symbol(word, [&](const std::string& s) {
      if (!vocabulary.find(s)) fresh.push_back(s);
    });
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  if (settings.symbol_order) {
    std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      const auto rank = settings.symbol_order(fresh[i]);
      keyed.emplace_back(rank ? *rank : std::numeric_limits<std::uint64_t>::max(), i);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> ordered;
    for (const auto& k : keyed) ordered.push_back(fresh[k.second]);
    fresh = std::move(ordered);
  }
  for (const auto& s : fresh) vocabulary.add(s, 1);
  std::vector<std::vector<TokenId>> symbols(chars.size());
  for (std::size_t w = 0; w < chars.size(); ++w)
    for_each_symbol(chars[w],
                    [&](const std::string& s) { symbols[w].push_back(*vocabulary.find(s)); });
  return symbols;
}

struct Change {
  Pair pair;
  std::int32_t delta;
  std::uint32_t word;
  friend bool operator<(const Change& a, const Change& b) {
    return a.pair != b.pair ? a.pair < b.pair : a.word < b.word;
  }
};

// HF's Word::merge: every non-overlapping (left, right) from the left becomes
// replacement; the pair counts it changes are appended to changes.
void merge_word(std::vector<TokenId>& word, std::uint32_t index, TokenId left, TokenId right,
                TokenId replacement, const Vocabulary& vocabulary, std::uint64_t max_length,
                std::vector<Change>& changes) {
  const std::uint64_t new_length = vocabulary.length(replacement);
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] != left || i + 1 >= word.size() || word[i + 1] != right) continue;
    if (i > 0) {
      changes.push_back({pack_pair(word[i - 1], left), -1, index});
      if (vocabulary.length(word[i - 1]) + new_length < max_length)
        changes.push_back({pack_pair(word[i - 1], replacement), 1, index});
    }
    word[i] = replacement;
    word.erase(word.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    if (i + 1 < word.size()) {
      changes.push_back({pack_pair(right, word[i + 1]), -1, index});
      if (vocabulary.length(word[i + 1]) + new_length < max_length)
        changes.push_back({pack_pair(replacement, word[i + 1]), 1, index});
    }
  }
}

// HF's priority queue of Merge{pair, count, pos}: the highest count first, then
// the smaller pair; equal entries in push order.
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
    heap_.push(Item{count, pair, sequence_++, entry});
  }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  Top pop() {
    const Item item = heap_.top();
    heap_.pop();
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
  std::priority_queue<Item> heap_;
  std::vector<std::vector<std::uint32_t>> words_;
  std::uint64_t sequence_ = 0;
};

// Applies the changes of one step (or of the initial count) and queues a new
// entry for every pair that gained occurrences, with the words it gained them in.
void apply_changes(std::vector<Change>& changes, const std::vector<HfWordCount>& words,
                   PairMap<std::int64_t>& pair_counts, MergeQueue& queue) {
  std::sort(changes.begin(), changes.end());
  bool inserted = false;
  for (std::size_t i = 0; i < changes.size();) {
    const Pair pair = changes[i].pair;
    std::int64_t& count = pair_counts.insert(pair, 0, inserted);
    std::vector<std::uint32_t> gained;
    for (; i < changes.size() && changes[i].pair == pair; ++i) {
      count += changes[i].delta * static_cast<std::int64_t>(words[changes[i].word].count);
      if (changes[i].delta > 0 && (gained.empty() || gained.back() != changes[i].word))
        gained.push_back(changes[i].word);
    }
    if (!gained.empty() && count > 0)
      queue.push(static_cast<std::uint64_t>(count), pair, std::move(gained));
  }
  changes.clear();
}

// Merges (left, right) in the given words, on several threads when there are many.
void merge_in_words(std::vector<std::vector<TokenId>>& symbols,
                    const std::vector<std::uint32_t>& targets, Pair pair, TokenId replacement,
                    const Vocabulary& vocabulary, std::uint64_t max_length, unsigned threads,
                    std::vector<Change>& changes) {
  constexpr std::size_t kWordsPerTask = 4096;
  const TokenId left = pair_left(pair), right = pair_right(pair);
  if (threads <= 1 || targets.size() < 2 * kWordsPerTask) {
    for (const std::uint32_t w : targets)
      merge_word(symbols[w], w, left, right, replacement, vocabulary, max_length, changes);
    return;
  }
  const std::size_t tasks = (targets.size() + kWordsPerTask - 1) / kWordsPerTask;
  std::vector<std::vector<Change>> parts(tasks);
  parallel_for(tasks, threads, [&](std::size_t t) {
    const std::size_t end = std::min(targets.size(), (t + 1) * kWordsPerTask);
    for (std::size_t k = t * kWordsPerTask; k < end; ++k)
      merge_word(symbols[targets[k]], targets[k], left, right, replacement, vocabulary, max_length,
                 parts[t]);
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
  PairMap<std::int64_t> pair_counts(1 << 16);
  MergeQueue queue;
  std::vector<Change> changes;
  for (std::uint32_t w = 0; w < symbols.size(); ++w)
    for (std::size_t i = 0; i + 1 < symbols[w].size(); ++i)
      changes.push_back({pack_pair(symbols[w][i], symbols[w][i + 1]), 1, w});
  apply_changes(changes, words, pair_counts, queue);

  std::vector<std::pair<Pair, TokenId>> merges;
  const std::string no_prefix;
  const std::string& prefix = settings.continuing_subword_prefix.value_or(no_prefix);
  while (vocabulary.size() < settings.vocab_size && !queue.empty()) {  // rules 4 and 5
    MergeQueue::Top top = queue.pop();
    const auto current = static_cast<std::uint64_t>(*pair_counts.find(top.pair));
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
    merge_in_words(symbols, queue.take_words(top.entry), top.pair, id, vocabulary, max_length,
                   settings.threads, changes);
    apply_changes(changes, words, pair_counts, queue);
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
