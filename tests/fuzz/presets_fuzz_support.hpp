// The differential check of the regex presets' fuzz target (presets_fuzz.cpp),
// shared with the replay test: the hand-written matchers of the presets (gpt2,
// cl100k, qwen2, o200k) and of DeepSeek V3's sequence of splits against ICU
// running the same patterns, wrapped in (?:...) so that they are no presets. The
// sequence's matcher is compared on well-formed UTF-8 only, the one text its
// fused encoder is given; on other text it must stop before the first ill-formed
// byte.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/icu_split_sequence.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::fuzz::presets_detail {

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

inline Spans matches(const tokenlab::Regex& regex, std::string_view text) {
  Spans spans;
  regex.for_each_match(text, [&](std::size_t s, std::size_t e) { spans.emplace_back(s, e); });
  return spans;
}

struct Pair {
  tokenlab::Regex preset;
  tokenlab::Regex icu;
  explicit Pair(std::string_view pattern)
      : preset(std::string(pattern)), icu("(?:" + std::string(pattern) + ")") {}
};

inline const std::vector<std::unique_ptr<Pair>>& pairs() {
  static const auto all = [] {
    std::vector<std::unique_ptr<Pair>> v;
    for (const auto p : {tokenlab::kGpt2Pattern, tokenlab::kCl100kPattern, tokenlab::kQwen2Pattern,
                         tokenlab::kO200kPattern})
      v.push_back(std::make_unique<Pair>(p));
    return v;
  }();
  return all;
}

}  // namespace tokenlab::fuzz::presets_detail

namespace tokenlab::fuzz {

/// Whether every preset matcher cuts text as ICU does (and DeepSeek V3's
/// sequence, on ill-formed text, stops before the first ill-formed byte).
/// text should end where its allocation does, so that a read past it is caught.
inline bool presets_agree_with_icu(std::string_view text) {
  using presets_detail::matches;
  for (const auto& pair : presets_detail::pairs())
    if (matches(pair->preset, text) != matches(pair->icu, text)) return false;
  const auto run = tokenlab::split_sequence_run(tokenlab::kDeepSeekV3Splits);
  const auto invalid = tokenlab::utf8::find_invalid(text);
  presets_detail::Spans got;
  std::size_t ends[8];
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t count = run(text, from, ends, std::size(ends));
    if (count == 0) break;
    for (std::size_t i = 0; i < count; ++i) {
      if (ends[i] <= from || ends[i] > text.size()) return false;
      got.emplace_back(from, ends[i]);
      from = ends[i];
    }
  }
  if (invalid) return got.empty() || got.back().second <= *invalid;
  static const test::IcuSplitSequence icu(kDeepSeekV3Splits);
  return got == icu.pieces(text);
}

}  // namespace tokenlab::fuzz
