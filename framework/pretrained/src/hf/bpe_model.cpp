// Hugging Face tokenizers' BPE model (tokenizers/src/models/bpe).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model_common.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

using pretrained_detail::merge_all;
using pretrained_detail::PairResult;
using pretrained_detail::PieceCache;
using pretrained_detail::Symbol;

constexpr TokenId kNone = PretrainedModel::kNoToken;

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
    // HF loads a model whose unk_token is not in its vocabulary (an untrained
    // template, or a file its trainer wrote without that special token) and fails
    // only on a piece that needs the token: so does this.
    if (options.unknown_token) {
      const auto id = tokens_->find(*options.unknown_token);
      if (id)
        unknown_ = *id;
      else
        unknown_missing_ = true;
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
      merge_list_.emplace_back(*id_a, *id_b);
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
  // A prefix or suffix changes the first symbols, which the rules do not carry.
  [[nodiscard]] Rules rules() const override {
    Rules r;
    if (!options_.continuing_subword_prefix.empty() || !options_.end_of_word_suffix.empty())
      return r;
    r.kind = Rules::Kind::merges;
    r.merges = merge_list_;
    r.whole_piece_first = options_.ignore_merges;
    return r;
  }

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
      if (unknown_missing_)
        throw Error("the BPE model's unk_token \"" + *options_.unknown_token +
                    "\" is not in its vocabulary, and \"" + std::string(piece) + "\" needs it");
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
  bool unknown_missing_ = false;
  std::array<TokenId, 256> byte_ids_{};
  PairMap<PairResult> merges_;                           // packed pair -> rank and merged id
  std::vector<std::pair<TokenId, TokenId>> merge_list_;  // as the file lists them
  const std::uint64_t serial_ = new_model_identity();
};

}  // namespace

std::unique_ptr<PretrainedModel> make_bpe_model(
    std::shared_ptr<const TokenTable> tokens,
    const std::vector<std::pair<std::string, std::string>>& merges, const BpeModelOptions& options,
    const std::string& where) {
  return std::make_unique<BpeModel>(std::move(tokens), merges, options, where);
}

}  // namespace tokenlab
