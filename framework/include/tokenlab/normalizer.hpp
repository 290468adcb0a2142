// File: normalizer.hpp
// Text normalization on ICU, applied to every line before pre-tokenization.
//
//   Normalizer n({.form = NormalizationForm::nfkc, .lowercase = true});
//   n.normalize("  Ｈｅｌｌｏ   World ") == "hello world"
//
// Steps, in order: Unicode normalization (NFC by default), optional full Unicode
// lowercasing, then every run of white space collapsed to one U+0020 and the
// line trimmed. ASCII-only lines take a fast path with identical results.
// Thread-safe: one instance may serve many threads.
#pragma once

#include <string>
#include <string_view>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class NormalizationForm { none, nfc, nfkc };

struct TOKENLAB_API NormalizerOptions {
  NormalizationForm form = NormalizationForm::nfc;
  bool lowercase = false;
  /// BERT uncased: strip combining marks after NFD (accents), then recompose.
  bool strip_accents = false;

  /// Stable text form stored in model files, e.g. "nfc" or "nfkc+lowercase".
  [[nodiscard]] std::string to_string() const;
  /// Parses to_string() output; throws Error on anything else.
  static NormalizerOptions parse(std::string_view text);
  bool operator==(const NormalizerOptions&) const = default;
};

class TOKENLAB_API Normalizer {
 public:
  explicit Normalizer(NormalizerOptions options = {});
  [[nodiscard]] const NormalizerOptions& options() const noexcept { return options_; }
  /// Normalizes one line of valid UTF-8 into out (replacing its contents).
  void normalize(std::string_view line, std::string& out) const;
  [[nodiscard]] std::string normalize(std::string_view line) const;

 private:
  NormalizerOptions options_;
  const void* icu_normalizer_ = nullptr;  // icu::Normalizer2*, owned by ICU
  const void* nfd_ = nullptr;
};

}  // namespace tokenlab
