// Internal to tokenlab_pretrained: SentencePiece's precompiled character map,
// shared by the Precompiled normalizer (precompiled.cpp) and the .model reader's
// normalizer (sentencepiece/normalizer.cpp).
//
// The map is SentencePiece's normalizer_spec.precompiled_charsmap, as
// Normalizer::EncodePrecompiledCharsMap writes it (normalizer.cc):
//
//   uint32 LE  trie size in bytes (T)
//   T bytes    a Darts-clone double array: T/4 little-endian uint32 units
//   the rest   the replacement strings, each ended by '\0'; a key's value in the
//              trie is the offset of its replacement in this blob
//
// The trie is walked exactly as Darts::DoubleArray::commonPrefixSearch walks it,
// over the units as stored, so any map gives what SentencePiece gives. Loading
// validates every state reachable from the root, so a walk never leaves the
// array and every value names a terminated replacement.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenlab::detail {

class CharsMap {
 public:
  /// No rules: every match is empty.
  CharsMap() = default;
  /// Parses and validates blob; throws Error naming where and the byte offset
  /// of the problem.
  CharsMap(std::string blob, const std::string& where);

  [[nodiscard]] bool empty() const noexcept { return units_.empty(); }

  /// SentencePiece's Normalizer::NormalizePrefix trie step: the longest key that
  /// is a prefix of text. Returns its length in bytes (0: none) and sets
  /// replacement.
  std::size_t longest_match(std::string_view text, std::string_view& replacement) const noexcept {
    if (units_.empty()) return 0;
    std::size_t best = 0;
    std::uint32_t best_value = 0;
    const std::uint32_t* units = units_.data();
    std::uint32_t pos = offset(units[0]);
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      pos ^= c;
      const std::uint32_t unit = units[pos];
      if (label(unit) != c) break;
      pos ^= offset(unit);
      if (has_leaf(unit)) {
        best = i + 1;
        best_value = value(units[pos]);
      }
    }
    if (best != 0) replacement = replacement_at(best_value);
    return best;
  }

  /// spm_precompiled's Precompiled::transform (what HF tokenizers runs): the
  /// shortest key that is a prefix of text, the search stopping at a NUL byte.
  bool shortest_match(std::string_view text, std::string_view& replacement) const noexcept {
    if (units_.empty()) return false;
    const std::uint32_t* units = units_.data();
    std::uint32_t pos = offset(units[0]);
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == 0) return false;
      pos ^= c;
      const std::uint32_t unit = units[pos];
      if (label(unit) != c) return false;
      pos ^= offset(unit);
      if (has_leaf(unit)) {
        replacement = replacement_at(value(units[pos]));
        return true;
      }
    }
    return false;
  }

  /// Whether some rule starts with the byte c (else no match can start there).
  [[nodiscard]] bool may_start(unsigned char c) const noexcept { return starts_[c]; }
  /// For an ASCII byte c: no rule is c alone or c followed by an ASCII byte, so
  /// nothing matches at c when the next byte is ASCII or the text ends there
  /// (nmt_nfkc's rules for letters all continue with combining marks).
  [[nodiscard]] bool ascii_safe(unsigned char c) const noexcept { return ascii_safe_[c]; }

  /// For a well-formed character of 2 to 4 bytes decoded as code_point, whose
  /// lead byte is lead: no rule matches where it starts, whatever follows (so
  /// NormalizePrefix copies it). A bit per BMP code point, read in the
  /// normalizer's loop instead of walking the trie for every character.
  [[nodiscard]] bool no_rule_at(char32_t code_point, unsigned char lead) const noexcept {
    if (code_point >= 0x10000) return !starts_[lead];
    return units_.empty() || ((ruled_bmp_[code_point >> 6] >> (code_point & 63)) & 1) == 0;
  }

  /// Bits word * 64 to word * 64 + 63 of no_rule_at's table for the BMP (word
  /// < 1024): set where a code point's bytes begin some rule's key, or some
  /// key is a prefix of them; all clear when there are no rules.
  [[nodiscard]] std::uint64_t ruled_bmp_word(std::size_t word) const noexcept {
    return units_.empty() ? 0 : ruled_bmp_[word];
  }

  /// The number of double-array units and of rules (keys), for describe().
  [[nodiscard]] std::size_t unit_count() const noexcept { return units_.size(); }
  [[nodiscard]] std::size_t rule_count() const noexcept { return rules_; }
  /// The replacement blob is valid UTF-8 (HF refuses maps whose blob is not).
  [[nodiscard]] bool replacements_are_utf8() const noexcept { return replacements_utf8_; }

 private:
  // Darts-clone's DoubleArrayUnit.
  static bool has_leaf(std::uint32_t unit) noexcept { return ((unit >> 8) & 1) == 1; }
  static std::uint32_t value(std::uint32_t unit) noexcept { return unit & ((1U << 31) - 1); }
  static std::uint32_t label(std::uint32_t unit) noexcept { return unit & ((1U << 31) | 0xFF); }
  static std::uint32_t offset(std::uint32_t unit) noexcept {
    return (unit >> 10) << ((unit & (1U << 9)) >> 6);
  }
  // The units that are some state's child, grouped by that state's base:
  // units[first[b]] to units[first[b + 1]] are the children of base b, in label
  // order.
  struct ChildIndex {
    std::vector<std::uint32_t> first;
    std::vector<std::uint32_t> units;
  };
  static ChildIndex index_children(const std::vector<std::uint32_t>& units);
  // Darts' transition from walk position pos by byte c (longest_match's step):
  // false when there is none; leaf: a key ends there.
  bool step(std::uint32_t& pos, unsigned char c, bool& leaf) const noexcept {
    pos ^= c;
    const std::uint32_t unit = units_[pos];
    if (label(unit) != c) return false;
    pos ^= offset(unit);
    leaf = has_leaf(unit);
    return true;
  }
  void index_bmp_characters();

  std::string_view replacement_at(std::uint32_t at) const noexcept {
    // Validated when loading: at < normalized_.size(), and a '\0' follows.
    return std::string_view(normalized_.data() + at);
  }

  std::vector<std::uint32_t> units_;
  std::string normalized_;
  std::array<bool, 256> starts_{};
  std::array<bool, 256> ascii_safe_{};
  // A bit per BMP code point: some rule's key is a prefix of the character's
  // bytes, or continues past them.
  std::vector<std::uint64_t> ruled_bmp_;
  std::size_t rules_ = 0;
  bool replacements_utf8_ = true;
};

/// SentencePiece's handling of one character when no rule matches
/// (Normalizer::NormalizePrefix): a well-formed UTF-8 sequence is copied; an
/// ill-formed byte becomes U+FFFD and consumes that one byte.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

}  // namespace tokenlab::detail
