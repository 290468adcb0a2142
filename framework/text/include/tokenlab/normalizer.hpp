// File: normalizer.hpp
// Text normalization on ICU, applied to every line before pre-tokenization.
//
//   Normalizer n({.form = NormalizationForm::nfkc, .lowercase = true});
//   n.normalize("  Ｈｅｌｌｏ   World ") == "hello world"
//
// Steps, in order: Unicode normalization (NFC by default), optional lowercasing,
// then every run of white space collapsed to one U+0020 and the line trimmed
// (unless keep_whitespace, which the regex pre-tokenizers need).
// ASCII-only lines take a fast path with identical results.
//
// Lowercasing maps each code point on its own, as Hugging Face's Lowercase and
// Rust's char::to_lowercase do: full mappings (U+0130 becomes "i\u0307"), but
// no context, so a final capital sigma becomes σ, not ς.
//
// Form `bert` is BERT's BasicTokenizer text handling, exactly as HF's
// BertNormalizer (see bert_characters.hpp): clean text (U+0000, U+FFFD and
// control characters removed, every white space character a space), no Unicode
// composition; strip_accents is then NFD minus non-spacing marks, with no
// recomposition, so Hangul syllables become conjoining jamo; lowercasing comes
// after the accents are stripped. BERT's spacing around CJK ideographs is done
// by the `bert` pre-tokenizer.
// Thread-safe: one instance may serve many threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class NormalizationForm { none, nfc, nfkc, bert };

struct TOKENLAB_API NormalizerOptions {
  NormalizationForm form = NormalizationForm::nfc;
  bool lowercase = false;
  /// Strip accents: NFD, then remove non-spacing marks (Mn), then recompose to
  /// the form (nfc, nfkc; none and bert leave the text decomposed).
  bool strip_accents = false;
  /// Leave white space as it is: no collapsing of runs, no trimming. For the
  /// GPT-style regex pre-tokenizers, whose pieces keep the spaces, tabs and line
  /// breaks of the text (" world", "\t"), as tiktoken and byte-level BPE do.
  bool keep_whitespace = false;

  /// Stable text form stored in model files, e.g. "nfc", "nfkc+lowercase" or
  /// "bert+lowercase+strip-accents" (BERT uncased).
  [[nodiscard]] std::string to_string() const;
  /// Parses to_string() output; throws Error on anything else.
  static NormalizerOptions parse(std::string_view text);
  bool operator==(const NormalizerOptions&) const = default;
};

/// text lowercased code point by code point, as Rust's char::to_lowercase (and
/// so Hugging Face's Lowercase normalizer): no context, U+0130 becomes "i\u0307".
/// text must be valid UTF-8.
TOKENLAB_API std::string lowercase_code_points(std::string_view text);

class TOKENLAB_API Normalizer {
 public:
  explicit Normalizer(NormalizerOptions options = {});
  [[nodiscard]] const NormalizerOptions& options() const noexcept { return options_; }
  /// Normalizes one line of valid UTF-8 into out (replacing its contents).
  void normalize(std::string_view line, std::string& out) const;
  [[nodiscard]] std::string normalize(std::string_view line) const;
  /// The normalized line without a copy when normalizing leaves it as it is
  /// (most lines of a corpus): line itself, or else a view of buffer, which then
  /// holds the result. Valid while line and buffer are.
  [[nodiscard]] std::string_view normalize_view(std::string_view line, std::string& buffer) const;
  /// True when normalizing line can change nothing but its white space (runs
  /// collapsed, ends trimmed), so that a pre-tokenizer that cuts at every
  /// White_Space character (unicode, whitespace) finds the same words in line
  /// as in its normalized form; false when it might change more, or for forms
  /// and flags this does not judge (bert, lowercase, strip-accents). One pass
  /// that skips ASCII 16 bytes at a time and looks each other character up in
  /// a table; counting makes the same check inside its splitter's loop
  /// (framework/text/src/words_inert.hpp) instead of normalizing such lines.
  [[nodiscard]] bool words_unchanged(std::string_view line) const noexcept;

 private:
  // normalize() for a line that unchanged() did not pass.
  void normalize_full(std::string_view line, std::string& out) const;
  void normalize_bert(std::string_view line, std::string& out) const;
  // Whether normalizing would leave line as it is, found in one pass for the
  // forms with an inert-character table; false when it would not or to ask ICU.
  [[nodiscard]] bool unchanged(std::string_view line) const noexcept;

  NormalizerOptions options_;
  const void* icu_normalizer_ = nullptr;  // icu::Normalizer2*, owned by ICU
  const void* nfd_ = nullptr;
  // Two bitmaps over the BMP for the one-pass check (normalizer.cpp's
  // InertCharacters); null: no fast check.
  const std::uint64_t* inert_ = nullptr;
  bool words_judged_ = false;  // whether words_unchanged() can answer true
};

}  // namespace tokenlab
