// What HF's Sequence of Isolated splits makes of a text, each pattern run on
// ICU: the reference that DeepSeek V3's hand-written matcher
// (tokenlab::split_sequence_run) is checked against by
// tests/pretrained/regex_preset_check.cpp and the presets fuzzer.
//
//   const IcuSplitSequence icu(tokenlab::kDeepSeekV3Splits);
//   icu.pieces("Price: 12345")   // {0,5} {5,6} {6,7} {7,10} {10,12}
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/regex.hpp"

namespace tokenlab::test {

class IcuSplitSequence {
 public:
  using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

  /// key: patterns joined by kSplitSeparator. Each is wrapped in (?:...), which
  /// changes none of its matches but keeps Regex from taking it for a preset.
  explicit IcuSplitSequence(std::string_view key) {
    for (std::size_t start = 0; start <= key.size();) {
      const std::size_t end = std::min(key.find(kSplitSeparator, start), key.size());
      stages_.push_back(
          std::make_unique<Regex>("(?:" + std::string(key.substr(start, end - start)) + ")"));
      start = end + 1;
    }
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
