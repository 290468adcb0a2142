// tiktoken's byte-pair encoding (src/lib.rs): pieces merged by the rank of the
// merged bytes.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model_common.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab {
namespace {

using pretrained_detail::merge_all;
using pretrained_detail::PairResult;
using pretrained_detail::PieceCache;
using pretrained_detail::Symbol;

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
  // Every split of a token into two tokens merges at the token's rank: the rank
  // rule as merges.
  [[nodiscard]] Rules rules() const override {
    Rules r{.kind = Rules::Kind::merges, .whole_piece_first = true, .byte_units = true};
    for (TokenId id = 0; id < tokens_->id_limit(); ++id) {
      const std::string* token = tokens_->token(id);
      if (!token) continue;
      const std::string_view t = *token;
      for (std::size_t k = 1; k < t.size(); ++k) {
        const auto left = tokens_->find(t.substr(0, k));
        const auto right = left ? tokens_->find(t.substr(k)) : std::nullopt;
        if (!right) continue;
        r.merges.emplace_back(*left, *right);
        r.merge_ranks.push_back(id);
      }
    }
    return r;
  }

 private:
  std::shared_ptr<const TokenTable> tokens_;
  const std::uint64_t serial_ = new_model_identity();
};

}  // namespace

std::unique_ptr<PretrainedModel> make_tiktoken_model(std::shared_ptr<const TokenTable> tokens) {
  return std::make_unique<TiktokenModel>(std::move(tokens));
}

}  // namespace tokenlab
