// SentencePiece's word and character models (word_model.cc, char_model.cc).
#include <utility>

#include "sentencepiece/internal.hpp"

namespace tokenlab::sentencepiece_detail {
namespace {

// word::Model::Encode: SplitIntoWords (a word starts at the text and at each
// "▁"), each word's id or unknown.
class SpmWordModel final : public SpmModel {
 public:
  using SpmModel::SpmModel;
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    thread_local std::vector<Segment> segments;
    segments.clear();
    std::size_t word = 0;
    const auto flush = [&](std::size_t end) {
      const std::string_view w = normalized.substr(word, end - word);
      segments.push_back({static_cast<std::uint32_t>(word), static_cast<std::uint32_t>(w.size()),
                          vocabulary_->piece_to_id(w)});
    };
    for (std::size_t at = 0; at < normalized.size();) {
      const std::size_t length = char_length_at(normalized, at);
      if (at != 0 && normalized.substr(at, length) == kSpaceSymbol) {
        flush(at);
        word = at;
      }
      at += length;
    }
    flush(normalized.size());
    append_ids(*vocabulary_, normalized, segments, out);
  }
  [[nodiscard]] std::string type() const override { return "SentencePiece word"; }
};

// character::Model::Encode: user-defined symbols whole, else one character.
class SpmCharModel final : public SpmModel {
 public:
  using SpmModel::SpmModel;
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    thread_local std::vector<Segment> segments;
    segments.clear();
    for (std::size_t at = 0; at < normalized.size();) {
      std::size_t length = vocabulary_->user_defined_prefix(normalized.substr(at));
      if (length == 0) length = char_length_at(normalized, at);
      segments.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                          vocabulary_->piece_to_id(normalized.substr(at, length))});
      at += length;
    }
    append_ids(*vocabulary_, normalized, segments, out);
  }
  [[nodiscard]] std::string type() const override { return "SentencePiece char"; }
};

}  // namespace

std::unique_ptr<PretrainedModel> make_word_model(std::shared_ptr<const SpmVocabulary> vocabulary) {
  return std::make_unique<SpmWordModel>(std::move(vocabulary));
}

std::unique_ptr<PretrainedModel> make_char_model(std::shared_ptr<const SpmVocabulary> vocabulary) {
  return std::make_unique<SpmCharModel>(std::move(vocabulary));
}

}  // namespace tokenlab::sentencepiece_detail
