// Hugging Face tokenizers' BPE model (tokenizers/src/models/bpe).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "byte_level/huge_page_array.hpp"
#include "compiled/pair_map_section.hpp"
#include "hf/bpe_tables.hpp"
#include "hf/merge_ids.hpp"
#include "merge_cuts.hpp"
#include "model_common.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

// A one-character token beyond the BMP (an emoji, a rare CJK ideograph).
struct AstralToken {
  char32_t code_point;
  TokenId id;
};

// What encoding needs beyond the vocabulary: the ids the model looks up when
// it is made, and the tables built at its first encode (thread-safe; a fused
// byte-level encoder stands in for this model on a byte-level file, and
// building them for nothing was a third of its loading). All of it is what a
// compiled entry keeps (hf/bpe_tables.hpp).
struct hf_detail::BpeTables {
  // Packed pair -> rank and merged id; in huge pages: Gemma 3's is 16 MB,
  // probed at random by every merge step. Empty when loaded from an entry.
  PairMap<pretrained_detail::PairResult, byte_level_detail::HugePageAllocator> merges;
  // What encoding probes: merges' slots, or an entry's read in place (zeroing
  // and copying Gemma 3's into huge pages was a sixth of its load).
  decltype(merges)::View merge_view;
  std::shared_ptr<const void> mapping;  // the entry's, which merge_view may view
  std::vector<TokenId> direct;          // plain: BMP code point -> its one-character token
  std::vector<AstralToken> astral;  // plain: the one-character tokens beyond the BMP, by code point
  pretrained_detail::MergeCuts cuts;  // plain and not ignore_merges: where a piece may be cut
  TokenId unknown = PretrainedModel::kNoToken;
  bool unknown_missing = false;
  std::array<TokenId, 256> byte_ids{};  // byte fallback: <0xXX>'s id, or kNoToken
};

namespace {

using pretrained_detail::merge_all;
using pretrained_detail::MergeCuts;
using pretrained_detail::PairResult;
using pretrained_detail::PieceCache;
using pretrained_detail::Symbol;

constexpr TokenId kNone = PretrainedModel::kNoToken;

class BpeModel final : public PretrainedModel {
 public:
  // From the file: the ids it needs looked up now, the rest of the tables
  // built at the first encode.
  BpeModel(const std::shared_ptr<const TokenTable>& tokens, hf_detail::SharedMerges merges,
           const BpeModelOptions& options, const std::string& where)
      : BpeModel(tokens, std::move(merges), options, where, looked_up_ids(*tokens, options),
                 false) {}

  // With the tables a compiled entry kept for the same file: nothing is looked
  // up in tokens (a deferred table stays unfilled) and nothing is built.
  BpeModel(std::shared_ptr<const TokenTable> tokens, hf_detail::SharedMerges merges,
           const BpeModelOptions& options, const std::string& where, hf_detail::BpeTables&& tables)
      : BpeModel(std::move(tokens), std::move(merges), options, where, std::move(tables), true) {}

  // The tables save_bpe_tables writes, built first if need be.
  const hf_detail::BpeTables& prepared(unsigned threads) const {
    prepare(threads);
    return tables_;
  }

  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (whole_token(piece, out)) return;
    const Tables& t = tables();
    if (t.cuts.empty()) {
      encode_cached(piece, out);
      return;
    }
    // Whole-line BPE (SentencePiece-style: the line is one piece, spaces are
    // "▁"): merged in parts no merge reaches across, each found in the cache
    // the next time it comes.
    t.cuts.for_each_part(piece, [&](std::string_view part) { encode_cached(part, out); });
  }

  void encode_plain(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (whole_token(piece, out)) return;
    (void)tables();
    merge(piece, out);
  }

  void prepare(unsigned threads) const override {
    std::call_once(built_, [&] { build_tables(threads); });
  }

  [[nodiscard]] std::string type() const override { return "BPE"; }
  [[nodiscard]] std::string describe() const override {
    std::string d = std::to_string(tables().merge_view.size()) + " merges";
    if (options_.byte_fallback) d += ", byte fallback";
    if (options_.fuse_unknown) d += ", fuse unknown";
    if (options_.ignore_merges) d += ", ignore merges";
    if (!options_.continuing_subword_prefix.empty())
      d += ", continuing prefix \"" + options_.continuing_subword_prefix + "\"";
    if (!options_.end_of_word_suffix.empty())
      d += ", end-of-word suffix \"" + options_.end_of_word_suffix + "\"";
    if (options_.unknown_token) d += ", unknown \"" + *options_.unknown_token + "\"";
    return d;
  }
  [[nodiscard]] TokenId unknown_id() const override { return tables_.unknown; }
  // A prefix or suffix changes the first symbols, which the rules do not carry.
  [[nodiscard]] Rules rules() const override {
    Rules r;
    if (!options_.continuing_subword_prefix.empty() || !options_.end_of_word_suffix.empty())
      return r;
    r.kind = Rules::Kind::merges;
    const auto merge_ids = merges_.ids();
    r.merges.reserve(merge_ids.size());
    for (const auto& m : merge_ids) r.merges.emplace_back(m.left, m.right);
    r.whole_piece_first = options_.ignore_merges;
    return r;
  }

 private:
  BpeModel(std::shared_ptr<const TokenTable> tokens, hf_detail::SharedMerges merges,
           const BpeModelOptions& options, const std::string& where, hf_detail::BpeTables&& tables,
           bool built)
      : tokens_(std::move(tokens)),
        options_(options),
        merges_(std::move(merges)),
        plain_(options.continuing_subword_prefix.empty() && options.end_of_word_suffix.empty()),
        tables_(std::move(tables)) {
    if (options.dropout && *options.dropout != 0.0 &&
        !(*options.dropout > 0.0 && *options.dropout <= 1.0))
      throw Error(where + ".dropout: " + std::to_string(*options.dropout) +
                  " is not a probability in (0, 1]");
    if (built) std::call_once(built_, [] {});
  }

  // The unknown and byte-fallback tokens' ids. HF loads a model whose
  // unk_token is not in its vocabulary (an untrained template, or a file its
  // trainer wrote without that special token) and fails only on a piece that
  // needs the token: so does this.
  static hf_detail::BpeTables looked_up_ids(const TokenTable& tokens,
                                            const BpeModelOptions& options) {
    hf_detail::BpeTables t;
    if (options.unknown_token) {
      const auto id = tokens.find(*options.unknown_token);
      if (id)
        t.unknown = *id;
      else
        t.unknown_missing = true;
    }
    t.byte_ids.fill(kNone);
    if (options.byte_fallback) {
      for (int b = 0; b < 256; ++b) {
        const auto id = tokens.find(byte_fallback_piece(static_cast<unsigned>(b)));
        t.byte_ids[b] = id ? *id : kNone;
      }
    }
    return t;
  }

  // HF's ignore_merges: a piece that is a token is that token, merges unasked.
  bool whole_token(std::string_view piece, std::vector<TokenId>& out) const {
    if (!options_.ignore_merges) return false;
    const auto id = tokens_->find(piece);
    if (id) out.push_back(*id);
    return id.has_value();
  }

  // The merges of one piece, uncached (what the cache stores).
  void merge(std::string_view piece, std::vector<TokenId>& out) const {
    thread_local std::vector<Symbol> symbols;
    symbols.clear();
    initial_symbols(piece, symbols);
    if (symbols.size() <= kShortWord) {
      merge_short(symbols, out);
      return;
    }
    merge_all(symbols, [&](const Symbol& l, const Symbol& r) { return pair_result(l.id, r.id); });
    for (const Symbol& s : symbols)
      if (s.alive) out.push_back(s.id);
  }

  [[nodiscard]] PairResult pair_result(TokenId left, TokenId right) const {
    const PairResult* found = tables_.merge_view.find(pack_pair(left, right));
    return found ? *found : PairResult{UINT32_MAX, 0};
  }

  // merge_all's order (the lowest rank, then the leftmost pair) by a scan of
  // the pairs' ranks, each looked up once and again only beside a merge: for
  // the few symbols of a word, cheaper than a heap (allocated per word).
  void merge_short(const std::vector<Symbol>& symbols, std::vector<TokenId>& out) const {
    std::array<TokenId, kShortWord> ids{};
    std::array<PairResult, kShortWord> pairs{};  // pairs[i]: ids[i] with ids[i + 1]
    std::size_t n = symbols.size();
    for (std::size_t i = 0; i < n; ++i) ids[i] = symbols[i].id;
    for (std::size_t i = 0; i + 1 < n; ++i) pairs[i] = pair_result(ids[i], ids[i + 1]);
    while (n > 1) {
      std::size_t best = 0;
      for (std::size_t i = 1; i + 1 < n; ++i)
        if (pairs[i].rank < pairs[best].rank) best = i;
      if (pairs[best].rank == UINT32_MAX) break;
      ids[best] = pairs[best].new_id;
      for (std::size_t i = best + 1; i + 1 < n; ++i) {
        ids[i] = ids[i + 1];
        pairs[i] = pairs[i + 1];
      }
      --n;
      if (best > 0) pairs[best - 1] = pair_result(ids[best - 1], ids[best]);
      if (best + 1 < n) pairs[best] = pair_result(ids[best], ids[best + 1]);
    }
    out.insert(out.end(), ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n));
  }

  void encode_cached(std::string_view piece, std::vector<TokenId>& out) const {
    PieceCache::encode(serial_, piece, out,
                       [this](std::string_view p, std::vector<TokenId>& o) { merge(p, o); });
  }

  // The id of the one-character token for the well-formed character at
  // piece[i], or kNone: from the tables, which hold every one-character token,
  // so that encoding never looks a character up in the vocabulary (a compiled
  // entry's is filled only when asked for a string).
  [[nodiscard]] TokenId character_id(std::string_view piece, std::size_t i) const {
    const char32_t c = utf8::decode_at(piece, i);
    if (c < kDirect) return tables_.direct[c];
    const auto& astral = tables_.astral;
    const auto it = std::lower_bound(astral.begin(), astral.end(), c,
                                     [](const AstralToken& token, char32_t code_point) {
                                       return token.code_point < code_point;
                                     });
    return it != astral.end() && it->code_point == c ? it->id : kNone;
  }

  using Tables = hf_detail::BpeTables;
  const Tables& tables() const {
    std::call_once(built_, [this] { build_tables(1); });
    return tables_;
  }
  // The merge table and the character index, on two threads when given them:
  // they share nothing but the vocabulary, which neither writes.
  void build_tables(unsigned threads) const {
    parallel_for(plain_ ? 2 : 1, threads, [this](std::size_t part) {
      if (part == 0)
        index_merges();
      else
        index_characters();
    });
  }
  void index_merges() const {
    auto& map = tables_.merges;
    const auto merge_ids = merges_.ids();
    map.reserve(merge_ids.size());  // no rehash below: the prefetched slots stay
    const auto key = [&](std::size_t i) {
      return pack_pair(merge_ids[i].left, merge_ids[i].right);
    };
    // Each merge's slot prefetched kAhead merges before it is written: a
    // table of 514,906 merges (Gemma 3) is 16 MB, a miss a merge otherwise.
    constexpr std::size_t kAhead = 16;
    for (std::size_t i = 0; i < merge_ids.size(); ++i) {
      if (i + kAhead < merge_ids.size()) map.prefetch(key(i + kAhead));
      // As HF's map: a repeated pair keeps its last rank.
      map.insert_or_assign(key(i), {static_cast<std::uint32_t>(i), merge_ids[i].merged});
    }
    tables_.merge_view = map.view();
  }

  // For plain models (no prefix or suffix): the one-character tokens of the
  // Basic Multilingual Plane in a table (the first step of every piece looked
  // each character up in the vocabulary's hash), the others in a sorted list,
  // and where pieces may be cut.
  void index_characters() const {
    tables_.direct.assign(kDirect, kNone);
    tables_.astral.clear();
    std::vector<std::string_view> all;
    std::vector<std::string_view> own;
    for (TokenId id = 0; id < tokens_->id_limit(); ++id) {
      const std::string* token = tokens_->token(id);
      if (token == nullptr || token->empty()) continue;
      all.emplace_back(*token);
      if (utf8::sequence_length(*token, 0) != token->size()) continue;
      // The id find() gives, as initial_symbols() would look it up.
      const auto found = tokens_->find(*token);
      if (!found) continue;
      own.emplace_back(*token);
      if (const char32_t c = utf8::decode_at(*token, 0); c < kDirect)
        tables_.direct[c] = *found;
      else
        tables_.astral.push_back({c, *found});
    }
    std::sort(
        tables_.astral.begin(), tables_.astral.end(),
        [](const AstralToken& a, const AstralToken& b) { return a.code_point < b.code_point; });
    if (!options_.ignore_merges) tables_.cuts = MergeCuts(all, own);
  }

  void initial_symbols(std::string_view piece, std::vector<Symbol>& symbols) const {
    std::string unit;
    TokenId pending_unknown = kNone;
    std::uint32_t pending_start = 0, pending_end = 0;
    const auto push = [&](TokenId id, std::uint32_t start, std::uint32_t end) {
      const auto index = static_cast<std::int32_t>(symbols.size());
      symbols.push_back({id, index - 1, -1, start, end, true});
      if (index > 0) symbols[static_cast<std::size_t>(index - 1)].next = index;
    };
    const auto flush_unknown = [&] {
      if (pending_unknown == kNone) return;
      push(pending_unknown, pending_start, pending_end);
      pending_unknown = kNone;
    };
    for (std::size_t i = 0; i < piece.size();) {
      std::size_t length = utf8::sequence_length(piece, i);
      const bool well_formed = length != 0;
      if (length == 0) length = 1;
      const auto start = static_cast<std::uint32_t>(i);
      const auto end = static_cast<std::uint32_t>(i + length);
      // The tables hold every one-character token, so a well-formed character
      // without one needs no lookup below (which would also fill a deferred
      // vocabulary: a compiled entry's, for each unknown character's sake).
      bool not_a_token = false;
      if (plain_ && well_formed) {
        if (const TokenId id = character_id(piece, i); id != kNone) {
          i += length;
          flush_unknown();
          push(id, start, end);
          continue;
        }
        not_a_token = true;
      }
      const bool first = i == 0;
      const bool last = i + length == piece.size();
      unit.clear();
      if (!first) unit += options_.continuing_subword_prefix;
      unit.append(piece.substr(i, length));
      if (last) unit += options_.end_of_word_suffix;
      i += length;
      if (const auto id = not_a_token ? std::nullopt : tokens_->find(unit)) {
        flush_unknown();
        push(*id, start, end);
        continue;
      }
      if (options_.byte_fallback) {
        bool all = true;
        for (const char ch : unit)
          all = all && tables_.byte_ids[static_cast<unsigned char>(ch)] != kNone;
        if (all) {
          for (std::size_t b = 0; b < unit.size(); ++b)
            push(tables_.byte_ids[static_cast<unsigned char>(unit[b])], start, end);
          continue;
        }
      }
      if (tables_.unknown_missing)
        throw Error("the BPE model's unk_token \"" + *options_.unknown_token +
                    "\" is not in its vocabulary, and \"" + std::string(piece) + "\" needs it");
      if (tables_.unknown == kNone) continue;  // HF drops a character it cannot represent
      if (pending_unknown != kNone && options_.fuse_unknown) {
        pending_end = end;
        continue;
      }
      flush_unknown();
      pending_unknown = tables_.unknown;
      pending_start = start;
      pending_end = end;
    }
    flush_unknown();
  }

  std::shared_ptr<const TokenTable> tokens_;
  BpeModelOptions options_;
  hf_detail::SharedMerges merges_;  // as the file lists them
  static constexpr char32_t kDirect = 0x10000;
  static constexpr std::size_t kShortWord = 24;  // symbols merged by merge_short
  bool plain_ = false;                           // no continuing prefix, no end-of-word suffix
  mutable std::once_flag built_;
  mutable Tables tables_;  // ids when made; the rest once, by tables() (an entry's: all at once)
  const std::uint64_t serial_ = new_model_identity();
};

}  // namespace

std::unique_ptr<PretrainedModel> make_bpe_model(
    std::shared_ptr<const TokenTable> tokens,
    const std::vector<std::pair<std::string, std::string>>& merges, const BpeModelOptions& options,
    const std::string& where) {
  const std::vector<std::pair<std::string_view, std::string_view>> views(merges.begin(),
                                                                         merges.end());
  auto ids = hf_detail::resolve_merges(*tokens, views, options.continuing_subword_prefix, where);
  return hf_detail::make_bpe_model(std::move(tokens), hf_detail::SharedMerges::of(std::move(ids)),
                                   options, where);
}

std::unique_ptr<PretrainedModel> hf_detail::make_bpe_model(std::shared_ptr<const TokenTable> tokens,
                                                           SharedMerges merges,
                                                           const BpeModelOptions& options,
                                                           const std::string& where) {
  return std::make_unique<BpeModel>(std::move(tokens), std::move(merges), options, where);
}

std::unique_ptr<PretrainedModel> hf_detail::make_bpe_model(std::shared_ptr<const TokenTable> tokens,
                                                           SharedMerges merges,
                                                           const BpeModelOptions& options,
                                                           const std::string& where,
                                                           std::shared_ptr<BpeTables> tables) {
  return std::make_unique<BpeModel>(std::move(tokens), std::move(merges), options, where,
                                    std::move(*tables));
}

namespace {
// The character index's size, the one load_bpe_tables accepts. Sizes are
// checked before anything is allocated for them, so that damage reads as a
// stale entry; the contents (ids) are trusted once the entry's checksum holds,
// as everything of this build's writing is.
constexpr std::uint64_t kDirectSize = 0x10000;
}  // namespace

bool hf_detail::save_bpe_tables(const PretrainedModel& model, compiled::Writer& out,
                                unsigned threads) {
  const auto* bpe = dynamic_cast<const BpeModel*>(&model);
  if (bpe == nullptr) return false;
  const BpeTables& t = bpe->prepared(threads);
  compiled::save_pair_map(out, t.merge_view);
  out.value(static_cast<std::uint64_t>(t.direct.size()));
  out.bytes(t.direct.data(), t.direct.size() * sizeof(TokenId));
  static_assert(std::has_unique_object_representations_v<AstralToken>);
  out.value(static_cast<std::uint64_t>(t.astral.size()));
  out.bytes(t.astral.data(), t.astral.size() * sizeof(AstralToken));
  out.value(static_cast<std::uint8_t>(t.cuts.empty() ? 0 : 1));
  if (!t.cuts.empty()) t.cuts.save(out);
  out.value(t.unknown);
  out.value(static_cast<std::uint8_t>(t.unknown_missing));
  out.bytes(t.byte_ids.data(), sizeof t.byte_ids);
  return true;
}

std::shared_ptr<hf_detail::BpeTables> hf_detail::load_bpe_tables(compiled::Reader& in) {
  auto t = std::make_shared<BpeTables>();
  t->merge_view = compiled::view_pair_map<decltype(t->merges)>(in, "merge table");
  t->mapping = in.mapping();
  const auto direct = in.value<std::uint64_t>();
  if (direct != 0 && direct != kDirectSize) throw compiled::Stale("character index");
  in.expect(direct, sizeof(TokenId));
  t->direct.resize(direct);
  in.read(t->direct.data(), direct * sizeof(TokenId));
  const auto astral = in.value<std::uint64_t>();
  if (astral > 0x110000 - kDirectSize) throw compiled::Stale("character index");
  in.expect(astral, sizeof(AstralToken));
  t->astral.resize(astral);
  in.read(t->astral.data(), astral * sizeof(AstralToken));
  const auto has_cuts = in.value<std::uint8_t>();
  if (has_cuts > 1) throw compiled::Stale("merge cuts");
  if (has_cuts == 1) t->cuts = MergeCuts::load(in);
  t->unknown = in.value<TokenId>();
  const auto missing = in.value<std::uint8_t>();
  if (missing > 1) throw compiled::Stale("unknown token");
  t->unknown_missing = missing == 1;
  in.read(t->byte_ids.data(), sizeof t->byte_ids);
  return t;
}

}  // namespace tokenlab
