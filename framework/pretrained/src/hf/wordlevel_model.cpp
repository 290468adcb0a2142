// Hugging Face tokenizers' WordLevel model (tokenizers/src/models/wordlevel).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab {
namespace {

constexpr TokenId kNone = PretrainedModel::kNoToken;

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

}  // namespace

std::unique_ptr<PretrainedModel> make_word_level_model(std::shared_ptr<const TokenTable> tokens,
                                                       std::string unknown_token,
                                                       const std::string& where) {
  return std::make_unique<WordLevelModel>(std::move(tokens), std::move(unknown_token), where);
}

}  // namespace tokenlab
