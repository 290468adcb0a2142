#include "tokenlab/app/pretrained_inference.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

constexpr std::string_view kMarker = "\xE2\x96\x81";  // U+2581

void add_rules(const PretrainedModel& model, InferenceVocabulary& v) {
  PretrainedModel::Rules rules = model.rules();
  using Kind = PretrainedModel::Rules::Kind;
  if (rules.kind == Kind::merges) {
    v.merges = std::move(rules.merges);
    v.merge_ranks = std::move(rules.merge_ranks);
    v.whole_unit_first = rules.whole_piece_first;
    v.byte_units = rules.byte_units;
  }
  if (rules.kind == Kind::likelihood && rules.scores.size() == v.pieces.size())
    v.scores = std::move(rules.scores);
}

InferenceVocabulary vocabulary_of(const PretrainedTokenizer& tokenizer, bool with_rules) {
  const PretrainedPipeline& pipeline = tokenizer.pipeline();
  const TokenTable& table = *pipeline.tokens;
  InferenceVocabulary v;
  v.pieces.resize(table.id_limit());
  for (TokenId id = 0; id < table.id_limit(); ++id)
    if (const std::string* token = table.token(id)) v.pieces[id] = *token;
  // Added tokens are cut out of the text before the model: never a match.
  for (const auto& added : pipeline.added.tokens())
    if (added.id < v.pieces.size()) v.pieces[added.id].clear();
  v.unknown = tokenizer.unknown_id();
  for (unsigned byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", byte);
    const auto id = table.find(name);
    if (!id) break;
    v.byte_pieces.push_back(*id);
  }
  if (v.byte_pieces.size() != 256) v.byte_pieces.clear();
  if (pipeline.model->type() == "WordPiece") {
    v.continuation_prefix = "##";
    v.whole_word_unknown = true;
  }
  if (with_rules) add_rules(*pipeline.model, v);
  return v;
}

class PretrainedSubject final : public InferenceSubject {
 public:
  PretrainedSubject(std::shared_ptr<const PretrainedTokenizer> tokenizer, bool with_rules)
      : tokenizer_(std::move(tokenizer)),
        engine_(vocabulary_of(*tokenizer_, with_rules)),
        whole_line_(tokenizer_->pipeline().pre_tokenizers.empty()) {
    const std::string type = tokenizer_->pipeline().model->type();
    if (type.find("BPE") != std::string::npos) own_method_ = InferenceMethod::merges;
    if (type.find("nigram") != std::string::npos) own_method_ = InferenceMethod::likelihood;
  }

  void for_each_unit(std::string_view text,
                     const std::function<void(std::string_view, std::span<const TokenId>, bool)>&
                         fn) const override {
    const PretrainedModel& model = *tokenizer_->pipeline().model;
    std::vector<TokenId> own;
    tokenizer_->for_each_piece(text, [&](std::string_view piece, bool added) {
      own.clear();
      if (added) {
        tokenizer_->encode(piece, own);
        fn(piece, own, true);
        return;
      }
      while (!piece.empty()) {
        std::size_t cut = piece.size();
        if (whole_line_) cut = std::min(piece.find(kMarker, kMarker.size()), piece.size());
        const std::string_view unit = piece.substr(0, cut);
        own.clear();
        model.encode(unit, own);
        fn(unit, own, false);
        piece.remove_prefix(cut);
      }
    });
  }
  [[nodiscard]] const InferenceEngine& engine() const override { return engine_; }
  [[nodiscard]] std::optional<InferenceMethod> own_method() const override { return own_method_; }

 private:
  std::shared_ptr<const PretrainedTokenizer> tokenizer_;
  InferenceEngine engine_;
  bool whole_line_;
  std::optional<InferenceMethod> own_method_;
};

}  // namespace

std::shared_ptr<const InferenceSubject> make_pretrained_inference_subject(
    std::shared_ptr<const PretrainedTokenizer> tokenizer, bool with_rules) {
  return std::make_shared<PretrainedSubject>(std::move(tokenizer), with_rules);
}

}  // namespace tokenlab
