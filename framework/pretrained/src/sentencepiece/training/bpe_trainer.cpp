// bpe::Trainer::Train (bpe_model_trainer.cc), step for step where a step can
// change the result, with faster data structures where it cannot:
//
// * SentencePiece counts a pair lazily (ComputeFreq) over a list of positions
//   that it prunes as it counts: a position whose symbols changed, or that
//   overlaps the previous one ("AAA" holds one "AA"), is erased for good, even
//   when a later merge would have made it count again. That undercount decides
//   later ties, so a pair is recounted exactly when SentencePiece recounts it (at
//   the next scan if it is active, at the next refresh otherwise). Only pairs of
//   equal symbols ("AA") can lose a position that way: for two different symbols
//   positions never overlap, and one that became invalid stays so (a slot's
//   symbol only grows), so their recount is a live count, kept up to date as
//   positions come and go; pairs of equal symbols keep the list and its pruning.
// * The best pair is searched among the "active" pairs only: the top 5% (at
//   least 1,000) by frequency, refreshed every 100 pieces and after each
//   duplicate at such a count, plus every pair made since. SentencePiece scans
//   the whole active set at every step; here a heap over the active pairs with
//   lazy invalidation gives the same maximum. Which of the pairs tied with the
//   last of the top 5% are active depends on the order of SentencePiece's
//   symbol cache, a std::unordered_map keyed by fingerprints (its bundled
//   absl::flat_hash_map is that): the cache is the same map, with the same keys
//   (port::FingerprintCat), inserted into and erased from in the same order, and
//   the top is chosen by the same std::partial_sort. On small texts, where
//   hundreds of pairs tie at the end, this decides the last pieces.
// * Positions are kept in vectors, not std::set: a pair only ever receives
//   positions in increasing order (from the initial scan, or from the merge pass
//   of the piece that made it), so appending keeps them sorted.
// * A pair that SentencePiece removes from its cache and later looks up again
//   (ResetFreq on a leftover adjacency) is made again, empty, as it is there: the
//   cache's size sets the 5%, and its order the ties.
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "sentencepiece/training/training.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::sentencepiece_detail::training {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// port::FingerprintCat (util.h): Bob Jenkins' 64-bit mix.
std::uint64_t fingerprint_cat(std::uint64_t a, std::uint64_t c) noexcept {
  std::uint64_t b = 0xe08c1d668b756f82;
  a -= b, a -= c, a ^= (c >> 43);
  b -= c, b -= a, b ^= (a << 9);
  c -= a, c -= b, c ^= (b >> 8);
  a -= b, a -= c, a ^= (c >> 38);
  b -= c, b -= a, b ^= (a << 23);
  c -= a, c -= b, c ^= (b >> 5);
  a -= b, a -= c, a ^= (c >> 35);
  b -= c, b -= a, b ^= (a << 49);
  c -= a, c -= b, c ^= (b >> 11);
  a -= b, a -= c, a ^= (c >> 12);
  b -= c, b -= a, b ^= (a << 18);
  c -= a, c -= b, c ^= (b >> 22);
  return c;
}

struct Symbol {
  std::uint64_t fp = 0;                       // fingerprint: the character, or of the parts
  std::uint32_t left = kNone, right = kNone;  // a pair's parts; kNone for a character
  std::uint32_t length = 0;                   // code points
  std::string text;
  std::vector<std::uint64_t> positions;  // left << 32 | right, flat indices, increasing
  // A pair of two different symbols never overlaps itself, and a position of it,
  // once invalid, stays so (a slot's symbol only grows): its recount is the sum
  // over its live positions, kept as they come and go. A pair of equal symbols
  // is recounted from its list, whose pruning loses positions for good.
  std::uint32_t live_positions = 0;  // how many live positions (different symbols)
  bool unknown = false, cached = true, active = false, pending = false;
  bool ghost = false;  // made again after leaving the cache: no positions, ever
  [[nodiscard]] bool is_pair() const noexcept { return left != kNone; }
  [[nodiscard]] bool is_self_pair() const noexcept { return left == right; }
};

struct HeapEntry {
  std::uint64_t freq;
  std::uint32_t length, id;
};

class BpeTrainer {
 public:
  BpeTrainer(const TrainingText& text, const TrainerSpec& spec)
      : rules_(spec), split_(spec.split_by_whitespace()) {
    for (const auto& [c, n] : text.required_chars) required_[c] = n;
    layout(split_ ? split_by_whitespace(text.sentences, spec) : text.sentences);
  }

  Pieces run(std::size_t target, const Note& note);

 private:
  void layout(const std::vector<Sentence>& units);
  std::uint32_t char_symbol(char32_t c);
  std::uint32_t pair_symbol(std::uint32_t left, std::uint32_t right);
  void compute_freq(std::uint32_t id);
  // The positions of s (a pair of different symbols) that are still valid, in order.
  void keep_live_positions(Symbol& s) {
    std::erase_if(s.positions, [&](std::uint64_t pos) {
      return at_[pos >> 32] != s.left || at_[static_cast<std::uint32_t>(pos)] != s.right;
    });
  }
  void add_pair(std::uint32_t left, std::uint32_t right);
  void reset_freq(std::uint32_t left, std::uint32_t right, std::uint32_t best);
  void update_active();
  std::uint32_t best_active();
  void merge(std::uint32_t best);
  void uncache(std::uint32_t id);
  [[nodiscard]] bool before(const HeapEntry& a, const HeapEntry& b) const {
    if (a.freq != b.freq) return a.freq < b.freq;
    if (a.length != b.length) return a.length > b.length;
    return symbols_[a.id].text > symbols_[b.id].text;
  }
  void push(std::uint32_t id) {
    heap_.push_back({freq_[id], symbols_[id].length, id});
    std::push_heap(heap_.begin(), heap_.end(),
                   [this](const HeapEntry& a, const HeapEntry& b) { return before(a, b); });
  }

  PieceRules rules_;
  bool split_;
  std::unordered_map<char32_t, std::int64_t> required_;
  std::vector<Symbol> symbols_;
  std::vector<std::uint64_t> freq_;   // by symbol: Symbol::freq, 0 = to be recounted
  std::vector<std::uint64_t> live_;   // by pair of different symbols: its live count
  std::vector<std::uint8_t> self_;    // by symbol: 1 for a character or a pair of equal ones
  std::uint32_t first_pair_ = kNone;  // symbols below are characters
  // symbols_cache_: fingerprint -> symbol, the same container as SentencePiece's,
  // so that its iteration order is the same.
  std::unordered_map<std::uint64_t, std::uint32_t> cache_;
  // The sentences, laid end to end: symbol at each index (kNone once merged
  // away), the live neighbours, and the sentence's count.
  std::vector<std::uint32_t> at_, next_, prev_, unit_;
  std::vector<std::int64_t> counts_;
  std::vector<std::uint32_t> pending_;  // active pairs to recount at the next scan
  std::vector<std::uint32_t> active_;   // every pair made active since the last refresh
  std::vector<HeapEntry> heap_;
};

std::uint32_t BpeTrainer::char_symbol(char32_t c) {
  if (const auto it = cache_.find(c); it != cache_.end()) return it->second;
  Symbol s;
  s.fp = c;
  s.length = 1;
  append_utf8(c, s.text);
  s.unknown = c == kUNKChar;
  const auto it = required_.find(c);
  freq_.push_back(it == required_.end() ? 1 : static_cast<std::uint64_t>(it->second));
  live_.push_back(0);
  self_.push_back(1);
  symbols_.push_back(std::move(s));
  return cache_[c] = static_cast<std::uint32_t>(symbols_.size() - 1);
}

// GetPairSymbol: the cached pair, or a new one, or kNone for a pair with the
// unknown character or one that would not be a valid piece.
std::uint32_t BpeTrainer::pair_symbol(std::uint32_t left, std::uint32_t right) {
  if (left == kNone || right == kNone) return kNone;
  if (symbols_[left].unknown || symbols_[right].unknown) return kNone;
  const std::uint64_t fp = fingerprint_cat(symbols_[left].fp, symbols_[right].fp);
  if (const auto it = cache_.find(fp); it != cache_.end()) return it->second;
  Symbol s;
  s.fp = fp;
  s.left = left;
  s.right = right;
  s.length = symbols_[left].length + symbols_[right].length;
  s.text = symbols_[left].text + symbols_[right].text;
  if (s.length > 512 || !rules_.valid(decode_utf8(s.text))) return kNone;
  self_.push_back(s.is_self_pair() ? 1 : 0);
  symbols_.push_back(std::move(s));
  freq_.push_back(0);
  live_.push_back(0);
  const auto id = static_cast<std::uint32_t>(symbols_.size() - 1);
  cache_.emplace(fp, id);
  return id;
}

void BpeTrainer::layout(const std::vector<Sentence>& units) {
  std::size_t total = 0;
  for (const Sentence& u : units) total += u.text.size();
  at_.reserve(total);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const std::u32string chars = decode_utf8(units[u].text);
    const auto first = static_cast<std::uint32_t>(at_.size());
    if (at_.size() + chars.size() >= kNone)
      throw Error(
          "SentencePiece training: the training text is too large for BPE (2^32 characters)");
    for (std::size_t i = 0; i < chars.size(); ++i) {
      at_.push_back(char_symbol(chars[i]));
      next_.push_back(i + 1 < chars.size() ? first + static_cast<std::uint32_t>(i) + 1 : kNone);
      prev_.push_back(i > 0 ? first + static_cast<std::uint32_t>(i) - 1 : kNone);
      unit_.push_back(static_cast<std::uint32_t>(u));
    }
    counts_.push_back(units[u].count);
  }
  first_pair_ = static_cast<std::uint32_t>(symbols_.size());
  for (std::uint32_t i = 0; i < at_.size(); ++i)
    if (next_[i] != kNone) add_pair(i, next_[i]);
}

// AddNewPair: the pair at [left, right] gets the position and becomes active.
void BpeTrainer::add_pair(std::uint32_t left, std::uint32_t right) {
  if (left == kNone || right == kNone) return;
  const std::uint32_t id = pair_symbol(at_[left], at_[right]);
  if (id == kNone) return;
  Symbol& s = symbols_[id];
  if (!s.active) {
    s.active = true;
    active_.push_back(id);
    if (freq_[id] > 0) {
      push(id);
    } else if (!s.pending) {
      s.pending = true;
      pending_.push_back(id);
    }
  }
  const std::uint64_t pos = std::uint64_t{left} << 32 | right;
  if (s.positions.empty() || s.positions.back() < pos) {
    s.positions.push_back(pos);
  } else if (const auto it = std::lower_bound(s.positions.begin(), s.positions.end(), pos);
             *it != pos) {
    s.positions.insert(it, pos);  // never expected; kept for std::set's semantics
  } else {
    return;
  }
  if (!s.is_self_pair()) {
    live_[id] += static_cast<std::uint64_t>(counts_[unit_[left]]);
    ++s.live_positions;
  }
}

// ResetFreq: the pair at [left, right] is to be recounted, unless it is best.
void BpeTrainer::reset_freq(std::uint32_t left, std::uint32_t right, std::uint32_t best) {
  if (left == kNone || right == kNone) return;
  const std::size_t made = symbols_.size();
  const std::uint32_t id = pair_symbol(at_[left], at_[right]);
  if (id == kNone || id == best) return;
  Symbol& s = symbols_[id];
  if (symbols_.size() != made) {
    s.ghost = true;
  } else if (!s.ghost && !s.is_self_pair()) {  // this position is about to die
    live_[id] -= static_cast<std::uint64_t>(counts_[unit_[left]]);
    --s.live_positions;
    if (s.positions.size() > 2 * std::size_t{s.live_positions} + 16) keep_live_positions(s);
  }
  freq_[id] = 0;
  if (s.active && !s.pending) s.pending = true, pending_.push_back(id);
}

// ComputeFreq: counts the valid, non-overlapping positions, erasing the others.
void BpeTrainer::compute_freq(std::uint32_t id) {
  if (freq_[id] > 0) return;
  if (!self_[id]) {  // compact arrays only: the refresh calls this for every pair
    freq_[id] = live_[id];
    return;
  }
  Symbol& s = symbols_[id];
  std::uint64_t freq = 0;
  std::uint32_t previous_right = kNone;
  std::size_t kept = 0;
  for (const std::uint64_t pos : s.positions) {
    const auto left = static_cast<std::uint32_t>(pos >> 32);
    const auto right = static_cast<std::uint32_t>(pos);
    if (left == previous_right || at_[left] != s.left || at_[right] != s.right) {
      previous_right = kNone;
      continue;
    }
    freq += static_cast<std::uint64_t>(counts_[unit_[left]]);
    previous_right = right;
    s.positions[kept++] = pos;
  }
  s.positions.resize(kept);
  freq_[id] = freq;
}

// UpdateActiveSymbols: every pair recounted, the top 5% (at least 1,000) active,
// chosen as SentencePiece chooses them among equal counts.
void BpeTrainer::update_active() {
  for (const std::uint32_t id : pending_) symbols_[id].pending = false;
  pending_.clear();
  for (const std::uint32_t id : active_) symbols_[id].active = false;
  active_.clear();
  heap_.clear();
  // The walk in the cache's order is most of the time left: it touches only the
  // compact counts, and characters are told by their ids (made first).
  std::vector<std::pair<std::uint64_t, std::uint32_t>> pairs;
  pairs.reserve(cache_.size());
  for (const auto& [fp, id] : cache_) {
    if (id < first_pair_) continue;
    compute_freq(id);
    pairs.emplace_back(freq_[id], id);
  }
  const int wanted =
      std::max<int>(1000, static_cast<int>(static_cast<float>(cache_.size()) * 0.05f));
  const auto size =
      static_cast<std::ptrdiff_t>(std::min(static_cast<std::size_t>(wanted), pairs.size()));
  std::partial_sort(pairs.begin(), pairs.begin() + size, pairs.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::ptrdiff_t i = 0; i < size; ++i) {
    const std::uint32_t id = pairs[static_cast<std::size_t>(i)].second;
    symbols_[id].active = true;
    active_.push_back(id);
    heap_.push_back({freq_[id], symbols_[id].length, id});
  }
  std::make_heap(heap_.begin(), heap_.end(),
                 [this](const HeapEntry& a, const HeapEntry& b) { return before(a, b); });
}

// The scan of Train's main loop: the active pair with the highest count, then
// the fewest code points, then the smallest bytes; kNone if none is active.
std::uint32_t BpeTrainer::best_active() {
  for (const std::uint32_t id : pending_) {
    Symbol& s = symbols_[id];
    if (!s.pending) continue;
    s.pending = false;
    if (!s.cached || !s.active) continue;
    compute_freq(id);
    push(id);
  }
  pending_.clear();
  const auto less = [this](const HeapEntry& a, const HeapEntry& b) { return before(a, b); };
  while (!heap_.empty()) {
    const HeapEntry top = heap_.front();
    const Symbol& s = symbols_[top.id];
    if (s.cached && s.active && freq_[top.id] == top.freq) return top.id;
    std::pop_heap(heap_.begin(), heap_.end(), less);
    heap_.pop_back();
  }
  return kNone;
}

// Removed from symbols_cache_ and active_symbols_.
void BpeTrainer::uncache(std::uint32_t id) {
  Symbol& s = symbols_[id];
  s.cached = false;
  s.active = false;
  cache_.erase(s.fp);
}

// The merge pass of Train's main loop over best's positions.
void BpeTrainer::merge(std::uint32_t best) {
  // Moved out: symbols_ grows during the pass, and best gets no new positions.
  if (!symbols_[best].is_self_pair()) keep_live_positions(symbols_[best]);
  const std::vector<std::uint64_t> positions = std::move(symbols_[best].positions);
  for (const std::uint64_t pos : positions) {
    const auto left = static_cast<std::uint32_t>(pos >> 32);
    const auto right = static_cast<std::uint32_t>(pos);
    if (at_[left] == kNone) continue;  // merged away earlier in this pass ("AAA")
    if (at_[right] == kNone)
      throw Error("SentencePiece training: internal error: a BPE position lost its right symbol");
    const std::uint32_t next = next_[right];
    const std::uint32_t prev = prev_[left];
    reset_freq(prev, left, best);
    reset_freq(right, next, best);
    at_[left] = best;
    at_[right] = kNone;
    next_[left] = next;
    if (next != kNone) prev_[next] = left;
    add_pair(prev, left);
    add_pair(left, next);
  }
}

Pieces BpeTrainer::run(std::size_t target, const Note& note) {
  Pieces pieces;
  std::unordered_set<std::string> dup;
  while (pieces.size() < target) {
    if (pieces.size() % 100 == 0) update_active();
    const std::uint32_t best = best_active();
    if (best == kNone) {
      if (note) note("no valid pair left after " + std::to_string(pieces.size()) + " pieces");
      break;
    }
    if (!dup.insert(symbols_[best].text).second) {
      uncache(best);  // a piece already made along another path ("aa"+"a", "a"+"aa")
      continue;
    }
    pieces.emplace_back(symbols_[best].text, -static_cast<float>(pieces.size()));
    if (note && pieces.size() % 1000 == 0)
      note(std::to_string(pieces.size()) + " pieces, last " + symbols_[best].text + " (" +
           std::to_string(freq_[best]) + ")");
    merge(best);
    uncache(best);
  }
  return pieces;
}

}  // namespace

Pieces train_bpe(const TrainingText& text, const TrainerSpec& spec, std::size_t meta_count,
                 unsigned /*threads*/, const Note& note) {
  for (const auto& [c, n] : text.required_chars) {
    if (n > 0) continue;
    std::string piece;
    append_utf8(c, piece);
    // spm_train stops on CHECK_GT(freq, 0) in GetCharSymbol here.
    throw Error("SentencePiece training: the required character \"" + piece +
                "\" does not occur in the text; spm_train --model_type=bpe fails on it too");
  }
  const std::size_t reserved = meta_count + text.required_chars.size();
  const auto vocab = static_cast<std::size_t>(spec.vocab_size());
  BpeTrainer trainer(text, spec);
  Pieces pieces = trainer.run(vocab > reserved ? vocab - reserved : 0, note);
  for (const auto& [c, n] : text.required_chars) {
    std::string piece;
    append_utf8(c, piece);
    pieces.emplace_back(std::move(piece), -static_cast<float>(pieces.size()));
  }
  return pieces;
}

}  // namespace tokenlab::sentencepiece_detail::training
