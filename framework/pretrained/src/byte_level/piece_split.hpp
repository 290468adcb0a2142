// File: byte_level/piece_split.hpp (private to tokenlab_pretrained)
// What cuts a text into the pieces a fused byte-level encoder merges: one
// preset pattern (a Regex, which runs its hand-written matcher), or a preset
// sequence of Isolated splits (DeepSeek V3's three, tokenlab/regex.hpp's
// kDeepSeekV3Splits), whose hand-written matcher cuts all three at once. Either
// is named by one key: the pattern, or the sequence's patterns joined by
// kSplitSeparator, which compiled-model entries record.
//
//   PieceSplit split{std::string(kO200kPattern), UnicodeVersion::library};
//   split.for_each_piece("Hello world", fn);   // fn(0, 5), fn(5, 11)
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tokenlab/error.hpp"
#include "tokenlab/regex.hpp"

namespace tokenlab {

class PieceSplit {
 public:
  /// key: a pattern (compiled by Regex, whose errors it throws) or a key
  /// split_sequence_run knows; its classes are unicode's.
  PieceSplit(std::string key, UnicodeVersion unicode)
      : key_(std::move(key)), unicode_(unicode), sequence_(split_sequence_run(key_, unicode)) {
    if (!sequence_) regex_.emplace(key_, unicode);
  }

  [[nodiscard]] const std::string& key() const noexcept { return key_; }
  [[nodiscard]] UnicodeVersion unicode_version() const noexcept { return unicode_; }

  /// Calls fn(start, end) for each piece of text, in order. A sequence's
  /// pieces tile the text; text must be well-formed UTF-8 there (the fused
  /// encoder's contract), else Error.
  template <class Fn>
  void for_each_piece(std::string_view text, Fn&& fn) const {
    if (regex_) {
      regex_->for_each_match(text, fn);
      return;
    }
    std::size_t ends[kRunCapacity];
    std::size_t from = 0;
    while (from < text.size()) {
      const std::size_t count = sequence_(text, from, ends, kRunCapacity);
      if (count == 0)
        throw Error("internal: ill-formed UTF-8 at byte " + std::to_string(from) +
                    " reached a fused byte-level encoder");
      for (std::size_t i = 0; i < count; ++i) {
        fn(from, ends[i]);
        from = ends[i];
      }
    }
  }

 private:
  static constexpr std::size_t kRunCapacity = 64;
  std::string key_;
  UnicodeVersion unicode_;
  SplitSequenceRun sequence_ = nullptr;
  std::optional<Regex> regex_;
};

}  // namespace tokenlab
