// Hugging Face tokenizers' Unigram model (tokenizers/src/models/unigram).
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model_common.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

using pretrained_detail::PieceCache;

constexpr TokenId kNone = PretrainedModel::kNoToken;

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
  [[nodiscard]] Rules rules() const override {
    return {.kind = Rules::Kind::likelihood, .scores = scores_};
  }
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

std::unique_ptr<PretrainedModel> make_unigram_model(std::shared_ptr<const TokenTable> tokens,
                                                    std::vector<double> scores,
                                                    std::optional<TokenId> unknown_id,
                                                    bool byte_fallback) {
  return std::make_unique<UnigramModel>(std::move(tokens), std::move(scores), unknown_id,
                                        byte_fallback);
}

}  // namespace tokenlab
