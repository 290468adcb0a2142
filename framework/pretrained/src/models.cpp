// The models of real tokenizers: HF's BPE, WordPiece, WordLevel and Unigram
// (tokenizers/src/models/*), and tiktoken's byte-pair encoding (src/lib.rs).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <queue>
#include <span>
#include <unordered_map>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_cache.hpp"

namespace tokenlab {
namespace {

constexpr TokenId kNone = PretrainedModel::kNoToken;

// A symbol of a word being merged: a doubly linked list over a vector.
struct Symbol {
  TokenId id;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t start;  // byte range in the piece (tiktoken looks pairs up by bytes)
  std::uint32_t end;
  bool alive = true;  // false once merged into its left neighbour
};

struct Candidate {
  std::uint32_t rank;
  std::uint32_t pos;
  TokenId new_id;
  // The smallest rank first, then the leftmost position: HF's Merge ordering and
  // tiktoken's first minimum.
  bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

struct PairResult {
  std::uint32_t rank = 0;
  TokenId new_id = 0;
};

// Merges symbols by a pair ranking until no adjacent pair ranks. lookup(left,
// right) returns the pair's rank and merged id, or rank UINT32_MAX.
template <class Lookup>
void merge_all(std::vector<Symbol>& symbols, Lookup&& lookup) {
  if (symbols.size() < 2) return;
  std::priority_queue<Candidate> queue;
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    const PairResult r = lookup(symbols[i], symbols[i + 1]);
    if (r.rank != UINT32_MAX) queue.push({r.rank, static_cast<std::uint32_t>(i), r.new_id});
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;  // merged away, or last
    const Symbol right = symbols[static_cast<std::size_t>(left.next)];
    const PairResult now = lookup(left, right);
    if (now.rank != top.rank || now.new_id != top.new_id) continue;  // stale
    left.id = top.new_id;
    left.end = right.end;
    symbols[static_cast<std::size_t>(left.next)].alive = false;
    left.next = right.next;
    if (right.next >= 0)
      symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos);
    if (left.prev >= 0) {
      const PairResult r = lookup(symbols[static_cast<std::size_t>(left.prev)], left);
      if (r.rank != UINT32_MAX)
        queue.push({r.rank, static_cast<std::uint32_t>(left.prev), r.new_id});
    }
    if (left.next >= 0) {
      const PairResult r = lookup(left, symbols[static_cast<std::size_t>(left.next)]);
      if (r.rank != UINT32_MAX) queue.push({r.rank, top.pos, r.new_id});
    }
  }
}

// Whole-piece encodings per thread and model, as HF and tiktoken keep: real text
// repeats its words, and a hit skips the merge loop or the lattice entirely.
using PieceCache =
    WordCache<WordCacheShape{.max_word_bytes = 64, .max_ids = 16, .slots = 1u << 14, .models = 4}>;

class BpeModel final : public PretrainedModel {
 public:
  BpeModel(std::shared_ptr<const TokenTable> tokens,
           const std::vector<std::pair<std::string, std::string>>& merges,
           const BpeModelOptions& options, const std::string& where)
      : tokens_(std::move(tokens)), options_(options) {
    if (options.dropout && *options.dropout != 0.0 &&
        !(*options.dropout > 0.0 && *options.dropout <= 1.0))
      throw Error(where + ".dropout: " + std::to_string(*options.dropout) +
                  " is not a probability in (0, 1]");
    if (options.unknown_token) {
      const auto id = tokens_->find(*options.unknown_token);
      if (!id)
        throw Error(where + ".unk_token: \"" + *options.unknown_token +
                    "\" is not in the vocabulary");
      unknown_ = *id;
    }
    if (options.byte_fallback) {
      for (int b = 0; b < 256; ++b) {
        const auto id = tokens_->find(byte_fallback_piece(static_cast<unsigned>(b)));
        byte_ids_[b] = id ? *id : kNone;
      }
    }
    const std::size_t prefix = options.continuing_subword_prefix.size();
    merges_.reserve(merges.size());
    std::string merged;
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const auto& [a, b] = merges[i];
      const auto id_a = tokens_->find(a);
      const auto id_b = tokens_->find(b);
      const std::string here = where + ".merges[" + std::to_string(i) + "]";
      if (!id_a) throw Error(here + ": \"" + a + "\" is not in the vocabulary");
      if (!id_b) throw Error(here + ": \"" + b + "\" is not in the vocabulary");
      if (b.size() < prefix)
        throw Error(here + ": \"" + b + "\" is shorter than the continuing subword prefix");
      merged.assign(a);
      merged.append(b, prefix, std::string::npos);
      const auto id = tokens_->find(merged);
      if (!id) throw Error(here + ": the merged token \"" + merged + "\" is not in the vocabulary");
      // As HF's map: a repeated pair keeps its last rank.
      merges_.insert_or_assign(pack_pair(*id_a, *id_b), {static_cast<std::uint32_t>(i), *id});
    }
  }

  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (options_.ignore_merges) {
      if (const auto id = tokens_->find(piece)) {
        out.push_back(*id);
        return;
      }
    }
    PieceCache::encode(serial_, piece, out, [&](std::string_view, std::vector<TokenId>&) {
      thread_local std::vector<Symbol> symbols;
      symbols.clear();
      initial_symbols(piece, symbols);
      merge_all(symbols, [&](const Symbol& l, const Symbol& r) -> PairResult {
        const PairResult* found = merges_.find(pack_pair(l.id, r.id));
        return found ? *found : PairResult{UINT32_MAX, 0};
      });
      for (const Symbol& s : symbols)
        if (s.alive) out.push_back(s.id);
    });
  }

  [[nodiscard]] std::string type() const override { return "BPE"; }
  [[nodiscard]] std::string describe() const override {
    std::string d = std::to_string(merges_.size()) + " merges";
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
  [[nodiscard]] TokenId unknown_id() const override { return unknown_; }

 private:
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
      if (length == 0) length = 1;
      const bool first = i == 0;
      const bool last = i + length == piece.size();
      unit.clear();
      if (!first) unit += options_.continuing_subword_prefix;
      unit.append(piece.substr(i, length));
      if (last) unit += options_.end_of_word_suffix;
      const auto start = static_cast<std::uint32_t>(i);
      const auto end = static_cast<std::uint32_t>(i + length);
      i += length;
      if (const auto id = tokens_->find(unit)) {
        flush_unknown();
        push(*id, start, end);
        continue;
      }
      if (options_.byte_fallback) {
        bool all = true;
        for (const char ch : unit) all = all && byte_ids_[static_cast<unsigned char>(ch)] != kNone;
        if (all) {
          for (std::size_t b = 0; b < unit.size(); ++b)
            push(byte_ids_[static_cast<unsigned char>(unit[b])], start, end);
          continue;
        }
      }
      if (unknown_ == kNone) continue;  // HF drops a character it cannot represent
      if (pending_unknown != kNone && options_.fuse_unknown) {
        pending_end = end;
        continue;
      }
      flush_unknown();
      pending_unknown = unknown_;
      pending_start = start;
      pending_end = end;
    }
    flush_unknown();
  }

  std::shared_ptr<const TokenTable> tokens_;
  BpeModelOptions options_;
  TokenId unknown_ = kNone;
  std::array<TokenId, 256> byte_ids_{};
  PairMap<PairResult> merges_;  // packed pair -> rank and merged id
  const std::uint64_t serial_ = new_model_identity();
};

class TiktokenModel final : public PretrainedModel {
 public:
  explicit TiktokenModel(std::shared_ptr<const TokenTable> tokens) : tokens_(std::move(tokens)) {}

  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (const auto id = tokens_->find(piece)) {
      out.push_back(*id);
      return;
    }
    PieceCache::encode(serial_, piece, out, [&](std::string_view, std::vector<TokenId>&) {
      thread_local std::vector<Symbol> symbols;
      symbols.clear();
      for (std::size_t i = 0; i < piece.size(); ++i) {
        const auto id = tokens_->find(piece.substr(i, 1));
        if (!id)
          throw Error("tiktoken: the byte " + std::to_string(static_cast<unsigned char>(piece[i])) +
                      " has no rank");
        const auto index = static_cast<std::int32_t>(i);
        symbols.push_back({*id, index - 1,
                           index + 1 < static_cast<std::int32_t>(piece.size()) ? index + 1 : -1,
                           static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1), true});
      }
      merge_all(symbols, [&](const Symbol& l, const Symbol& r) -> PairResult {
        const auto id = tokens_->find(piece.substr(l.start, r.end - l.start));
        if (!id) return {UINT32_MAX, 0};
        return {*id, *id};
      });
      for (const Symbol& s : symbols)
        if (s.alive) out.push_back(s.id);
    });
  }
  [[nodiscard]] std::string type() const override { return "tiktoken BPE"; }
  [[nodiscard]] std::string describe() const override {
    return std::to_string(tokens_->size()) + " ranks";
  }

 private:
  std::shared_ptr<const TokenTable> tokens_;
  const std::uint64_t serial_ = new_model_identity();
};

class WordPieceModel final : public PretrainedModel {
 public:
  WordPieceModel(std::shared_ptr<const TokenTable> tokens, std::string unknown, std::string prefix,
                 std::size_t max_chars, const std::string&)
      : tokens_(std::move(tokens)),
        unknown_token_(std::move(unknown)),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {
    // HF's WordPiece trainer writes "[UNK]" as unk_token without adding it to the
    // vocabulary unless asked: HF loads such a file and fails only on text that
    // needs the unknown token. So does tokenlab.
    if (const auto id = tokens_->find(unknown_token_)) unknown_ = *id;
    // HF tries every end from the word's end down, a hash lookup of a fresh
    // string each: cubic in the word, and max_input_chars_per_word comes from the
    // file (10^18 made 200,000 characters run for over 11 minutes). The same
    // greedy longest match, walked in a trie, is linear in the word times the
    // longest vocabulary entry. Word-initial pieces are every token; a piece
    // after the first is a token that starts with the prefix, prefix removed.
    std::vector<std::pair<std::string_view, std::uint32_t>> initial;
    std::vector<std::pair<std::string_view, std::uint32_t>> continuing;
    for (TokenId id = 0; id < tokens_->id_limit(); ++id) {
      const std::string* token = tokens_->token(id);
      if (token == nullptr || token->empty()) continue;
      initial.emplace_back(*token, id);
      if (token->size() > prefix_.size() && token->starts_with(prefix_))
        continuing.emplace_back(std::string_view(*token).substr(prefix_.size()), id);
    }
    initial_ = PieceTrie(std::move(initial));
    continuing_ = PieceTrie(std::move(continuing));
  }
  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (utf8::count_code_points(piece) > max_chars_) {
      out.push_back(unknown(piece));
      return;
    }
    const std::size_t mark = out.size();
    std::size_t start = 0;
    while (start < piece.size()) {
      std::uint32_t found = PieceTrie::kNone;
      const std::size_t length =
          (start == 0 ? initial_ : continuing_).longest_prefix(piece.substr(start), found);
      if (length == 0) {
        out.resize(mark);
        out.push_back(unknown(piece));
        return;
      }
      out.push_back(found);
      start += length;
    }
  }
  [[nodiscard]] std::string type() const override { return "WordPiece"; }
  [[nodiscard]] std::string describe() const override {
    return "prefix \"" + prefix_ + "\", at most " + std::to_string(max_chars_) + " characters" +
           (unknown_ == kNone ? ", unknown \"" + unknown_token_ + "\" not in the vocabulary" : "");
  }
  [[nodiscard]] TokenId unknown_id() const override { return unknown_; }

 private:
  [[nodiscard]] TokenId unknown(std::string_view piece) const {
    if (unknown_ == kNone)
      throw Error("the WordPiece model's unknown token \"" + unknown_token_ +
                  "\" is not in its vocabulary, and \"" + std::string(piece) + "\" needs it");
    return unknown_;
  }

  std::shared_ptr<const TokenTable> tokens_;
  std::string unknown_token_;
  std::string prefix_;
  std::size_t max_chars_;
  TokenId unknown_ = kNone;
  PieceTrie initial_;
  PieceTrie continuing_;
};

class WordLevelModel final : public PretrainedModel {
 public:
  WordLevelModel(std::shared_ptr<const TokenTable> tokens, std::string unknown, const std::string&)
      : tokens_(std::move(tokens)), unknown_token_(std::move(unknown)) {
    // As WordPiece: HF's trainer may leave unk_token out of the vocabulary, and HF
    // fails only on a word that needs it.
    if (const auto id = tokens_->find(unknown_token_)) unknown_ = *id;
  }
  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    if (const auto id = tokens_->find(piece)) {
      out.push_back(*id);
      return;
    }
    if (unknown_ == kNone)
      throw Error("the WordLevel model's unknown token \"" + unknown_token_ +
                  "\" is not in its vocabulary, and \"" + std::string(piece) + "\" needs it");
    out.push_back(unknown_);
  }
  [[nodiscard]] std::string type() const override { return "WordLevel"; }
  [[nodiscard]] std::string describe() const override {
    return "unknown \"" + unknown_token_ + "\"" +
           (unknown_ == kNone ? " (not in the vocabulary)" : "");
  }
  [[nodiscard]] TokenId unknown_id() const override { return unknown_; }

 private:
  std::shared_ptr<const TokenTable> tokens_;
  std::string unknown_token_;
  TokenId unknown_ = kNone;
};

// A byte trie over the pieces, for the Viterbi lattice's prefix searches.
class UnigramModel final : public PretrainedModel {
 public:
  UnigramModel(std::shared_ptr<const TokenTable> tokens, std::vector<double> scores,
               std::optional<TokenId> unknown, bool byte_fallback)
      : tokens_(std::move(tokens)), scores_(std::move(scores)), byte_fallback_(byte_fallback) {
    if (unknown) unknown_ = *unknown;
    double min_score = std::numeric_limits<double>::infinity();
    std::vector<std::pair<std::string_view, std::uint32_t>> entries;
    for (TokenId id = 0; id < tokens_->id_limit(); ++id) {
      const std::string* token = tokens_->token(id);
      if (!token) continue;
      // An empty piece never matches a character, so the lattice never sees it.
      if (!token->empty()) entries.emplace_back(*token, id);
      min_score = std::min(min_score, scores_[id]);
    }
    trie_ = PieceTrie(std::move(entries));
    unknown_score_ = min_score - 10.0;  // SentencePiece's kUnkPenalty
    if (byte_fallback)
      for (int b = 0; b < 256; ++b) {
        const auto id = tokens_->find(byte_fallback_piece(static_cast<unsigned>(b)));
        byte_ids_[b] = id ? *id : kNone;
      }
  }

  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    PieceCache::encode(serial_, piece, out, [&](std::string_view, std::vector<TokenId>&) {
      struct Node {
        TokenId id = kNone;
        double score = 0.0;
        std::int64_t start = -1;
      };
      std::vector<Node> best(piece.size() + 1);
      for (std::size_t at = 0; at < piece.size();) {
        const double here = best[at].score;
        std::size_t char_length = utf8::sequence_length(piece, at);
        if (char_length == 0) char_length = 1;
        bool single = false;
        trie_.common_prefixes(piece, at, [&](std::size_t length, TokenId id) {
          Node& target = best[at + length];
          const double candidate = here + scores_[id];
          if (target.start < 0 || candidate > target.score) {
            target = {id, candidate, static_cast<std::int64_t>(at)};
          }
          if (length == char_length) single = true;
        });
        if (!single) {
          if (unknown_ == kNone)
            throw Error("the Unigram model has no unknown token for \"" +
                        std::string(piece.substr(at, char_length)) + "\"");
          Node& target = best[at + char_length];
          const double candidate = here + unknown_score_;
          if (target.start < 0 || candidate > target.score)
            target = {unknown_, candidate, static_cast<std::int64_t>(at)};
        }
        at += char_length;
      }
      // Back from the end; consecutive unknown pieces fuse into one (HF's fuse_unk).
      std::vector<std::pair<std::size_t, std::size_t>> spans;  // [start, end) per token
      std::vector<TokenId> ids;
      for (std::size_t end = piece.size(); end > 0;) {
        const Node& node = best[end];
        const auto start = static_cast<std::size_t>(node.start);
        if (node.id == unknown_ && !ids.empty() && ids.back() == unknown_ &&
            spans.back().first == end) {
          spans.back().first = start;
        } else {
          ids.push_back(node.id);
          spans.emplace_back(start, end);
        }
        end = start;
      }
      for (std::size_t i = ids.size(); i-- > 0;) {
        const TokenId id = ids[i];
        if (id == unknown_ && byte_fallback_) {
          // HF looks the fused text up first; it is never a piece, so bytes follow.
          const auto [s, e] = spans[i];
          bool all = true;
          for (std::size_t b = s; b < e; ++b)
            all = all && byte_ids_[static_cast<unsigned char>(piece[b])] != kNone;
          if (all) {
            for (std::size_t b = s; b < e; ++b)
              out.push_back(byte_ids_[static_cast<unsigned char>(piece[b])]);
            continue;
          }
        }
        out.push_back(id);
      }
    });
  }
  [[nodiscard]] std::string type() const override { return "Unigram"; }
  [[nodiscard]] std::string describe() const override {
    return byte_fallback_ ? "byte fallback" : "";
  }
  [[nodiscard]] TokenId unknown_id() const override { return unknown_; }

 private:
  std::shared_ptr<const TokenTable> tokens_;
  std::vector<double> scores_;
  bool byte_fallback_;
  TokenId unknown_ = kNone;
  double unknown_score_ = 0.0;
  PieceTrie trie_;
  std::array<TokenId, 256> byte_ids_{};
  const std::uint64_t serial_ = new_model_identity();
};

}  // namespace

std::unique_ptr<PretrainedModel> make_bpe_model(
    std::shared_ptr<const TokenTable> tokens,
    const std::vector<std::pair<std::string, std::string>>& merges, const BpeModelOptions& options,
    const std::string& where) {
  return std::make_unique<BpeModel>(std::move(tokens), merges, options, where);
}
std::unique_ptr<PretrainedModel> make_tiktoken_model(std::shared_ptr<const TokenTable> tokens) {
  return std::make_unique<TiktokenModel>(std::move(tokens));
}
std::unique_ptr<PretrainedModel> make_wordpiece_model(std::shared_ptr<const TokenTable> tokens,
                                                      std::string unknown_token,
                                                      std::string continuing_subword_prefix,
                                                      std::size_t max_input_chars_per_word,
                                                      const std::string& where) {
  return std::make_unique<WordPieceModel>(std::move(tokens), std::move(unknown_token),
                                          std::move(continuing_subword_prefix),
                                          max_input_chars_per_word, where);
}
std::unique_ptr<PretrainedModel> make_word_level_model(std::shared_ptr<const TokenTable> tokens,
                                                       std::string unknown_token,
                                                       const std::string& where) {
  return std::make_unique<WordLevelModel>(std::move(tokens), std::move(unknown_token), where);
}
std::unique_ptr<PretrainedModel> make_unigram_model(std::shared_ptr<const TokenTable> tokens,
                                                    std::vector<double> scores,
                                                    std::optional<TokenId> unknown_id,
                                                    bool byte_fallback) {
  return std::make_unique<UnigramModel>(std::move(tokens), std::move(scores), unknown_id,
                                        byte_fallback);
}

}  // namespace tokenlab
