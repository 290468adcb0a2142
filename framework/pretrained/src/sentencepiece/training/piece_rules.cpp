// TrainerInterface::IsValidSentencePiece (trainer_interface.cc) and
// unicode_script::GetScript (unicode_script.cc, unicode_script_map.h).
#include <algorithm>
#include <array>

#include "sentencepiece/training/training.hpp"

namespace tokenlab::sentencepiece_detail::training {
namespace {

struct ScriptRange {
  char32_t first, last;
  int script;
};

constexpr ScriptRange kScripts[] = {
#include "sentencepiece/training/unicode_script_table.inc"
};

// The numbers unicode_script_table.inc gives these scripts.
constexpr int kHan = 39;
constexpr int kHiragana = 44;
constexpr int kKatakana = 50;
constexpr int kInherited = 46;
constexpr int kAnyType = -1;

bool is_decimal_number(char32_t c) noexcept {
  return (c >= 0x30 && c <= 0x39) || (c >= 0xff10 && c <= 0xff19);
}

// The script IsValidSentencePiece gives c before the Inherited rule.
int mapped_script(char32_t c, bool split_by_number) noexcept {
  if (!split_by_number && is_decimal_number(c)) return kAnyType;
  const int s = unicode_script(c);
  return s == kHiragana || s == kKatakana || c == 0x30FC ? kHan : s;
}

}  // namespace

bool PieceRules::separates(char32_t a, char32_t b) const {
  if (split_digits_ && (is_decimal_number(a) || is_decimal_number(b))) return true;
  if (!split_by_unicode_script_ || a == kWSChar || b == kWSChar) return false;
  // An Inherited a takes the script of what precedes it in the piece: unknown here.
  if (unicode_script(a) == kInherited || unicode_script(b) == kInherited) return false;
  const int sa = mapped_script(a, split_by_number_);
  const int sb = mapped_script(b, split_by_number_);
  return sa != kAnyType && sb != kAnyType && sa != sb;
}

int unicode_script(char32_t c) noexcept {
  const auto* end = std::end(kScripts);
  const auto* it = std::upper_bound(std::begin(kScripts), end, c,
                                    [](char32_t v, const ScriptRange& r) { return v < r.first; });
  if (it == std::begin(kScripts)) return 0;
  --it;
  return c <= it->last ? it->script : 0;
}

PieceRules::PieceRules(const TrainerSpec& spec)
    : max_length_(static_cast<std::size_t>(spec.max_sentencepiece_length())),
      split_by_whitespace_(spec.split_by_whitespace()),
      treat_whitespace_as_suffix_(spec.treat_whitespace_as_suffix()),
      allow_whitespace_only_(spec.allow_whitespace_only_pieces()),
      split_by_number_(spec.split_by_number()),
      split_digits_(spec.split_digits()),
      split_by_unicode_script_(spec.split_by_unicode_script()) {}

bool PieceRules::valid(std::span<const char32_t> piece) const {
  if (piece.empty() || piece.size() > max_length_) return false;
  const bool all_whitespace =
      std::all_of(piece.begin(), piece.end(), [](char32_t c) { return c == kWSChar; });
  int previous = kAnyType;
  const std::size_t last = piece.size() - 1;
  for (std::size_t pos = 0; pos < piece.size(); ++pos) {
    const char32_t c = piece[pos];
    if (c == kUNKChar || c == 0 || c == kUPPBoundaryChar || c == 0x20) return false;
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
    if (c == kWSChar) {
      // "▁" only as a prefix (or suffix), or inside a piece when sentences are
      // not split at white space; whole-"▁" pieces when allowed.
      if (!allow_whitespace_only_ || !all_whitespace) {
        if (treat_whitespace_as_suffix_) {
          if ((split_by_whitespace_ && pos < last) ||
              (!split_by_whitespace_ && pos < last && pos == 0))
            return false;
        } else if ((split_by_whitespace_ && pos > 0) ||
                   (!split_by_whitespace_ && pos > 0 && pos == last)) {
          return false;
        }
      }
      continue;
    }
    int s = unicode_script(c);
    if (s == kHiragana || s == kKatakana || c == 0x30FC) {
      s = kHan;  // Japanese kana count as Han
    } else if (s == kInherited) {
      s = previous;
    }
    if (!split_by_number_ && is_decimal_number(c)) s = kAnyType;
    if (split_digits_ && is_decimal_number(c) && piece.size() > 1) return false;
    if (split_by_unicode_script_ && s != kAnyType && previous != kAnyType && previous != s)
      return false;
    previous = s;
  }
  return true;
}

}  // namespace tokenlab::sentencepiece_detail::training
