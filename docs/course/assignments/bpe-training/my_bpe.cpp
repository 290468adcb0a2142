// File: my_bpe.cpp
// The bpe-training assignment's starting point (docs/course/assignments/bpe-training.md):
// a complete tokenlab plugin, "my_bpe", except for BPE training itself.
//
// Already written: the word table train() starts from (every word as its
// characters, with its count), the encoder that applies the merges in the order
// they were learned, and saving and loading the merges. Yours: the merge loop in
// train(), between the two "your part" lines. Build, then grade yourself:
//
//   cmake -S . -B build -DCMAKE_PREFIX_PATH=<tokenlab install prefix> && cmake --build build
//   tokenlab trace my_bpe --plugin-dir build --marker suffix --merges 8 --words 'low:5 lower:2'
//   tokenlab grade bpe-training build/my_bpe.so
#include <algorithm>
#include <functional>
#include <map>
#include <queue>
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

  // ---- your part: the merge loop ---------------------------------------------
  // Until the vocabulary holds options.vocab_size entries (or options.max_steps
  // merges were made, when it is not 0):
  //  1. count every adjacent pair of units in `words`, weighted by the word's count
  //     (pairs with the unknown token excluded);
  //  2. take the pair with the highest count; on a tie, the pair seen first when
  //     the words are read in order, left to right;
  //  3. stop if no pair is left, or its count is below options.min_frequency (0
  //     counts as 1), saying why in `stopped`;
  //  4. add the joined piece (vocabulary.add), record the pair in `merges`, and
  //     rewrite every occurrence of the pair in `words`, left to right;
  //  5. when observer != nullptr && observer->trace(), report the step:
  //     observer->on_step({"merge", merges.size(), {{"pair", "e + s"}, {"count", "9"}}}).
  // If the joined piece is in the vocabulary already, never merge that pair again.
  std::vector<Pair> merges;
  std::string stopped;  // why training stopped before vocab_size, for the user
  // TODO
  // ---- end of your part ---------------------------------------------------------

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
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const auto push = [&](std::size_t at) {
    if (at == npos || symbols[at].next == npos) return;
    const Pair pair{symbols[at].id, symbols[symbols[at].next].id};
    const auto it = ranks_.find(pair);
    if (it != ranks_.end()) heap.emplace(it->second.rank, at, pair.first, pair.second);
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
