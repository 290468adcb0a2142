// File: character_model.hpp
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

#include "tokenlab/vocabulary_segmenter.hpp"

namespace tokenlab::character {

enum class UnitKind { code_points, graphemes };

/// Splits a word into units (views into word). Invalid UTF-8 bytes are one unit each.
void split_units(std::string_view word, UnitKind kind, std::vector<std::string_view>& out);

class CharacterSegmenter final : public VocabularySegmenter<CharacterSegmenter> {
 public:
  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "character";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "One token per code point (or grapheme cluster, units=graphemes)";
  static constexpr Capabilities kCapabilities = kCapabilityNone;
  // 4: the unit kind after the vocabulary, as VocabularySegmenter lays out a
  // payload; 3 had it before, 2 was a hand-written layout, 1 a bare Boost archive.
  static constexpr std::uint32_t kFormatVersion = 4;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  /// Format kModelDescriptionFormat: the model in neutral form, for the exporters.
  void export_model(std::ostream& out, const std::string& format) const override;

  [[nodiscard]] UnitKind unit_kind() const noexcept { return units_; }

 protected:
  void save_fields(PayloadOArchive& ar) const override;
  std::function<void()> load_fields(PayloadIArchive& ar, const Vocabulary& vocabulary) override;

 private:
  UnitKind units_ = UnitKind::code_points;
};

}  // namespace tokenlab::character
