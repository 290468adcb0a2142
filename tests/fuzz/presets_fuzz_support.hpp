// The differential check of the regex presets' fuzz target (presets_fuzz.cpp),
// shared with the replay test: the hand-written matchers of the presets (gpt2,
// cl100k, qwen2, o200k) and of DeepSeek V3's sequence of splits against ICU
// running the same patterns, wrapped in (?:...) so that they are no presets,
// with each Unicode version's classes (tiktoken's and HF's). The
// sequence's matcher is compared on well-formed UTF-8 only, the one text its
// fused encoder is given; on other text it must stop before the first ill-formed
// byte.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/regex_spans.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::fuzz::presets_detail {

inline constexpr UnicodeVersion kVersions[] = {UnicodeVersion::library, UnicodeVersion::v16_0};

struct Pair {
  tokenlab::Regex preset;
  tokenlab::Regex icu;
  Pair(std::string_view pattern, UnicodeVersion unicode)
      : preset(std::string(pattern), unicode), icu("(?:" + std::string(pattern) + ")", unicode) {}
};

inline const std::vector<std::unique_ptr<Pair>>& pairs() {
  static const auto all = [] {
    std::vector<std::unique_ptr<Pair>> v;
    for (const UnicodeVersion unicode : kVersions)
      for (const auto p : {tokenlab::kGpt2Pattern, tokenlab::kCl100kPattern,
                           tokenlab::kQwen2Pattern, tokenlab::kO200kPattern})
        v.push_back(std::make_unique<Pair>(p, unicode));
    return v;
  }();
  return all;
}

}  // namespace tokenlab::fuzz::presets_detail

namespace tokenlab::fuzz {

/// Whether every preset matcher cuts text as ICU does (and DeepSeek V3's
/// sequence, on ill-formed text, stops before the first ill-formed byte).
/// A run whose piece does not move forward throws (test::run_pieces). text
/// should end where its allocation does, so that a read past it is caught.
inline bool presets_agree_with_icu(std::string_view text) {
  for (const auto& pair : presets_detail::pairs())
    if (test::spans_of(pair->preset, text) != test::spans_of(pair->icu, text)) return false;
  const auto invalid = tokenlab::utf8::find_invalid(text);
  static const test::IcuSplitSequence icu[] = {
      test::IcuSplitSequence(kDeepSeekV3Splits, UnicodeVersion::library),
      test::IcuSplitSequence(kDeepSeekV3Splits, UnicodeVersion::v16_0)};
  for (std::size_t v = 0; v < 2; ++v) {
    const auto run = tokenlab::split_sequence_run(kDeepSeekV3Splits, presets_detail::kVersions[v]);
    const test::Spans got = test::run_pieces(run, text, 8);
    if (invalid) {
      if (!got.empty() && got.back().second > *invalid) return false;
    } else if (got != icu[v].pieces(text)) {
      return false;
    }
  }
  return true;
}

}  // namespace tokenlab::fuzz
