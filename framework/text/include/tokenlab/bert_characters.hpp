// File: bert_characters.hpp
// The character classes of BERT's BasicTokenizer, exactly as Hugging Face
// tokenizers implements them (normalizers/bert.rs, pre_tokenizers/bert.rs), so
// that a BERT vocabulary encodes here as it does there.
//
//   bert::is_punctuation(U'$')      true: ASCII punctuation, although $ is a symbol
//   bert::is_punctuation(U'\u00A3') false: £ is a currency symbol (Sc), not P*
//   bert::is_control(U'\u200B')     true: format characters (Cf) are removed
//   bert::is_chinese(U'\u4E2D')     true: CJK Unified Ideographs get spaces around them
//
// Where these come from:
//  * BERT's tokenization.py defines _is_whitespace, _is_control, _is_punctuation and
//    _is_chinese_char; HF ports them to Rust.
//  * HF takes general categories from the unicode_categories crate, whose tables
//    are Unicode 8.0. A character assigned later (U+2E43 and the rest of the
//    newer punctuation, newer format characters and non-spacing marks) has no
//    category there, so it is neither punctuation nor control nor a mark to HF.
//    We reproduce that with ICU's Unicode age, plus the few characters whose
//    category changed since 8.0 (listed in the source). An exhaustive test
//    compares every code point with HF, cased and uncased: no difference.
//  * Lowercasing is Rust's, whose tables are newer than ICU 72's Unicode 15.0:
//    the normalizer adds the capitals of Unicode 16.0 and 17.0 (normalizer.cpp).
//  * White space is Rust's char::is_whitespace, the current White_Space property,
//    and "Chinese" is HF's list of ranges (which skips U+2B820..U+2B91F).
#pragma once

#include "tokenlab/export.hpp"

namespace tokenlab::bert {

/// Tab, newline, carriage return, or the White_Space property.
[[nodiscard]] TOKENLAB_API bool is_whitespace(char32_t c) noexcept;
/// Cc, Cf or Co in Unicode 8.0, except tab, newline and carriage return. Clean
/// text also removes U+0000 and U+FFFD.
[[nodiscard]] TOKENLAB_API bool is_control(char32_t c) noexcept;
/// ASCII punctuation (all of !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) or P* in Unicode 8.0.
[[nodiscard]] TOKENLAB_API bool is_punctuation(char32_t c) noexcept;
/// HF's CJK ideograph ranges.
[[nodiscard]] TOKENLAB_API bool is_chinese(char32_t c) noexcept;
/// Mn in Unicode 8.0: what strip-accents removes after NFD.
[[nodiscard]] TOKENLAB_API bool is_nonspacing_mark(char32_t c) noexcept;
/// Whether HF's NFD (the unicode-normalization-alignments crate) decomposes c
/// as ICU does: false only for U+11938, whose decomposition came in Unicode 13.
[[nodiscard]] TOKENLAB_API bool decomposes_for_bert(char32_t c) noexcept;

}  // namespace tokenlab::bert
