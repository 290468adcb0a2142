// File: regex.hpp
// Regular expressions with the semantics of the originals that real tokenizers
// run (Rust's regex in HF tokenizers, fancy-regex in tiktoken, Oniguruma), on
// ICU, and the pre-tokenization patterns of GPT-style tokenizers as presets.
// The presets are matched by hand-written matchers, checked span for span
// against ICU on every corpus (tests/pretrained/regex_preset_check.cpp).
//
//   Regex o200k(std::string(kO200kPattern));
//   o200k.for_each_match("Hello world", fn);   // fn(0, 5), fn(5, 11)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tokenlab/export.hpp"
#include "tokenlab/unicode_version.hpp"

namespace tokenlab {

/// The pre-tokenization patterns of GPT-style tokenizers, exactly as their files
/// and tiktoken spell them.
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kCl100kPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kO200kPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

/// DeepSeek V3's pre-tokenizer, a Sequence of three Splits (each Isolated)
/// before ByteLevel, as one key: the three patterns as its tokenizer.json spells
/// them, joined by kSplitSeparator (U+001F, which no pattern here contains).
inline constexpr char kSplitSeparator = '\x1F';
inline constexpr std::string_view kDeepSeekV3Splits =
    "\\p{N}{1,3}"
    "\x1F"
    "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+"  // [一-龥぀-ゟ゠-ヿ]+
    "\x1F"
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}"
    "\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

/// The pieces of a preset sequence of splits (kDeepSeekV3Splits): fills ends
/// with the ends of up to capacity consecutive pieces from `from` (a piece's
/// start, 0 for a text's first) and returns how many. Exactly the pieces the
/// splits, each run on ICU, cut; fewer than capacity only at the text's end or
/// at ill-formed UTF-8. Null for any other key. The character classes are
/// version's.
using SplitSequenceRun = std::size_t (*)(std::string_view text, std::size_t from, std::size_t* ends,
                                         std::size_t capacity) noexcept;
TOKENLAB_API SplitSequenceRun split_sequence_run(std::string_view key,
                                                 UnicodeVersion version) noexcept;

/// The pattern of a preset name (gpt2, r50k, p50k, cl100k, llama3, qwen2,
/// o200k), or nullopt.
TOKENLAB_API std::optional<std::string_view> regex_preset(std::string_view name);

/// ICU's time limit for one search, in its time steps (each some 10,000 steps
/// of its match engine, about a millisecond): far above any real pre-tokenization
/// pattern on a line of kMaxLineBytes, far below the hours of a catastrophic one.
inline constexpr std::int32_t kRegexTimeLimit = 5000;
/// ICU's limit on one search's backtracking memory (its default, made explicit).
inline constexpr std::int32_t kRegexStackBytes = 8 << 20;

/// A compiled pattern with the semantics of Rust's regex and Oniguruma, on ICU:
/// `\s` is the White_Space property (ICU's lacks U+000B and U+0085). Its
/// character classes are those of a Unicode version (unicode_version.hpp):
/// ICU's own, or 16.0's general categories, Alphabetic, `\w` and `\d` (scripts
/// and other properties stay ICU's).
/// Thread-safe: each thread gets its own matcher.
/// A search that passes kRegexTimeLimit or kRegexStackBytes throws Error (naming
/// the pattern and the offset): it never ends the matches early in silence.
class TOKENLAB_API Regex {
 public:
  /// Throws Error with ICU's message and the offset of the problem in pattern.
  explicit Regex(std::string pattern, UnicodeVersion version = UnicodeVersion::library);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// Calls fn(start, end) with the byte offsets of each non-overlapping,
  /// leftmost-first match in text, in order. Empty matches are skipped.
  template <class Fn>
  void for_each_match(std::string_view text, Fn&& fn) const {
    std::size_t start = 0;
    std::size_t end = 0;
    std::size_t from = 0;
    std::size_t ends[kRunCapacity];
    while (from < text.size()) {
      if (preset_run_) {  // as many matches as the hand-made matcher decides
        const std::size_t count = preset_run_(text, from, ends, kRunCapacity);
        for (std::size_t i = 0; i < count; ++i) {
          fn(from, ends[i]);
          from = ends[i];
        }
        if (count == kRunCapacity || from >= text.size()) continue;
      }
      if (!next_match(text, from, start, end)) break;
      if (end > start) fn(start, end);
      from = end > start ? end : end + 1;
    }
  }
  [[nodiscard]] const std::string& pattern() const noexcept { return pattern_; }
  [[nodiscard]] UnicodeVersion unicode_version() const noexcept { return version_; }

 private:
  bool next_match(std::string_view text, std::size_t from, std::size_t& start,
                  std::size_t& end) const;
  [[noreturn]] void fail_match(int status, std::size_t text_bytes, std::size_t from) const;
  std::string pattern_;
  UnicodeVersion version_;
  void* compiled_;  // icu::RegexPattern*
  // A hand-made matcher when pattern_ is one of the presets (ICU is several times
  // slower on them); it leaves ill-formed UTF-8 to ICU.
  std::size_t (*preset_)(std::string_view, std::size_t) noexcept = nullptr;
  // The same matcher, many matches a call (the GPT-style presets).
  static constexpr std::size_t kRunCapacity = 64;
  std::size_t (*preset_run_)(std::string_view, std::size_t, std::size_t*,
                             std::size_t) noexcept = nullptr;
};

}  // namespace tokenlab
