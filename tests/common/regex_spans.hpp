// Spans of text cut by regexes, for the tests of the hand-written matchers
// (framework/text/src/preset_matchers.cpp): a Regex's matches, a preset
// sequence's pieces (tokenlab::split_sequence_run), and the reference they are
// checked against, what HF's Sequence of Isolated splits makes of a text with
// each pattern run on ICU. Used by tests/pretrained/byte_level_test.cpp,
// tests/pretrained/regex_preset_check.cpp and the presets fuzzer.
//
//   const IcuSplitSequence icu(tokenlab::kDeepSeekV3Splits);
//   icu.pieces("Price: 12345")   // {0,5} {5,6} {6,7} {7,10} {10,12}
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/regex.hpp"

namespace tokenlab::test {

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

/// The [start, end) of each of regex's matches in text, in order.
inline Spans spans_of(const Regex& regex, std::string_view text) {
  Spans spans;
  regex.for_each_match(text, [&](std::size_t s, std::size_t e) { spans.emplace_back(s, e); });
  return spans;
}

/// The patterns of a sequence's key (joined by kSplitSeparator), in order.
inline std::vector<std::string_view> patterns_of(std::string_view key) {
  std::vector<std::string_view> patterns;
  for (std::size_t start = 0; start <= key.size();) {
    const std::size_t end = std::min(key.find(kSplitSeparator, start), key.size());
    patterns.push_back(key.substr(start, end - start));
    start = end + 1;
  }
  return patterns;
}

/// The pieces run gives from the text's start, capacity a call, up to where it
/// stops short (ill-formed UTF-8). An end that does not move past its piece's
/// start, or passes the text's end, is a broken run: std::logic_error.
inline Spans run_pieces(SplitSequenceRun run, std::string_view text, std::size_t capacity = 64) {
  Spans spans;
  std::vector<std::size_t> ends(capacity);
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t count = run(text, from, ends.data(), capacity);
    if (count == 0) break;
    for (std::size_t i = 0; i < count; ++i) {
      if (ends[i] <= from || ends[i] > text.size())
        throw std::logic_error("a split sequence's run gave a piece ending at " +
                               std::to_string(ends[i]) + " after " + std::to_string(from));
      spans.emplace_back(from, ends[i]);
      from = ends[i];
    }
  }
  return spans;
}

class IcuSplitSequence {
 public:
  /// key: patterns joined by kSplitSeparator. Each is wrapped in (?:...), which
  /// changes none of its matches but keeps Regex from taking it for a preset.
  explicit IcuSplitSequence(std::string_view key,
                            UnicodeVersion unicode = UnicodeVersion::library) {
    for (const std::string_view pattern : patterns_of(key))
      stages_.push_back(std::make_unique<Regex>("(?:" + std::string(pattern) + ")", unicode));
  }

  /// Each stage cuts every piece of the one before into its matches and what
  /// lies between them, all kept.
  [[nodiscard]] Spans pieces(std::string_view text) const {
    Spans pieces{{0, text.size()}};
    for (const auto& stage : stages_) {
      Spans cut;
      for (const auto& piece : pieces) {
        // Named copies: clang 14 cannot capture a structured binding.
        const std::size_t begin = piece.first;
        const std::size_t end = piece.second;
        std::size_t at = begin;
        stage->for_each_match(text.substr(begin, end - begin), [&](std::size_t s, std::size_t e) {
          if (begin + s > at) cut.emplace_back(at, begin + s);
          cut.emplace_back(begin + s, begin + e);
          at = begin + e;
        });
        if (end > at) cut.emplace_back(at, end);
      }
      pieces = std::move(cut);
    }
    return pieces;
  }

 private:
  std::vector<std::unique_ptr<Regex>> stages_;
};

}  // namespace tokenlab::test
