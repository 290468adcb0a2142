// File: bert_form.hpp (private to the text library)
// The `bert` normalization form of a cleaned line before its white space is
// collapsed, two ways: by ICU over the whole line (the definition), and one
// character at a time from tables made by the first (the fast path). Both
// are here, and exported, so that the tests can hold one to the other.
#pragma once

#include <string>
#include <string_view>

#include "tokenlab/export.hpp"

namespace tokenlab::detail {

/// NFD without the nonspacing marks when strip_accents, then lowercase when
/// lowercase, of line (valid UTF-8) by ICU, as HF's BertNormalizer does them.
[[nodiscard]] TOKENLAB_API std::string bert_form_by_icu(std::string_view line, bool strip_accents,
                                                        bool lowercase);

/// bert_form_by_icu(line, ...) appended to out, character by character: false
/// (out holding part of it) when line holds a character whose form depends on
/// its neighbours, or is not valid UTF-8.
[[nodiscard]] TOKENLAB_API bool bert_form_by_character(std::string_view line, bool strip_accents,
                                                       bool lowercase, std::string& out);

}  // namespace tokenlab::detail
