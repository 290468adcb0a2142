// File: preset_matchers.hpp (private to tokenlab_pretrained)
// Hand-made matchers for the GPT-style pre-tokenization patterns (kGpt2Pattern,
// kCl100kPattern, kQwen2Pattern, kO200kPattern), which ICU's backtracking engine
// runs several times slower. Each gives exactly the span ICU gives for the same
// pattern after to_icu_syntax; tests/pretrained/regex_preset_check.cpp is the
// proof, on real corpora, random stress text and every code point.
//
//   if (auto match = find_preset_matcher(pattern)) end = match(text, from);
#pragma once

#include <cstddef>
#include <string_view>

#include "tokenlab/unicode_version.hpp"

namespace tokenlab::detail {

/// The end of the match that starts at from (from < text.size()): these patterns
/// match at every position, so the leftmost match always starts there. Returns
/// kPresetUndecided when a character it had to look at is not well-formed UTF-8
/// (ICU, which reads such bytes as U+FFFD, must decide that match).
using PresetMatcher = std::size_t (*)(std::string_view text, std::size_t from) noexcept;
inline constexpr std::size_t kPresetUndecided = static_cast<std::size_t>(-1);

/// The matcher of a pattern equal byte for byte to one of the presets, or nullptr;
/// its character classes are version's.
PresetMatcher find_preset_matcher(std::string_view pattern, UnicodeVersion version) noexcept;

/// Writes the ends of up to capacity consecutive matches from `from` (the first
/// starts there, each next one where the last ended) and returns how many; fewer
/// than capacity at the end of the text or before a match the matcher leaves
/// undecided (kPresetUndecided), which the caller gives to ICU.
using PresetRun = std::size_t (*)(std::string_view text, std::size_t from, std::size_t* ends,
                                  std::size_t capacity) noexcept;

/// The batched matcher of the GPT-style presets (not the unicode-words pattern),
/// or nullptr.
PresetRun find_preset_run(std::string_view pattern, UnicodeVersion version) noexcept;

/// The pieces of a preset sequence of Isolated splits (kDeepSeekV3Splits), as
/// a PresetRun: consecutive pieces that tile the text from a piece's start.
/// It stops short only at ill-formed UTF-8, which no ICU pattern stands behind.
PresetRun find_split_sequence_run(std::string_view key, UnicodeVersion version) noexcept;

}  // namespace tokenlab::detail
