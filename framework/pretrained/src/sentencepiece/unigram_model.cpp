// SentencePiece's unigram model (unigram_model.cc): the best segmentation and
// the n best.
#include <algorithm>
#include <cfloat>
#include <cstring>
#include <mutex>
#include <queue>
#include <type_traits>
#include <utility>

#include "sentencepiece/internal.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

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
    index_character_trie();
  }

  [[nodiscard]] Rules rules() const override {
    Rules r{.kind = Rules::Kind::likelihood};
    for (const Entry& e : entries_) r.scores.push_back(e.score);
    return r;
  }

  // EncodeOptimized: over the character trie when it can, else over the
  // scored trie, the plain algorithm's steps with each piece's id and score
  // read with the trie node that ends it.
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (!char_units_.empty() && encode_characters(normalized, out)) return;
    // The byte walk's tables, made the first time a text needs them: with the
    // character trie, only a text that is not well-formed does.
    std::call_once(byte_walk_made_, [this] {
      index_scored_trie();
      index_three_byte_nodes();
    });
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
        take(pieces[node], best, starts_at, end, here);
        if (end - starts_at == start.char_length) single_character = true;
      };
      std::uint32_t node = 0;
      std::size_t key_pos = starts_at;
      // A three-byte character's three steps in one load (see
      // index_three_byte_nodes); the walk goes on from there.
      if (const std::int32_t payload = three_byte_payload(text + starts_at, size - starts_at);
          payload >= 0) {
        const std::uint32_t skip = three_byte_nodes[payload];
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
    const DoubleArray& trie = vocabulary_->trie();
    viterbi(normalized, out, [&](Start& start) {
      std::uint32_t node = 0;
      for (std::size_t end = start.at + 1; end <= normalized.size(); ++end) {
        node = trie.next(node, static_cast<unsigned char>(normalized[end - 1]));
        if (node == DoubleArray::kFail) break;
        const std::int32_t found = trie.value(node);
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
    const DoubleArray& trie = v.trie();
    const std::size_t size = normalized.size();
    Lattice lattice = lattice_with_bos(size);
    for (std::size_t begin = 0; begin < size;) {
      const std::size_t char_length = char_length_at(normalized, begin);
      bool single_character = false;
      std::uint32_t node = 0;
      std::size_t characters = 0;
      for (std::size_t key_pos = begin; key_pos < size;) {
        node = trie.next(node, static_cast<unsigned char>(normalized[key_pos]));
        if (node == DoubleArray::kFail) break;
        ++key_pos;
        // PopulateNodes counts a piece's length in characters.
        if (key_pos == size || (static_cast<unsigned char>(normalized[key_pos]) & 0xC0) != 0x80)
          ++characters;
        const std::int32_t found = trie.value(node);
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
  static constexpr std::uint32_t kEndsPiece = StepUnit::kEndsPiece;
  struct PieceUnit {
    std::int32_t piece;  // the id, kUserDefinedBit set for a user-defined symbol
    float score;
  };
  static constexpr std::int32_t kUserDefinedBit = 1 << 30;  // ids are below 2^24

  // The pieces that end at a node, but for UNUSED ones, which encoding never takes.
  void index_scored_trie() const {
    const SpmVocabulary& v = *vocabulary_;
    const DoubleArray& trie = v.trie();
    steps_.resize(trie.size());
    pieces_.assign(trie.size(), PieceUnit{-1, 0.0f});
    for (std::uint32_t node = 0; node < steps_.size(); ++node) {
      StepUnit& step = steps_[node];
      step = {static_cast<std::uint32_t>(trie.base(node)),
              static_cast<std::uint32_t>(trie.check(node)) & ~kEndsPiece};
      const std::int32_t id = trie.value(node);
      if (id < 0 || trie.check(node) < 0) continue;
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
  void index_three_byte_nodes() const {
    const DoubleArray& trie = vocabulary_->trie();  // steps_ holds its links
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

  // ---- the character trie -----------------------------------------------------
  // The scored trie once more, over symbols instead of bytes: a three-byte
  // character that some piece holds (Devanagari, Tamil, Ethiopic, and the
  // "▁" of every vocabulary) is one symbol, so that a step of the walk is a
  // character where the byte trie takes three dependent steps; any other byte
  // is a symbol of its own. Built when every piece the walk may take is
  // well-formed UTF-8 (a piece that ends inside a character has no symbols),
  // and used for a text that is well-formed: then a piece's symbols and the
  // text's are the same wherever the piece's bytes stand at a character's
  // start, so the walk finds the byte trie's pieces, in the same order.
  struct CharUnit {
    std::uint32_t base;
    std::uint32_t check;  // the parent, and kEndsPiece when a piece ends here
  };
  static constexpr std::uint32_t kFreeCheck = 0x7FFFFFFFu;  // matches no node
  static constexpr std::uint32_t kRootCheck = 0x7FFFFFFEu;
  static constexpr std::uint32_t kFirstCharacterSymbol = 256;
  // Beyond this many symbols the trie is not built: a double array over
  // thousands of labels (Chinese and Japanese vocabularies hold 3,000 to
  // 5,000 characters) took 10 to 25 ms to lay out, first fit, for 8,000
  // pieces, where the byte trie, with its first three steps in one table,
  // encodes those scripts well. An alphabetic script has a few hundred.
  static constexpr std::uint32_t kMaxSymbols = 1024;

  // The character trie of the pieces the walk may take (not UNUSED ones), from
  // the byte trie's keys in their bytewise order: keys that share a symbol
  // prefix share that byte prefix, so they lie together there too.
  void index_character_trie() {
    const SpmVocabulary& v = *vocabulary_;
    // Worth it for a vocabulary of mostly three-byte characters (Hindi's):
    // where most symbols would be bytes (English's, with "▁" the one such
    // character), the walk takes as many steps as the byte trie's, over links
    // twice the size, and the text's symbols are a pass of their own (English
    // encoded 17% slower).
    std::size_t three_byte = 0;
    std::size_t other_bytes = 0;
    for (const DoubleArray::Key& key : v.trie_keys) {
      for (const char c : key.first) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte & 0xF0) == 0xE0) ++three_byte;
        if ((byte & 0xC0) != 0x80) ++other_bytes;  // a character's first byte
      }
    }
    if (2 * three_byte < other_bytes) return;  // fewer than half the characters
    std::vector<std::uint16_t> symbols(std::size_t{1} << 16, 0);
    std::uint32_t next_symbol = kFirstCharacterSymbol;
    std::vector<std::uint32_t> key_symbols;
    std::vector<std::uint32_t> key_begin;
    std::vector<std::int32_t> key_ids;
    for (const auto& [piece, id] : v.trie_keys) {
      const Entry entry = entries_[static_cast<std::size_t>(id)];
      if (entry.type == PieceType::unused) continue;
      key_begin.push_back(static_cast<std::uint32_t>(key_symbols.size()));
      key_ids.push_back(id);
      for (std::size_t pos = 0; pos < piece.size();) {
        const utf8::Sequence d = utf8::decode_sequence(piece, pos);
        if (d.length == 0) return;  // not well-formed: the byte trie alone
        if (d.length == 3) {
          std::uint16_t& symbol = symbols[d.code_point];
          if (symbol == 0) {
            if (next_symbol >= kMaxSymbols) return;
            symbol = static_cast<std::uint16_t>(next_symbol++);
          }
          key_symbols.push_back(symbol);
        } else {
          for (std::size_t b = 0; b < d.length; ++b)
            key_symbols.push_back(static_cast<unsigned char>(piece[pos + b]));
        }
        pos += d.length;
      }
    }
    if (key_ids.empty()) return;
    key_begin.push_back(static_cast<std::uint32_t>(key_symbols.size()));
    const auto length_of = [&](std::size_t k) { return key_begin[k + 1] - key_begin[k]; };
    const auto symbol_at = [&](std::size_t k, std::size_t depth) {
      return key_symbols[key_begin[k] + depth];
    };
    // Laid out as DoubleArray::build lays out the byte trie.
    FirstFitLayout layout(next_symbol);
    std::vector<CharUnit> units(layout.size(), CharUnit{0, kFreeCheck});
    units[0].check = kRootCheck;
    std::vector<PieceUnit> pieces(layout.size(), PieceUnit{-1, 0.0f});
    struct Task {
      std::uint32_t node;
      std::size_t lo;
      std::size_t hi;
      std::size_t depth;
    };
    std::vector<Task> tasks{{0, 0, key_ids.size(), 0}};
    std::vector<std::uint32_t> labels;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // each label's keys
    while (!tasks.empty()) {
      const Task task = tasks.back();
      tasks.pop_back();
      std::size_t lo = task.lo;
      if (lo < task.hi && length_of(lo) == task.depth) {  // the key that ends here is first
        const std::int32_t id = key_ids[lo++];
        const Entry entry = entries_[static_cast<std::size_t>(id)];
        pieces[task.node] = {entry.type == PieceType::user_defined ? id | kUserDefinedBit : id,
                             entry.score};
        units[task.node].check |= kEndsPiece;
      }
      if (lo == task.hi) continue;
      labels.clear();
      spans.clear();
      for (std::size_t i = lo; i < task.hi;) {
        const std::uint32_t label = symbol_at(i, task.depth);
        std::size_t j = i + 1;
        while (j < task.hi && symbol_at(j, task.depth) == label) ++j;
        labels.push_back(label);
        spans.emplace_back(i, j);
        i = j;
      }
      const std::size_t base = layout.place(labels);
      if (units.size() < layout.size()) {
        units.resize(layout.size(), CharUnit{0, kFreeCheck});
        pieces.resize(layout.size(), PieceUnit{-1, 0.0f});
      }
      units[task.node].base = static_cast<std::uint32_t>(base);
      for (std::size_t g = 0; g < labels.size(); ++g) {
        const auto child = static_cast<std::uint32_t>(base + labels[g]);
        units[child].check = task.node;
        tasks.push_back({child, spans[g].first, spans[g].second, task.depth + 1});
      }
    }
    // Every node's symbols step inside the array: base + symbol < size.
    std::size_t needed = next_symbol + 1;
    for (const CharUnit& u : units) needed = std::max<std::size_t>(needed, u.base + next_symbol);
    units.resize(needed, CharUnit{0, kFreeCheck});
    pieces.resize(needed, PieceUnit{-1, 0.0f});
    char_units_ = std::move(units);
    char_pieces_ = std::move(pieces);
    char_symbols_ = std::move(symbols);
  }

  // encode() over the character trie: false, and nothing done, when the text
  // is not well-formed UTF-8 (the byte walk takes it then).
  bool encode_characters(std::string_view normalized, std::vector<TokenId>& out) const {
    const auto* const text = reinterpret_cast<const unsigned char*>(normalized.data());
    const std::size_t size = normalized.size();
    // The text's symbols, and the byte each one ends at.
    Scratch& scratch = SpmUnigramModel::scratch();
    std::vector<std::uint32_t>& symbols = scratch.symbols;
    std::vector<std::uint32_t>& ends = scratch.ends;
    if (symbols.size() < size) {
      symbols.resize(size);
      ends.resize(size);
    }
    const std::uint16_t* const symbol_of = char_symbols_.data();
    std::size_t count = 0;
    for (std::size_t at = 0; at < size;) {
      const unsigned char lead = text[at];
      if (lead < 0x80) {
        symbols[count] = lead;
        ends[count++] = static_cast<std::uint32_t>(++at);
        continue;
      }
      if (const std::int32_t code_point = three_byte_payload(text + at, size - at);
          code_point >= 0) {
        // Pieces are well-formed, so an overlong form or a surrogate has no
        // symbol; but the text must be well-formed for the walk.
        if (code_point < 0x800 || (code_point >= 0xD800 && code_point <= 0xDFFF)) return false;
        if (const std::uint32_t symbol = symbol_of[code_point]; symbol != 0) {
          symbols[count] = symbol;
          at += 3;
          ends[count++] = static_cast<std::uint32_t>(at);
          continue;
        }
      }
      // Any other character, a three-byte one that no piece holds among
      // them: a symbol a byte.
      const utf8::Sequence d = utf8::decode_sequence(normalized, at);
      if (d.length == 0) return false;
      for (std::size_t b = 0; b < d.length; ++b) {
        symbols[count] = text[at];
        ends[count++] = static_cast<std::uint32_t>(++at);
      }
    }
    const CharUnit* const units = char_units_.data();
    const PieceUnit* const pieces = char_pieces_.data();
    std::size_t first = 0;  // the symbol the next character starts at
    viterbi(
        normalized, out,
        [&](Start& start) {
          const std::size_t starts_at = start.at;
          const double here = start.here;
          Best* const best = start.best;
          bool single_character = false;
          std::uint32_t node = 0;
          for (std::size_t k = first; k < count; ++k) {
            const std::uint32_t to = units[node].base + symbols[k];
            const std::uint32_t check = units[to].check;
            if ((check & ~kEndsPiece) != node) break;
            node = to;
            if ((check & kEndsPiece) == 0) continue;
            const std::size_t end = ends[k];
            take(pieces[to], best, starts_at, end, here);
            if (end - starts_at == start.char_length) single_character = true;
          }
          start.single_character = single_character;
          // The next character's first symbol: past this one's (one symbol, or
          // one a byte).
          first += symbols[first] >= kFirstCharacterSymbol ? 1 : start.char_length;
        },
        scratch);
    return true;
  }

  // The piece unit, from starts_at to end, after the best path to starts_at
  // (whose score is here): the best path to end if it beats the one there,
  // compared as SentencePiece compares (the candidate in double, the kept
  // score in float).
  void take(PieceUnit unit, Best* best, std::size_t starts_at, std::size_t end,
            double here) const noexcept {
    const double score = (unit.piece & kUserDefinedBit) != 0 ? user_defined_score(end - starts_at)
                                                             : static_cast<double>(unit.score);
    const double candidate = score + here;
    Best& target = best[end];
    if (target.starts_at == -1 || candidate > static_cast<double>(target.score))
      target = {static_cast<TokenId>(unit.piece & ~kUserDefinedBit), static_cast<float>(candidate),
                static_cast<std::int32_t>(starts_at)};
  }

  // User-defined symbols get a bonus "to always be selected": length in bytes
  // times the largest NORMAL score, minus 0.1, in double as SentencePiece has it.
  [[nodiscard]] double user_defined_score(std::size_t length) const noexcept {
    return static_cast<double>(static_cast<float>(length) * max_score_) - 0.1;
  }

  // What an encode keeps between calls, per thread, in one thread_local: each
  // of its own was a __tls_get_addr call a line (4% of encoding Hindi).
  struct Scratch {
    std::vector<Best> best;
    std::vector<Segment> segments;
    std::vector<std::uint32_t> symbols;  // encode_characters: the text's symbols
    std::vector<std::uint32_t> ends;     // and the byte each one ends at
  };
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
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
  void viterbi(std::string_view normalized, std::vector<TokenId>& out, Walk&& walk,
               Scratch& scratch = SpmUnigramModel::scratch()) const {
    if (normalized.empty()) return;
    const std::size_t size = normalized.size();
    std::vector<Best>& best = scratch.best;
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
    append_best_path(normalized, best, scratch.segments, out);
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
                        std::vector<Segment>& segments, std::vector<TokenId>& out) const {
    const std::size_t size = normalized.size();
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

  // The byte walk's tables, made on first use (encode).
  mutable std::once_flag byte_walk_made_;
  mutable std::vector<StepUnit> steps_;                  // index_scored_trie
  mutable std::vector<SmallStepUnit> small_steps_;       // the same, when the trie is small
  std::vector<CharUnit> char_units_;                     // index_character_trie; empty: none
  std::vector<PieceUnit> char_pieces_;                   // by character trie node
  std::vector<std::uint16_t> char_symbols_;              // a three-byte character's symbol, or 0
  mutable std::vector<PieceUnit> pieces_;                // by node, beside steps_
  mutable std::vector<std::uint32_t> three_byte_nodes_;  // index_three_byte_nodes
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
