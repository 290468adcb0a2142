// SentencePiece's BPE model (bpe_model.cc).
#include <algorithm>
#include <bit>
#include <utility>

#include "merge_cuts.hpp"
#include "model_common.hpp"
#include "sentencepiece/internal.hpp"

namespace tokenlab::sentencepiece_detail {
namespace {

// bpe::Model::SampleEncode with alpha 0: characters (and whole user-defined
// symbols, which never merge), then repeatedly the adjacent pair whose
// concatenation is a piece with the highest score, leftmost first; UNUSED pieces
// are split back into the pair they were made of.
class SpmBpeModel final : public SpmModel {
 public:
  explicit SpmBpeModel(std::shared_ptr<const SpmVocabulary> vocabulary)
      : SpmModel(std::move(vocabulary)) {
    index_cuts();
  }

  // A line is one piece, its spaces "▁": merged in parts no merge (nor
  // user-defined symbol) reaches across, each found in the cache the next time.
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    cuts_.for_each_part(normalized, [&](std::string_view part) {
      pretrained_detail::PieceCache::encode(
          serial_, part, out,
          [this](std::string_view p, std::vector<TokenId>& o) { encode_plain(p, o); });
    });
  }

 private:
  // Every piece can be made by merges (UNUSED ones too, split back later), and
  // a user-defined symbol is matched whole: the cuts must know them all. Only
  // NORMAL characters stand for themselves.
  void index_cuts() {
    const SpmVocabulary& v = *vocabulary_;
    std::vector<std::string_view> all(v.pieces.begin(), v.pieces.end());
    std::vector<std::string_view> own;
    for (std::size_t id = 0; id < v.pieces.size(); ++id)
      if (v.types[id] == PieceType::normal && one_char_len(v.pieces[id][0]) == v.pieces[id].size())
        own.emplace_back(v.pieces[id]);
    cuts_ = pretrained_detail::MergeCuts(all, own);
  }

  pretrained_detail::MergeCuts cuts_;
  const std::uint64_t serial_ = new_model_identity();

  struct Symbol {
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t start;
    std::uint32_t length;  // 0 once merged into its left neighbour
    std::uint32_t node;    // the trie node of its bytes, or kFail
    bool freeze;           // a user-defined symbol: never merged
  };
  // A candidate merge. key orders as SymbolPairComparator: the highest score
  // on top, then the leftmost pair.
  struct Pair {
    std::uint64_t key;
    std::uint32_t size;  // bytes of the merged piece
    std::uint32_t node;  // its trie node
    bool operator<(const Pair& o) const noexcept { return key < o.key; }
  };
  struct Scratch {
    std::vector<Symbol> symbols;
    std::vector<Pair> agenda;
    std::vector<Segment> segments;
    // rev_merge: for UNUSED pieces, the pair that last made each one.
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge;
  };
  static Scratch& scratch_space() {
    thread_local Scratch scratch;
    return scratch;
  }
  // The float's order as an unsigned integer (0.0 and -0.0 alike, as == has
  // them), above the left index counted down.
  static std::uint64_t pair_key(float score, std::int32_t left) noexcept {
    if (score == 0.0f) score = 0.0f;
    std::uint32_t bits = std::bit_cast<std::uint32_t>(score);
    bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
    return (std::uint64_t{bits} << 32) | (0xFFFFFFFFu - static_cast<std::uint32_t>(left));
  }

 public:
  /// SampleEncode over the whole text, with no cut and no cache (what encode
  /// must equal; the tests compare the two).
  void encode_plain(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    const SpmVocabulary& v = *vocabulary_;
    Scratch& scratch = scratch_space();  // one TLS lookup, not one per use
    std::vector<Symbol>& symbols = scratch.symbols;
    std::vector<Pair>& agenda = scratch.agenda;
    auto& rev_merge = scratch.rev_merge;
    symbols.clear();
    agenda.clear();
    if (v.has_unused) rev_merge.clear();

    const DoubleArray& trie = v.trie();
    const auto walk = [&trie](std::uint32_t node, std::string_view bytes) {
      for (const char ch : bytes) {
        if (node == DoubleArray::kFail) break;
        node = trie.next(node, static_cast<unsigned char>(ch));
      }
      return node;
    };
    const auto text_of = [&](const Symbol& s) { return normalized.substr(s.start, s.length); };
    const auto maybe_add_pair = [&](std::int32_t left, std::int32_t right) {
      if (left == -1 || right == -1) return;
      const Symbol& l = symbols[static_cast<std::size_t>(left)];
      const Symbol& r = symbols[static_cast<std::size_t>(right)];
      if (l.freeze || r.freeze || l.node == DoubleArray::kFail) return;
      const std::uint32_t node = walk(l.node, text_of(r));
      if (node == DoubleArray::kFail) return;
      const std::int32_t id = trie.value(node);
      if (id < 0) return;
      agenda.push_back(
          {pair_key(v.scores[static_cast<std::size_t>(id)], left), l.length + r.length, node});
      std::push_heap(agenda.begin(), agenda.end());
      if (v.types[static_cast<std::size_t>(id)] == PieceType::unused)
        rev_merge[normalized.substr(l.start, l.length + r.length)] = {text_of(l), text_of(r)};
    };

    for (std::size_t at = 0; at < normalized.size();) {
      std::size_t length = v.user_defined_prefix(normalized.substr(at));
      const bool freeze = length != 0;
      if (!freeze) length = char_length_at(normalized, at);
      const auto index = static_cast<std::int32_t>(symbols.size());
      symbols.push_back({index - 1, at + length < normalized.size() ? index + 1 : -1,
                         static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                         walk(0, normalized.substr(at, length)), freeze});
      at += length;
    }
    for (std::size_t i = 1; i < symbols.size(); ++i)
      maybe_add_pair(static_cast<std::int32_t>(i - 1), static_cast<std::int32_t>(i));

    while (!agenda.empty()) {
      std::pop_heap(agenda.begin(), agenda.end());
      const Pair top = agenda.back();
      agenda.pop_back();
      const auto left_index = static_cast<std::int32_t>(0xFFFFFFFFu - (top.key & 0xFFFFFFFFu));
      Symbol& left = symbols[static_cast<std::size_t>(left_index)];
      // SentencePiece's staleness test looks at the pair's right symbol; the
      // left one's current neighbour gives the same answer: once left has
      // merged to the right, its length alone reaches top.size.
      if (left.length == 0 || left.next < 0) continue;
      Symbol& right = symbols[static_cast<std::size_t>(left.next)];
      if (left.length + right.length != top.size) continue;  // stale
      left.length += right.length;
      left.node = top.node;
      left.next = right.next;
      if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = left_index;
      right.length = 0;
      maybe_add_pair(left.prev, left_index);
      maybe_add_pair(left_index, left.next);
    }

    std::vector<Segment>& segments = scratch.segments;
    segments.clear();
    // resegment: PieceToId, and UNUSED pieces split back recursively.
    const auto resegment = [&](auto&& self, std::string_view piece, std::uint32_t node) -> void {
      // No piece is both reserved and normal, so the trie's answer is PieceToId's.
      const TokenId id = node != DoubleArray::kFail && trie.value(node) >= 0
                             ? static_cast<TokenId>(trie.value(node))
                             : v.piece_to_id(piece);
      if (v.types[id] == PieceType::unused) {
        if (const auto it = rev_merge.find(piece); it != rev_merge.end()) {
          const auto [a, b] = it->second;
          self(self, a, walk(0, a));
          self(self, b, walk(0, b));
          return;
        }
      }
      segments.push_back({static_cast<std::uint32_t>(piece.data() - normalized.data()),
                          static_cast<std::uint32_t>(piece.size()), id});
    };
    for (std::int32_t i = 0; i != -1; i = symbols[static_cast<std::size_t>(i)].next) {
      const Symbol& s = symbols[static_cast<std::size_t>(i)];
      resegment(resegment, text_of(s), s.node);
    }
    append_ids(v, normalized, segments, out);
  }

  [[nodiscard]] std::string type() const override { return "SentencePiece BPE"; }
};

}  // namespace

std::unique_ptr<PretrainedModel> make_bpe_model(std::shared_ptr<const SpmVocabulary> vocabulary) {
  return std::make_unique<SpmBpeModel>(std::move(vocabulary));
}

}  // namespace tokenlab::sentencepiece_detail
