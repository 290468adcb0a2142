// File: bpe_solution.cpp
// The reference solution of the bpe-training assignment
// (docs/course/assignments/bpe-training.md): the student template
// (docs/course/assignments/bpe-training/my_bpe.cpp) with learn_merges() written.
// Kept out of the template and out of docs/, so a class cannot copy it.
//
// tests/grade/CMakeLists.txt builds it once as it should be (the full-marks
// submission) and once per mistake below (GRADE_FAULT_<name>), each as my_bpe.so
// in a directory of its own, as submissions arrive; grade_test.cpp asserts the
// score and the reasons tokenlab grade gives each.
#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

#include "tokenlab/vocabulary_segmenter.hpp"

namespace my_bpe {

using namespace tokenlab;

using Pair = std::pair<TokenId, TokenId>;

class MyBpeSegmenter final : public VocabularySegmenter<MyBpeSegmenter> {
 public:
  static constexpr const char* kName = "my_bpe";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "Byte-pair encoding: merge the most frequent adjacent pair, ties to the first seen";
  static constexpr Capabilities kCapabilities = kCapabilityTrace;
  static constexpr std::uint32_t kFormatVersion = 1;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;

 protected:
  void save_fields(PayloadOArchive& ar) const override {
    std::vector<TokenId> left;
    std::vector<TokenId> right;
    for (const Pair& m : merges_) {
      left.push_back(m.first);
      right.push_back(m.second);
    }
    ar << boost::serialization::make_nvp("left", left)
       << boost::serialization::make_nvp("right", right);
  }
  std::function<void()> load_fields(PayloadIArchive& ar, const Vocabulary& vocabulary) override {
    std::vector<TokenId> left;
    std::vector<TokenId> right;
    ar >> BOOST_SERIALIZATION_NVP(left) >> BOOST_SERIALIZATION_NVP(right);
    if (left.size() != right.size()) ar.fail("left and right differ in length");
    std::vector<Pair> merges;
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (left[i] >= vocabulary.size() || right[i] >= vocabulary.size())
        ar.fail("merge id out of range");
      if (!vocabulary.contains(vocabulary.piece(left[i]) + vocabulary.piece(right[i])))
        ar.fail("merge result not in the vocabulary");
      merges.emplace_back(left[i], right[i]);
    }
    std::map<Pair, Rule> ranks = rank_merges(merges, vocabulary);
    return [this, merges = std::move(merges), ranks = std::move(ranks)]() mutable {
      merges_ = std::move(merges);
      ranks_ = std::move(ranks);
    };
  }

 private:
  struct Rule {
    std::size_t rank = 0;
    TokenId result = 0;
  };
  // Each merge's rank (the order it was learned in) and the piece it makes.
  static std::map<Pair, Rule> rank_merges(const std::vector<Pair>& merges,
                                          const Vocabulary& vocabulary);

  std::vector<Pair> merges_;
  std::map<Pair, Rule> ranks_;  // pair -> its rank and the piece it makes
};

namespace {

// A training word: its units (ids), and how often it occurs.
struct Word {
  std::vector<TokenId> units;
  std::uint64_t count = 0;
};

// The pair counts of the words, kept up to date merge after merge: only the words
// that hold the merged pair are recounted.
class PairCounts {
 public:
  PairCounts(std::vector<Word>& words, TokenId unknown) : words_(words), unknown_(unknown) {
    for (std::size_t w = 0; w < words_.size(); ++w) add(w, +1);
  }

  // The pair to merge next: the highest count, ties to the pair seen first when the
  // words are read in corpus order, left to right. Pairs in `banned` make a piece
  // the vocabulary already holds and are never merged.
  [[nodiscard]] std::optional<std::pair<Pair, std::uint64_t>> best(
      const std::map<Pair, bool>& banned) const {
    std::optional<std::pair<Pair, std::uint64_t>> best;
    std::optional<std::pair<std::size_t, std::size_t>> best_seen;  // worked out on a tie
    for (const auto& [pair, count] : counts_) {
      if (count == 0 || banned.count(pair) != 0 || (best && count < best->second)) continue;
      if (best && count == best->second) {
        if (!best_seen) best_seen = first_seen(best->first);
        const auto seen = first_seen(pair);
#if defined(GRADE_FAULT_tie_last)
        if (seen < *best_seen) continue;  // a mistake: ties go to the pair seen last
#else
        if (seen > *best_seen) continue;
#endif
        best = {pair, count};
        best_seen = seen;
        continue;
      }
      best = {pair, count};
      best_seen.reset();
    }
    return best;
  }

  // Rewrites every occurrence of pair, left to right, as result.
  void merge(const Pair& pair, TokenId result) {
    const std::set<std::size_t> holders = where_[pair];
    for (const std::size_t w : holders) {
      add(w, -1);
      std::vector<TokenId>& units = words_[w].units;
      std::vector<TokenId> out;
      out.reserve(units.size());
      for (std::size_t i = 0; i < units.size(); ++i) {
        if (i + 1 < units.size() && units[i] == pair.first && units[i + 1] == pair.second) {
          out.push_back(result);
          ++i;
        } else {
          out.push_back(units[i]);
        }
      }
      units = std::move(out);
      add(w, +1);
    }
  }

 private:
  // Adds (sign +1) or removes (-1) the pairs of word w.
  void add(std::size_t w, int sign) {
    const Word& word = words_[w];
    for (std::size_t i = 0; i + 1 < word.units.size(); ++i) {
      const Pair p{word.units[i], word.units[i + 1]};
      if (p.first == unknown_ || p.second == unknown_) continue;
#if defined(GRADE_FAULT_unweighted)
      const std::uint64_t count = 1;  // a mistake: every word once, whatever its count
#else
      const std::uint64_t count = word.count;
#endif
      if (sign > 0) {
        counts_[p] += count;
        where_[p].insert(w);
      } else {
        counts_[p] -= count;
      }
    }
  }

  // (word, position) of the pair's first occurrence.
  [[nodiscard]] std::pair<std::size_t, std::size_t> first_seen(const Pair& pair) const {
    for (const std::size_t w : where_.at(pair)) {
      const auto& units = words_[w].units;
      for (std::size_t i = 0; i + 1 < units.size(); ++i)
        if (units[i] == pair.first && units[i + 1] == pair.second) return {w, i};
    }
    return {words_.size(), 0};
  }

  std::vector<Word>& words_;
  TokenId unknown_;
  std::map<Pair, std::uint64_t> counts_;
  std::map<Pair, std::set<std::size_t>> where_;  // words that hold (or held) the pair
};

}  // namespace

void MyBpeSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                           TrainingObserver* observer) {
  const OptionReader reader(kName, options.extra, {});
  // Special tokens, then the base alphabet: every character is a piece.
  Vocabulary vocabulary = new_vocabulary(options, counts);
  const TokenId unknown = vocabulary.unknown_id().value_or(0);
  std::vector<Word> words;
  for (const auto& entry : counts.entries()) {
    Word w{{}, entry.count};
    for (const auto ch : utf8::split_code_points(entry.word))
      w.units.push_back(vocabulary.find(ch).value_or(unknown));
    words.push_back(std::move(w));
  }
#if defined(GRADE_FAULT_crashes)
  // A mistake that kills the process on a corpus of more than 100 words: the
  // grader must survive it and grade what still can be graded.
  if (counts.size() > 100) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
#endif

  // ---- the part the template leaves to the student ----------------------------
  std::vector<Pair> merges;
  std::map<Pair, bool> banned;
  const std::uint64_t min_count = std::max<std::uint64_t>(1, options.min_frequency);
  std::string stopped;
  PairCounts pairs(words, unknown);
  while (vocabulary.size() < options.vocab_size &&
         (options.max_steps == 0 || merges.size() < options.max_steps)) {
    const auto best = pairs.best(banned);
    if (!best) {
      stopped = "no pair of adjacent pieces is left: every word is one piece";
      break;
    }
#if defined(GRADE_FAULT_stops_early)
    if (best->second < 2) {  // a mistake: pairs seen once are never merged
      stopped = "no pair occurs twice";
      break;
    }
#endif
    if (best->second < min_count) {
      stopped = "the most frequent pair occurs " + std::to_string(best->second) +
                " times, fewer than min_frequency " + std::to_string(min_count);
      break;
    }
    const Pair pair = best->first;
    std::string piece = vocabulary.piece(pair.first) + vocabulary.piece(pair.second);
    if (vocabulary.contains(piece)) {
      banned.emplace(pair, true);  // the piece exists already: never this pair again
      continue;
    }
    const TokenId result = vocabulary.add(std::move(piece));
    pairs.merge(pair, result);
    merges.push_back(pair);
    if (observer != nullptr && observer->trace())
      observer->on_step(
          {"merge",
           merges.size(),
           {{"pair", vocabulary.piece(pair.first) + " + " + vocabulary.piece(pair.second)},
            {"count", std::to_string(best->second)},
            {"vocabulary", std::to_string(vocabulary.size())}}});
  }
  // ---- end of the student's part ------------------------------------------------

  if (observer != nullptr && !stopped.empty())
    observer->on_message("my_bpe: stopped at vocabulary size " + std::to_string(vocabulary.size()) +
                         " of " + std::to_string(options.vocab_size) + ": " + stopped);
  std::map<Pair, Rule> ranks = rank_merges(merges, vocabulary);
  set_vocabulary(std::move(vocabulary));
  merges_ = std::move(merges);
  ranks_ = std::move(ranks);
}

std::map<Pair, MyBpeSegmenter::Rule> MyBpeSegmenter::rank_merges(const std::vector<Pair>& merges,
                                                                 const Vocabulary& vocabulary) {
  std::map<Pair, Rule> ranks;
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const Pair& m = merges[r];
    const auto result = vocabulary.find(vocabulary.piece(m.first) + vocabulary.piece(m.second));
    ranks.try_emplace(m, Rule{r, result.value_or(0)});
  }
  return ranks;
}

void MyBpeSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  // The word's characters, then the merges applied in the order they were learned:
  // at each step the pair of lowest rank, the leftmost of equal ranks. The symbols
  // are a linked list and the candidate pairs a min-heap of (rank, position), so a
  // long word costs n log n, not n^2.
  struct Symbol {
    TokenId id;
    std::size_t prev;  // npos at the start
    std::size_t next;  // npos at the end
  };
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  constexpr TokenId kDead = static_cast<TokenId>(-1);
  std::vector<Symbol> symbols;
  for (const auto ch : utf8::split_code_points(word)) {
    const std::size_t i = symbols.size();
    symbols.push_back({find_piece(ch).value_or(unknown_id()), i == 0 ? npos : i - 1, npos});
    if (i > 0) symbols[i - 1].next = i;
  }
  using Candidate = std::tuple<std::size_t, std::size_t, TokenId, TokenId>;  // rank, at, ids
#if defined(GRADE_FAULT_encode_leftmost)
  // A mistake: the leftmost pair that has a merge first, whatever its rank.
#define rank_of(rule, at) (at)
#else
#define rank_of(rule, at) ((rule).rank)
#endif
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const auto push = [&](std::size_t at) {
    if (at == npos || symbols[at].next == npos) return;
    const Pair pair{symbols[at].id, symbols[symbols[at].next].id};
    const auto it = ranks_.find(pair);
    if (it != ranks_.end()) heap.emplace(rank_of(it->second, at), at, pair.first, pair.second);
  };
  for (std::size_t i = 0; i < symbols.size(); ++i) push(i);
  while (!heap.empty()) {
    const auto [rank, at, left, right] = heap.top();
    heap.pop();
    Symbol& s = symbols[at];
    // A stale candidate: one of its symbols was merged away or changed since.
    if (s.id != left || s.next == npos || symbols[s.next].id != right) continue;
    (void)rank;
    const std::size_t dead = s.next;
    const Symbol gone = symbols[dead];
    symbols[dead].id = kDead;  // its stale candidates never match again
    s.id = ranks_.at({left, right}).result;
    s.next = gone.next;
    if (gone.next != npos) symbols[gone.next].prev = at;
    push(s.prev);
    push(at);
  }
  for (std::size_t i = 0; i < symbols.size() && !symbols.empty();) {
    out.push_back(symbols[i].id);
    i = symbols[i].next;
    if (i == npos) break;
  }
}

}  // namespace my_bpe

TOKENLAB_DEFINE_PLUGIN(my_bpe::MyBpeSegmenter)
