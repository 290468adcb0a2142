// SentencePiece's unigram model (unigram_model.cc): the best segmentation and
// the n best.
#include <algorithm>
#include <cfloat>
#include <cstring>
#include <queue>
#include <type_traits>
#include <utility>

#include "sentencepiece/internal.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::sentencepiece_detail {
namespace {

// ---- n-best: the lattice and the A* search of unigram_model.cc --------------------

// Lattice::Node (sentencepiece's unigram_model.h): a piece over bytes
// [begin, begin + length), its score, and backtrace, the best score of a path
// from BOS up to and including it.
struct LatticeNode {
  std::uint32_t begin;
  std::uint32_t length;  // bytes
  TokenId id;
  float score;
  float backtrace = 0.0f;
};

// Lattice (unigram_model.cc): every node, and the nodes that begin and end at
// each byte position, as indices into nodes. Node 0 is BOS, eos the last node.
struct Lattice {
  std::vector<LatticeNode> nodes;
  std::vector<std::vector<std::uint32_t>> begins;
  std::vector<std::vector<std::uint32_t>> ends;
  std::uint32_t eos = 0;

  [[nodiscard]] std::size_t bytes() const { return begins.size() - 1; }
  // Lattice::Insert: the node goes into both begin_nodes and end_nodes.
  void insert(std::size_t begin, std::size_t length, TokenId id, float score) {
    ends[begin + length].push_back(static_cast<std::uint32_t>(nodes.size()));
    begins[begin].push_back(static_cast<std::uint32_t>(nodes.size()));
    nodes.push_back(
        {static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(length), id, score});
  }
};

// BOS and EOS carry no piece.
constexpr TokenId kBoundary = PretrainedModel::kNoToken;

// Lattice::SetSentence: the lattice of a text of size bytes with only BOS, which
// ends at 0 and begins nowhere; the pieces are inserted next, and EOS last.
Lattice lattice_with_bos(std::size_t size) {
  Lattice lattice;
  lattice.begins.resize(size + 1);
  lattice.ends.resize(size + 1);
  lattice.insert(0, 0, kBoundary, 0.0f);
  lattice.begins[0].clear();
  return lattice;
}

// Lattice::SetSentence's EOS: it begins at the end of the text and ends nowhere.
void add_eos(Lattice& lattice, std::size_t size) {
  lattice.eos = static_cast<std::uint32_t>(lattice.nodes.size());
  lattice.nodes.push_back({static_cast<std::uint32_t>(size), 0, kBoundary, 0.0f});
  lattice.begins[size].push_back(lattice.eos);
}

// Lattice::Viterbi's forward pass (unigram_model.cc): each node's best score
// from BOS, its own included, in float as there. It is the exact heuristic h(x)
// of the A* search below.
void fill_backtrace_scores(Lattice& lattice) {
  auto& nodes = lattice.nodes;
  for (std::size_t pos = 0; pos < lattice.begins.size(); ++pos) {
    for (const std::uint32_t r : lattice.begins[pos]) {
      bool found = false;
      float best = 0.0f;
      for (const std::uint32_t l : lattice.ends[pos]) {
        const float score = nodes[l].backtrace + nodes[r].score;
        if (!found || score > best) {
          best = score;
          found = true;
        }
      }
      nodes[r].backtrace = best;
    }
  }
}

// Lattice::NBest's Hypothesis: a partial path from EOS back to node; gx is the
// score of its nodes, fx = gx + h(node) its priority.
struct Hypothesis {
  std::uint32_t node;
  std::int32_t next;  // index into the hypotheses, -1 at EOS
  float fx;
  float gx;
};

// Lattice::NBest's HypothesisComparator: the agenda is a std::priority_queue
// on fx, as there, so that paths of equal score come out in its order.
struct ByFx {
  const std::vector<Hypothesis>* hypotheses;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    return (*hypotheses)[a].fx < (*hypotheses)[b].fx;
  }
};
using Agenda = std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, ByFx>;

constexpr std::size_t kMaxAgendaSize = 100000;
constexpr std::size_t kMinAgendaSize = 1000;

// Lattice::NBest, on reaching BOS: the path's pieces, BOS and EOS left out, and
// its score fx.
PretrainedModel::Segmentation whole_path(const SpmVocabulary& vocabulary,
                                         std::string_view normalized, const Lattice& lattice,
                                         const std::vector<Hypothesis>& hypotheses,
                                         const Hypothesis& bos) {
  thread_local std::vector<Segment> segments;
  segments.clear();
  for (std::int32_t h = bos.next; hypotheses[static_cast<std::size_t>(h)].next != -1;
       h = hypotheses[static_cast<std::size_t>(h)].next) {
    const LatticeNode& n = lattice.nodes[hypotheses[static_cast<std::size_t>(h)].node];
    segments.push_back({n.begin, n.length, n.id});
  }
  PretrainedModel::Segmentation result;
  result.score = bos.fx;
  append_ids(vocabulary, normalized, segments, result.ids);
  return result;
}

// Lattice::NBest's "expands new node ending at node->pos": one hypothesis for
// each node that ends where hypothesis top's node begins.
void expand(const Lattice& lattice, std::uint32_t top, std::size_t k,
            std::vector<Hypothesis>& hypotheses, Agenda& agenda) {
  const Hypothesis here = hypotheses[top];
  for (const std::uint32_t l : lattice.ends[lattice.nodes[here.node].begin]) {
    // SentencePiece's pool grows without bound (the agenda is pruned, the
    // hypotheses are not): 'the' x 1000 at k = 100,000 took 5 GB.
    if (hypotheses.size() >= kMaxNBestHypotheses)
      throw Error("n-best: the " + std::to_string(k) + " best segmentations of a piece of " +
                  std::to_string(lattice.bytes()) + " bytes need more than " +
                  std::to_string(kMaxNBestHypotheses) +
                  " search states; ask for fewer, or for a shorter text");
    const LatticeNode& node = lattice.nodes[l];
    hypotheses.push_back(
        {l, static_cast<std::int32_t>(top), node.backtrace + here.gx, node.score + here.gx});
    agenda.push(static_cast<std::uint32_t>(hypotheses.size() - 1));
  }
}

// As SentencePiece's Lattice::NBest: a huge agenda keeps only its best entries.
void shrink_agenda(Agenda& agenda, std::size_t k) {
  if (agenda.size() < kMaxAgendaSize) return;
  const std::size_t keep = std::min(kMinAgendaSize, k * 10);
  std::vector<std::uint32_t> kept;
  for (std::size_t i = 0; i < keep && !agenda.empty(); ++i) {
    kept.push_back(agenda.top());
    agenda.pop();
  }
  while (!agenda.empty()) agenda.pop();
  for (const std::uint32_t h : kept) agenda.push(h);
}

// unigram::Model::EncodeOptimized: Viterbi over byte positions, the best path
// ending at each one kept. Scores are floats, user-defined pieces score
// length * max_score - 0.1 (a double), and the comparisons mix the two exactly
// as SentencePiece's do.
class SpmUnigramModel final : public SpmModel {
 public:
  explicit SpmUnigramModel(std::shared_ptr<const SpmVocabulary> vocabulary)
      : SpmModel(std::move(vocabulary)) {
    const SpmVocabulary& v = *vocabulary_;
    min_score_ = FLT_MAX;
    max_score_ = FLT_MIN;  // sic: the smallest positive float, not -FLT_MAX
    entries_.resize(v.pieces.size());
    for (std::size_t id = 0; id < v.pieces.size(); ++id) {
      entries_[id] = {v.scores[id], v.types[id]};
      if (v.types[id] != PieceType::normal) continue;
      min_score_ = std::min(min_score_, v.scores[id]);
      max_score_ = std::max(max_score_, v.scores[id]);
    }
    unknown_score_ = min_score_ - 10.0f;  // kUnkPenalty
    index_scored_trie();
    index_three_byte_nodes();
  }

  [[nodiscard]] Rules rules() const override {
    Rules r{.kind = Rules::Kind::likelihood};
    for (const Entry& e : entries_) r.scores.push_back(e.score);
    return r;
  }

  // EncodeOptimized over the scored trie: the plain algorithm's steps, each
  // piece's id and score read with the trie node that ends it.
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (!small_steps_.empty())
      encode_over(small_steps_.data(), normalized, out);
    else
      encode_over(steps_.data(), normalized, out);
  }

  // encode() over the links in Unit (StepUnit, or SmallStepUnit for a trie of
  // fewer than 2^15 nodes).
  template <class Unit>
  void encode_over(const Unit* const steps, std::string_view normalized,
                   std::vector<TokenId>& out) const {
    constexpr auto kEnds = Unit::kEndsPiece;
    const PieceUnit* const pieces = pieces_.data();
    const std::uint32_t* const three_byte_nodes = three_byte_nodes_.data();
    const auto* const text = reinterpret_cast<const unsigned char*>(normalized.data());
    const std::size_t size = normalized.size();
    viterbi(normalized, out, [&](Start& start) {
      // In locals: through the reference, the compiler reloaded them each step.
      const std::size_t starts_at = start.at;
      const double here = start.here;
      Best* const best = start.best;
      bool single_character = false;
      // A piece ends at node, which the walk reached at end.
      const auto take_piece = [&](std::uint32_t node, std::size_t end) {
        const PieceUnit unit = pieces[node];
        const std::size_t length = end - starts_at;
        const double score = (unit.piece & kUserDefinedBit) != 0 ? user_defined_score(length)
                                                                 : static_cast<double>(unit.score);
        const double candidate = score + here;
        Best& target = best[end];
        if (target.starts_at == -1 || candidate > static_cast<double>(target.score))
          target = {static_cast<TokenId>(unit.piece & ~kUserDefinedBit),
                    static_cast<float>(candidate), static_cast<std::int32_t>(starts_at)};
        if (length == start.char_length) single_character = true;
      };
      std::uint32_t node = 0;
      std::size_t key_pos = starts_at;
      // A three-byte character's three steps in one load (see
      // index_three_byte_nodes); the walk goes on from there.
      if (const unsigned char lead = text[starts_at];
          (lead & 0xF0) == 0xE0 && size - starts_at >= 3 &&
          ((text[starts_at + 1] & text[starts_at + 2]) & 0xC0) == 0x80 &&
          ((text[starts_at + 1] | text[starts_at + 2]) & 0x40) == 0) {
        const std::uint32_t skip =
            three_byte_nodes[((lead & 0x0Fu) << 12) | ((text[starts_at + 1] & 0x3Fu) << 6) |
                             (text[starts_at + 2] & 0x3Fu)];
        if (skip != 0) {
          node = skip;
          key_pos += 3;
          if ((steps[node].check & kEnds) != 0) take_piece(node, key_pos);
        }
      }
      for (; key_pos < size;) {
        const std::uint32_t to = std::uint32_t{steps[node].base} + text[key_pos];
        const std::uint32_t check = steps[to].check;
        if ((check & ~std::uint32_t{kEnds}) != node) break;
        node = to;
        ++key_pos;
        if ((check & kEnds) != 0) take_piece(to, key_pos);
      }
      start.single_character = single_character;
    });
  }

  // The same Viterbi over the vocabulary's own trie and entries.
  void encode_plain(std::string_view normalized, std::vector<TokenId>& out) const override {
    const SpmVocabulary& v = *vocabulary_;
    viterbi(normalized, out, [&](Start& start) {
      std::uint32_t node = 0;
      for (std::size_t end = start.at + 1; end <= normalized.size(); ++end) {
        node = v.trie.next(node, static_cast<unsigned char>(normalized[end - 1]));
        if (node == DoubleArray::kFail) break;
        const std::int32_t found = v.trie.value(node);
        if (found < 0 || entries_[static_cast<std::size_t>(found)].type == PieceType::unused)
          continue;
        const Entry entry = entries_[static_cast<std::size_t>(found)];
        const double score = entry.type == PieceType::user_defined
                                 ? user_defined_score(end - start.at)
                                 : static_cast<double>(entry.score);
        const double candidate = score + static_cast<double>(start.here);
        Best& target = start.best[end];
        if (target.starts_at == -1 || candidate > static_cast<double>(target.score)) {
          target.score = static_cast<float>(candidate);
          target.starts_at = static_cast<std::int32_t>(start.at);
          target.id = static_cast<TokenId>(found);
        }
        start.single_character |= end - start.at == start.char_length;
      }
    });
  }

  [[nodiscard]] std::string type() const override { return "SentencePiece unigram"; }
  [[nodiscard]] bool has_nbest() const override { return true; }

  // unigram::Model::NBestEncode: the lattice of ModelBase::PopulateNodes, Viterbi
  // for each node's best score from the start, then Lattice::NBest's A* search
  // from the end (sentencepiece's unigram_model.cc), with SentencePiece's float
  // arithmetic and its agenda.
  [[nodiscard]] std::vector<Segmentation> nbest(std::string_view normalized,
                                                std::size_t k) const override {
    std::vector<Segmentation> results;
    k = std::min(k, kMaxNBest);  // SentencePiece clamps nbest_size to 1024 too
    if (normalized.empty() || k == 0) return results;
    Lattice lattice = populated_lattice(normalized);
    fill_backtrace_scores(lattice);
    // Lattice::NBest: A* from EOS towards BOS; each hypothesis popped at BOS is
    // the next best whole path.
    std::vector<Hypothesis> hypotheses;
    Agenda agenda(ByFx{&hypotheses});
    const LatticeNode& eos = lattice.nodes[lattice.eos];
    hypotheses.push_back({lattice.eos, -1, eos.score, eos.score});
    agenda.push(0);
    while (!agenda.empty()) {
      const std::uint32_t top = agenda.top();
      agenda.pop();
      if (hypotheses[top].node == 0) {  // BOS: a whole path
        results.push_back(
            whole_path(*vocabulary_, normalized, lattice, hypotheses, hypotheses[top]));
        if (results.size() == k) break;
        continue;
      }
      expand(lattice, top, k, hypotheses, agenda);
      shrink_agenda(agenda, k);
    }
    return results;
  }

 private:
  struct Entry {
    float score;
    PieceType type;
  };

  // ModelBase::PopulateNodes (unigram_model.cc): BOS, a node for every piece
  // that starts at each character, an unknown node where no piece is one
  // character long, and EOS.
  [[nodiscard]] Lattice populated_lattice(std::string_view normalized) const {
    const SpmVocabulary& v = *vocabulary_;
    const std::size_t size = normalized.size();
    Lattice lattice = lattice_with_bos(size);
    for (std::size_t begin = 0; begin < size;) {
      const std::size_t char_length = char_length_at(normalized, begin);
      bool single_character = false;
      std::uint32_t node = 0;
      std::size_t characters = 0;
      for (std::size_t key_pos = begin; key_pos < size;) {
        node = v.trie.next(node, static_cast<unsigned char>(normalized[key_pos]));
        if (node == DoubleArray::kFail) break;
        ++key_pos;
        // PopulateNodes counts a piece's length in characters.
        if (key_pos == size || (static_cast<unsigned char>(normalized[key_pos]) & 0xC0) != 0x80)
          ++characters;
        const std::int32_t found = v.trie.value(node);
        if (found < 0) continue;
        const auto id = static_cast<TokenId>(found);
        if (entries_[id].type == PieceType::unused) continue;
        const float score =
            entries_[id].type == PieceType::user_defined
                ? static_cast<float>(static_cast<float>(characters) * max_score_ - 0.1)
                : entries_[id].score;
        lattice.insert(begin, key_pos - begin, id, score);
        if (key_pos - begin == char_length) single_character = true;
      }
      if (!single_character) lattice.insert(begin, char_length, v.unknown, unknown_score_);
      begin += char_length;
    }
    add_eos(lattice, size);
    return lattice;
  }

  // The best path ending at each byte: its last piece, its score, and where
  // that piece starts (-1: no path yet).
  struct Best {
    TokenId id;
    float score;
    std::int32_t starts_at;
  };
  // The scored trie: the piece trie's links, and beside them the piece that
  // ends at each node with its score, in two arrays indexed by node. The walk
  // is a chain of dependent loads of links; a piece is read only where a link
  // says one ends, and its load does not hold up the next step. (One 16-byte
  // unit a node, links and piece together, made Hindi's 27,623 nodes 442 KB,
  // in L2, and a quarter of the walk's samples waited on a step's load; 8
  // bytes a node for the links was 7% less time encoding 11 MB of Hindi.
  // Before that, the plain walk read the piece's entry by its id, a second
  // load that waited on the first.)
  struct StepUnit {
    static constexpr std::uint32_t kEndsPiece = 0x80000000u;
    std::uint32_t base;
    std::uint32_t check;  // the parent, and kEndsPiece when a piece ends here
  };
  // The same links in 4 bytes, for a trie of fewer than kSmallTrie units (an
  // 8,000-piece model has about 28,000): the walk's links in half the cache,
  // so that more of a script's nodes stay in L1.
  struct SmallStepUnit {
    static constexpr std::uint16_t kEndsPiece = 0x8000u;
    std::uint16_t base;
    std::uint16_t check;
  };
  // Node numbers below it and a free slot's or the root's check, masked
  // (0x7FFF, 0x7FFE), match no node.
  static constexpr std::size_t kSmallTrie = 0x7FFE;
  // Checks and node numbers are below 2^31; a free slot's or the root's
  // check (negative), masked, matches no node.
  static constexpr std::uint32_t kEndsPiece = 0x80000000u;
  struct PieceUnit {
    std::int32_t piece;  // the id, kUserDefinedBit set for a user-defined symbol
    float score;
  };
  static constexpr std::int32_t kUserDefinedBit = 1 << 30;  // ids are below 2^24

  // The pieces that end at a node, but for UNUSED ones, which encoding never takes.
  void index_scored_trie() {
    const SpmVocabulary& v = *vocabulary_;
    steps_.resize(v.trie.size());
    pieces_.assign(v.trie.size(), PieceUnit{-1, 0.0f});
    for (std::uint32_t node = 0; node < steps_.size(); ++node) {
      StepUnit& step = steps_[node];
      step = {static_cast<std::uint32_t>(v.trie.base(node)),
              static_cast<std::uint32_t>(v.trie.check(node)) & ~kEndsPiece};
      const std::int32_t id = v.trie.value(node);
      if (id < 0 || v.trie.check(node) < 0) continue;
      const Entry entry = entries_[static_cast<std::size_t>(id)];
      if (entry.type == PieceType::unused) continue;
      pieces_[node] = {entry.type == PieceType::user_defined ? id | kUserDefinedBit : id,
                       entry.score};
      step.check |= kEndsPiece;
    }
    small_steps_.clear();
    if (steps_.size() < kSmallTrie) {
      small_steps_.resize(steps_.size());
      for (std::size_t node = 0; node < steps_.size(); ++node) {
        const StepUnit step = steps_[node];
        const bool ends = (step.check & kEndsPiece) != 0;
        small_steps_[node] = {static_cast<std::uint16_t>(step.base),
                              static_cast<std::uint16_t>((step.check & 0x7FFFu) |
                                                         (ends ? SmallStepUnit::kEndsPiece : 0u))};
      }
    }
  }

  // For each three-byte sequence (lead E0-EF, two continuation bytes), the
  // scored trie's node after its three steps from the root, when all three
  // exist and no piece ends after the first or the second; else 0 (the root,
  // which three steps never reach), and the walk takes the steps itself. A
  // walk from a Hindi, Chinese or Japanese character (and from every "▁")
  // begins with these three dependent steps, and each walk begins after the
  // mispredicted branch that ended the last, so they were on the critical path
  // once a character. 64 Ki entries (256 KB), of which a script's block is a
  // few cache lines.
  void index_three_byte_nodes() {
    const DoubleArray& trie = vocabulary_->trie;  // steps_ holds its links
    const auto ends_piece = [&](std::uint32_t node) {
      return (steps_[node].check & kEndsPiece) != 0;
    };
    three_byte_nodes_.assign(std::size_t{1} << 16, 0);
    for (unsigned lead = 0; lead < 16; ++lead) {
      const std::uint32_t first = trie.next(0, static_cast<unsigned char>(0xE0 + lead));
      if (first == DoubleArray::kFail || ends_piece(first)) continue;
      for (unsigned middle = 0; middle < 64; ++middle) {
        const std::uint32_t second = trie.next(first, static_cast<unsigned char>(0x80 + middle));
        if (second == DoubleArray::kFail || ends_piece(second)) continue;
        for (unsigned last = 0; last < 64; ++last) {
          const std::uint32_t third = trie.next(second, static_cast<unsigned char>(0x80 + last));
          if (third != DoubleArray::kFail)
            three_byte_nodes_[(lead << 12) | (middle << 6) | last] = third;
        }
      }
    }
  }

  // User-defined symbols get a bonus "to always be selected": length in bytes
  // times the largest NORMAL score, minus 0.1, in double as SentencePiece has it.
  [[nodiscard]] double user_defined_score(std::size_t length) const noexcept {
    return static_cast<double>(static_cast<float>(length) * max_score_) - 0.1;
  }

  // One character's step of the Viterbi: the paths so far, where the
  // character starts, the best score up to it, its length; the walk sets
  // single_character when a piece is the character alone.
  struct Start {
    Best* best;
    std::size_t at;
    float here;
    std::size_t char_length;
    bool single_character = false;
  };

  // The Viterbi over byte positions, shared by both encoders: at each
  // character, walk(start) makes the path updates of the pieces that start
  // there; if none of them is the character alone, the unknown piece covers
  // it. Then the best path to the end, as ids.
  template <class Walk>
  void viterbi(std::string_view normalized, std::vector<TokenId>& out, Walk&& walk) const {
    if (normalized.empty()) return;
    const std::size_t size = normalized.size();
    thread_local std::vector<Best> best_storage;
    std::vector<Best>& best = best_storage;  // one TLS lookup
    // Every byte 0xFF: starts_at -1 (no path yet) and an id and score never
    // read before a path sets them; one memset, where assign's loop of 12-byte
    // stores was 2% of encoding Hindi. Only the start's score is read unset.
    static_assert(std::is_trivially_copyable_v<Best>);
    if (best.size() < size + 1) best.resize(size + 1);
    std::memset(static_cast<void*>(best.data()), 0xFF, (size + 1) * sizeof(Best));
    best[0].score = 0.0f;
    for (std::size_t at = 0; at < size;) {
      Start start{best.data(), at, best[at].score, char_length_at(normalized, at)};
      walk(start);
      if (!start.single_character) unknown_step(best.data(), at, start.char_length, start.here);
      at += start.char_length;
    }
    append_best_path(normalized, best, out);
  }

  // No piece is the character at starts_at: the unknown piece covers it.
  void unknown_step(Best* best, std::size_t starts_at, std::size_t char_length,
                    float here) const noexcept {
    Best& target = best[starts_at + char_length];
    const float candidate = unknown_score_ + here;
    if (target.starts_at == -1 || candidate > target.score)
      target = {vocabulary_->unknown, candidate, static_cast<std::int32_t>(starts_at)};
  }

  // The best path to the end, back to the start, as ids.
  void append_best_path(std::string_view normalized, const std::vector<Best>& best,
                        std::vector<TokenId>& out) const {
    const std::size_t size = normalized.size();
    thread_local std::vector<Segment> segment_storage;
    std::vector<Segment>& segments = segment_storage;
    segments.clear();
    for (std::size_t ends_at = size; ends_at > 0;) {
      const Best& node = best[ends_at];
      const auto start = static_cast<std::size_t>(node.starts_at);
      segments.push_back({static_cast<std::uint32_t>(start),
                          static_cast<std::uint32_t>(ends_at - start), node.id});
      ends_at = start;
    }
    std::reverse(segments.begin(), segments.end());
    append_ids(*vocabulary_, normalized, segments, out);
  }

  std::vector<StepUnit> steps_;                  // index_scored_trie
  std::vector<SmallStepUnit> small_steps_;       // the same, when the trie is small
  std::vector<PieceUnit> pieces_;                // by node, beside steps_
  std::vector<std::uint32_t> three_byte_nodes_;  // index_three_byte_nodes
  std::vector<Entry> entries_;
  float min_score_ = 0.0f;
  float max_score_ = 0.0f;
  float unknown_score_ = 0.0f;
};

}  // namespace

std::unique_ptr<PretrainedModel> make_unigram_model(
    std::shared_ptr<const SpmVocabulary> vocabulary) {
  return std::make_unique<SpmUnigramModel>(std::move(vocabulary));
}

}  // namespace tokenlab::sentencepiece_detail
