// File: word_model.hpp
// The word-level baseline: each pre-tokenized word is one token if it is among the
// vocab_size most frequent training words, else the unknown token.
//
// Its unknown rate on held-out text is the reason subword methods exist; the
// comparison shows it next to them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/vocabulary_segmenter.hpp"

namespace tokenlab::word {

class WordSegmenter final : public VocabularySegmenter<WordSegmenter> {
 public:
  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "word";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "One token per pre-tokenized word; the rest are unknown";
  static constexpr Capabilities kCapabilities = kCapabilityNone;
  // 3: the vocabulary in a payload archive (payload.hpp); 2 was a hand-written
  // tagged layout, 1 a bare Boost archive.
  static constexpr std::uint32_t kFormatVersion = 3;

  /// Keeps the specials (default "<unk>"), then words by descending count (ties:
  /// first occurrence) with count >= min_frequency, up to vocab_size entries.
  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  /// Format kModelDescriptionFormat: the model in neutral form, for the exporters.
  void export_model(std::ostream& out, const std::string& format) const override;
};

}  // namespace tokenlab::word
