// File: character_segmenter.hpp
// The character baseline: one token per Unicode code point (default) or per
// grapheme cluster (ICU), with the most frequent units as the vocabulary.
//
//   CharacterSegmenter s;
//   TrainOptions o{.vocab_size = 1000};
//   o.extra["units"] = "graphemes";
//   s.train(counts, o, nullptr);
//
// Training keeps the special tokens (default "<unk>"), then units by descending
// count (ties: first occurrence) until vocab_size is reached or the kept units
// cover character_coverage of all unit occurrences, and only units seen at least
// min_frequency times. Every other unit encodes to "<unk>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/segmenter.hpp"

namespace tokenlab::character {

enum class UnitKind { code_points, graphemes };

/// Splits a word into units (views into word). Invalid UTF-8 bytes are one unit each.
void split_units(std::string_view word, UnitKind kind, std::vector<std::string_view>& out);

class CharacterSegmenter final : public DescribedSegmenter<CharacterSegmenter> {
 public:
  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "character";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "One token per code point (or grapheme cluster, units=graphemes)";
  static constexpr Capabilities kCapabilities = kCapabilityNone;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  [[nodiscard]] const Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream& out) const override;
  void load(std::istream& in) override;
  /// Format kModelDescriptionFormat: the model in neutral form, for the exporters.
  void export_model(std::ostream& out, const std::string& format) const override;

  [[nodiscard]] UnitKind unit_kind() const noexcept { return units_; }

 private:
  Vocabulary vocabulary_;
  UnitKind units_ = UnitKind::code_points;
};

}  // namespace tokenlab::character
