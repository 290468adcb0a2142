// File: inference_encoders.hpp
// A model's vocabulary run by another inference method (inference_methods.hpp),
// in the shapes the rest of tokenlab evaluates: a Segmenter for tokenlab's own
// models, a TextEncoder for real tokenizers; and how far a method's
// segmentation is from the model's own.
//
//   auto subject = make_inference_subject(trained_segmenter);  // shares it
//   InferenceSegmenter greedy(subject, InferenceMethod::longest_prefix);
//   greedy.encode("▁lowest", ids);
//   InferenceAgreement a = measure_agreement(*subject, InferenceMethod::longest_prefix, words);
//   a.differing_units / a.units   // share of words cut differently from the model's own
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/inference_methods.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/text_encoder.hpp"

namespace tokenlab {

/// A model whose vocabulary the inference methods can run: the units it
/// segments, its own ids for each, and the engine over its pieces.
/// Implementations are immutable and thread-safe.
class TOKENLAB_API InferenceSubject {
 public:
  virtual ~InferenceSubject();
  /// Cuts text into the units the model segments (a tokenlab model: text is one
  /// pre-tokenized word, the one unit; a real tokenizer: a line, cut by its own
  /// added tokens, normalizers and pre-tokenizers, and a whole-line piece further
  /// before each "▁") and calls fn(unit, the model's own ids for it). An added
  /// token's unit has fixed = true: every method keeps its id.
  virtual void for_each_unit(
      std::string_view text,
      const std::function<void(std::string_view unit, std::span<const TokenId> own, bool fixed)>&
          fn) const = 0;
  [[nodiscard]] virtual const InferenceEngine& engine() const = 0;
  /// The method that the model's own encoding is, when the engine cannot run it
  /// itself (a real BPE's merges, a real unigram's scores are not read): then
  /// that method is the model's own encoding.
  [[nodiscard]] virtual std::optional<InferenceMethod> own_method() const = 0;

  /// Whether method can be run on this subject (by the engine or as the own encoding).
  [[nodiscard]] bool can_run(InferenceMethod method) const;
  /// Appends the ids of one unit by method (own ids given).
  void encode_unit(InferenceMethod method, std::string_view unit, std::span<const TokenId> own,
                   bool fixed, std::vector<TokenId>& out) const;
};

/// The pieces, merges, scores and continuation prefix of a tokenlab model, read
/// through its ModelDescription export; special tokens never match.
[[nodiscard]] TOKENLAB_API InferenceVocabulary inference_vocabulary(const Segmenter& segmenter);

/// A subject over a tokenlab segmenter (kept alive by the subject).
[[nodiscard]] TOKENLAB_API std::shared_ptr<const InferenceSubject> make_inference_subject(
    std::shared_ptr<const Segmenter> segmenter);

/// A tokenlab segmenter's vocabulary encoded by another method: everything but
/// encode is the base segmenter's (decode, vocabulary, pieces). Not trainable,
/// savable or loadable (those throw Error).
class TOKENLAB_API InferenceSegmenter final : public Segmenter {
 public:
  InferenceSegmenter(std::shared_ptr<const Segmenter> base,
                     std::shared_ptr<const InferenceSubject> subject, InferenceMethod method);
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::string version() const override { return base_->version(); }
  void train(const WordCounts&, const TrainOptions&, TrainingObserver*) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    return base_->decode(ids);
  }
  [[nodiscard]] const Vocabulary& vocabulary() const override { return base_->vocabulary(); }
  [[nodiscard]] std::string display_piece(TokenId id) const override {
    return base_->display_piece(id);
  }
  void save(std::ostream&) const override;
  void load(std::istream&) override;

 private:
  std::shared_ptr<const Segmenter> base_;
  std::shared_ptr<const InferenceSubject> subject_;
  InferenceMethod method_;
};

/// A real tokenizer's vocabulary encoded by another method: encode runs the
/// subject's units through the method; decode and the rest are base's.
class TOKENLAB_API MethodEncoder final : public TextEncoder {
 public:
  MethodEncoder(std::shared_ptr<const TextEncoder> base,
                std::shared_ptr<const InferenceSubject> subject, InferenceMethod method);
  void encode(std::string_view text, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    return base_->decode(ids);
  }
  [[nodiscard]] std::size_t vocabulary_size() const override { return base_->vocabulary_size(); }
  [[nodiscard]] std::string display_piece(TokenId id) const override {
    return base_->display_piece(id);
  }
  [[nodiscard]] std::optional<TokenId> unknown_id() const override { return base_->unknown_id(); }
  [[nodiscard]] std::vector<TokenId> byte_fallback_ids() const override {
    return base_->byte_fallback_ids();
  }

 private:
  std::shared_ptr<const TextEncoder> base_;
  std::shared_ptr<const InferenceSubject> subject_;
  InferenceMethod method_;
};

/// How a method's segmentation differs from the model's own, over units.
struct TOKENLAB_API InferenceAgreement {
  std::uint64_t units = 0;            // units compared
  std::uint64_t differing_units = 0;  // units whose ids differ from the own ids
  std::uint64_t unresolved_units =
      0;  // left out: the own ids' extent is unknown (2+ unknown tokens)
  std::uint64_t own_tokens = 0;
  std::uint64_t method_tokens = 0;
  // Token boundaries inside units (byte offsets), the own encoding's as the reference.
  std::uint64_t own_boundaries = 0;
  std::uint64_t method_boundaries = 0;
  std::uint64_t shared_boundaries = 0;

  void merge(const InferenceAgreement& other);
  [[nodiscard]] double differing_share() const;
  [[nodiscard]] double precision() const;  // shared / method
  [[nodiscard]] double recall() const;     // shared / own
  [[nodiscard]] double f1() const;         // 2 shared / (own + method)
};

/// One (tokenizer, method, language) of a comparison.
struct InferenceRow {
  std::string algorithm;  // the tokenizer's row label ("bpe", "gpt4o")
  std::string method;     // inference_method_name
  std::string language;
  InferenceAgreement agreement;
  std::string error;
};

/// The compare row label of a tokenizer run by method: "bpe/longest-prefix".
[[nodiscard]] inline std::string inference_label(const std::string& algorithm,
                                                 InferenceMethod method) {
  return algorithm + "/" + inference_method_name(method);
}

/// Compares method with the model's own encoding over every unit of texts.
[[nodiscard]] TOKENLAB_API InferenceAgreement
measure_agreement(const InferenceSubject& subject, InferenceMethod method,
                  std::span<const std::string_view> texts);

}  // namespace tokenlab
