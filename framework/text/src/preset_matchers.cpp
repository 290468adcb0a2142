#include "preset_matchers.hpp"

#include <unicode/uchar.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "simple_split.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/unicode_version.hpp"
#include "tokenlab/unicode_words.hpp"

namespace tokenlab::detail {
namespace {

// Character classes as bits, so that each class of the patterns is one mask test.
// kValid is set on every decoded character: a zero class means "no character"
// (end of text or ill-formed UTF-8), which the negated classes must not accept.
enum : std::uint8_t {
  kValid = 1,
  kL = 2,       // \p{L}
  kN = 4,       // \p{N}: Nd, Nl and No
  kWs = 8,      // \s, the White_Space property (as to_icu_syntax spells it)
  kUpper = 16,  // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kLower = 32,  // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
  kCrLf = 64,   // [\r\n]
  kPS = 128,    // [\p{P}\p{S}]
};

constexpr std::array<std::uint8_t, 128> make_ascii_classes() {
  std::array<std::uint8_t, 128> classes{};
  for (int c = 0; c < 128; ++c) {
    std::uint8_t bits = kValid;
    if (c >= 'A' && c <= 'Z') bits |= kL | kUpper;
    if (c >= 'a' && c <= 'z') bits |= kL | kLower;
    if (c >= '0' && c <= '9') bits |= kN;
    if ((c >= '\t' && c <= '\r') || c == ' ') bits |= kWs;
    if (c == '\r' || c == '\n') bits |= kCrLf;
    // Every printable ASCII character that is not a letter or digit is P or S.
    if (c > ' ' && c < 0x7F && (bits & (kL | kN)) == 0) bits |= kPS;
    classes[static_cast<std::size_t>(c)] = bits;
  }
  return classes;
}
constexpr std::array<std::uint8_t, 128> kAsciiClasses = make_ascii_classes();

std::uint8_t classify_with_icu(char32_t c, UnicodeVersion version) noexcept {
  const auto cp = static_cast<UChar32>(c);
  const std::uint32_t gc = general_category_mask(c, version);
  std::uint8_t bits = kValid;
  if (gc & U_GC_L_MASK) bits |= kL;
  if (gc & U_GC_N_MASK) bits |= kN;
  if (gc & (U_GC_LU_MASK | U_GC_LT_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK))
    bits |= kUpper;
  if (gc & (U_GC_LL_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK)) bits |= kLower;
  if (gc & (U_GC_P_MASK | U_GC_S_MASK)) bits |= kPS;
  // Every White_Space character is a separator or a control (U+0085), so the
  // property lookup, slower than the category's, runs only for those. (No
  // version since 6.0 has changed White_Space.)
  if ((gc & (U_GC_Z_MASK | U_GC_CC_MASK)) && u_hasBinaryProperty(cp, UCHAR_WHITE_SPACE))
    bits |= kWs;
  return bits;
}

// classify_with_icu for every BMP character, made on the first one (about a
// millisecond): two ICU calls a character were most of the time Hindi and
// Japanese took to pre-tokenize. One table a Unicode version, each made when
// first needed.
template <UnicodeVersion kVersion>
struct BmpClasses {
  std::array<std::uint8_t, 0x10000> bits{};
  BmpClasses() noexcept {
    // ICU's classes, then 16.0's where its table changes them (a few hundred
    // BMP characters): classify_with_icu for 16.0 looks every character up in
    // that table, which would double the millisecond.
    for (char32_t cp = 0; cp < 0x10000; ++cp)
      bits[cp] = classify_with_icu(cp, UnicodeVersion::library);
    if (kVersion == UnicodeVersion::library) return;
    std::size_t count = 0;
    const UnicodeChange* rows = unicode_16_changes(count);
    for (std::size_t i = 0; i < count && rows[i].first < 0x10000; ++i)
      for (char32_t cp = rows[i].first; cp <= rows[i].last && cp < 0x10000; ++cp)
        bits[cp] = classify_with_icu(cp, kVersion);
  }
  static const BmpClasses& get() noexcept {
    static const BmpClasses table;  // thread-safe, once
    return table;
  }
};

std::uint8_t classify(char32_t c, UnicodeVersion version) noexcept {
  if (c >= 0x10000) return classify_with_icu(c, version);
  if (version == UnicodeVersion::v16_0) return BmpClasses<UnicodeVersion::v16_0>::get().bits[c];
  return BmpClasses<UnicodeVersion::library>::get().bits[c];
}

struct Char {
  char32_t cp = 0;
  std::uint8_t size = 0;  // 0: no character
  std::uint8_t bits = 0;
};

class Text {
 public:
  Text(std::string_view text, UnicodeVersion version) noexcept
      : data_(reinterpret_cast<const unsigned char*>(text.data())),
        size_(text.size()),
        version_(version) {}

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const unsigned char* bytes() const noexcept { return data_; }
  [[nodiscard]] bool ill_formed() const noexcept { return ill_formed_; }

  // The character at i; none at the end or where the bytes are not well-formed
  // UTF-8 (Unicode's table 3-7), which is remembered, since then ICU decides.
  // The ASCII case is inlined into every loop; the rest is out of line.
  [[gnu::always_inline]] Char at(std::size_t i) noexcept {
    if (i < size_ && data_[i] < 0x80) return {data_[i], 1, kAsciiClasses[data_[i]]};
    return at_multibyte(i);
  }

 private:
  [[gnu::noinline]] Char at_multibyte(std::size_t i) noexcept {
    if (i >= size_) return {};
    const unsigned char b0 = data_[i];
    const std::size_t left = size_ - i;
    char32_t cp = 0;
    std::uint8_t size = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF && left >= 2 && is_tail(data_[i + 1])) {
      cp = ((b0 & 0x1Fu) << 6) | (data_[i + 1] & 0x3Fu);
      size = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF && left >= 3 && is_tail(data_[i + 1]) &&
               is_tail(data_[i + 2])) {
      cp = ((b0 & 0x0Fu) << 12) | ((data_[i + 1] & 0x3Fu) << 6) | (data_[i + 2] & 0x3Fu);
      if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) size = 3;
    } else if (b0 >= 0xF0 && b0 <= 0xF4 && left >= 4 && is_tail(data_[i + 1]) &&
               is_tail(data_[i + 2]) && is_tail(data_[i + 3])) {
      cp = ((b0 & 0x07u) << 18) | ((data_[i + 1] & 0x3Fu) << 12) | ((data_[i + 2] & 0x3Fu) << 6) |
           (data_[i + 3] & 0x3Fu);
      if (cp >= 0x10000 && cp <= 0x10FFFF) size = 4;
    }
    if (size == 0) {
      ill_formed_ = true;
      return {};
    }
    return {cp, size, classify(cp, version_)};
  }

  static bool is_tail(unsigned char b) noexcept { return (b & 0xC0u) == 0x80u; }

  const unsigned char* data_;
  std::size_t size_;
  UnicodeVersion version_;
  bool ill_formed_ = false;
};

// The classes as function objects (not functions), so that each run<Pred> is
// its own instantiation with the test inlined, not a call per character.
constexpr auto letter = [](Char c) noexcept { return (c.bits & kL) != 0; };
constexpr auto number = [](Char c) noexcept { return (c.bits & kN) != 0; };
constexpr auto space = [](Char c) noexcept { return (c.bits & kWs) != 0; };
constexpr auto upper = [](Char c) noexcept { return (c.bits & kUpper) != 0; };
constexpr auto lower = [](Char c) noexcept { return (c.bits & kLower) != 0; };
constexpr auto crlf = [](Char c) noexcept { return (c.bits & kCrLf) != 0; };
// [^\s\p{L}\p{N}]
constexpr auto symbol = [](Char c) noexcept {
  return (c.bits & (kValid | kL | kN | kWs)) == kValid;
};
// [^\r\n\p{L}\p{N}]
constexpr auto prefix = [](Char c) noexcept {
  return (c.bits & (kValid | kL | kN | kCrLf)) == kValid;
};
constexpr auto crlf_or_slash = [](Char c) noexcept { return crlf(c) || c.cp == U'/'; };

template <class TextT, class Pred>
std::size_t run(TextT& text, std::size_t i, Pred pred) noexcept {
  for (Char c = text.at(i); pred(c); c = text.at(i)) i += c.size;
  return i;
}

// ICU matches (?i:...) by full case folding of the text: besides the ASCII case
// pairs, only U+017F LONG S folds to one of these letters (to s; the check's scan
// of every code point confirms it). U+212A KELVIN SIGN folds to k, which none of
// the contractions has.
template <bool kIgnoreCase>
char32_t fold(char32_t c) noexcept {
  if constexpr (kIgnoreCase) {
    if (c < 0x80) return c | 0x20u;  // only A-Z change, and only to what they fold to
    if (c == 0x17F) return U's';
  }
  return c;
}

// 's|'t|'re|'ve|'m|'ll|'d at i (they differ at their second letter, so order does
// not matter): the end of the match, or i.
template <bool kIgnoreCase>
std::size_t contraction(Text& text, std::size_t i) noexcept {
  const Char quote = text.at(i);
  if (quote.cp != U'\'') return i;
  const Char c1 = text.at(i + 1);
  if (c1.size == 0) return i;
  const std::size_t after1 = i + 1 + c1.size;
  const char32_t f1 = fold<kIgnoreCase>(c1.cp);
  if (f1 == U's' || f1 == U't' || f1 == U'm' || f1 == U'd') return after1;
  if (f1 != U'r' && f1 != U'v' && f1 != U'l') return i;
  const Char c2 = text.at(after1);
  if (c2.size == 0) return i;
  const char32_t f2 = fold<kIgnoreCase>(c2.cp);
  return f2 == (f1 == U'l' ? U'l' : U'e') ? after1 + c2.size : i;
}

// The white-space alternatives, at a white-space character c0 at p: first
// \s*[\r\n]+ (when with_newlines), which backtracks to the last \r or \n of the
// run; then \s+(?!\S), which gives the run's last character back unless the run
// ends the text or has only that one; then \s+.
// The text's end is where at() gives no character: for a SegmentText (below),
// the end of the piece an earlier split cut, which the lookahead cannot see past.
template <bool kWithNewlines, class TextT>
std::size_t white_space(TextT& text, std::size_t p, Char c0) noexcept {
  std::size_t last = p;
  std::size_t after_newline = 0;
  std::size_t i = p;
  Char c = c0;
  for (; space(c); c = text.at(i)) {
    last = i;
    i += c.size;
    if (kWithNewlines && crlf(c)) after_newline = i;
  }
  if (kWithNewlines && after_newline != 0) return after_newline;
  if (c.size == 0 || last == p) return i;
  return last;
}

// ` ?X+`: the optional space is taken only when X follows it. Returns p when no X.
template <class TextT, class Pred>
std::size_t space_then_run(TextT& text, std::size_t p, Char c0, Pred pred) noexcept {
  if (c0.cp == U' ') {
    const Char c1 = text.at(p + 1);
    if (pred(c1)) return run(text, p + 1 + c1.size, pred);
  }
  return pred(c0) ? run(text, p + c0.size, pred) : p;
}

std::size_t numbers(Text& text, std::size_t p, Char c0, int most) noexcept {
  std::size_t i = p + c0.size;
  for (int n = 1; n < most; ++n) {
    const Char c = text.at(i);
    if (!number(c)) break;
    i += c.size;
  }
  return i;
}

// The end of the run of ASCII a-z (or a-z and A-Z) at i, eight bytes a step where eight are
// left: a word's lower-case letters are most of the bytes of English, and the
// byte loop was a fifth of the matcher. For each byte y of the word (the high
// bit masked off, so that no sum carries into the next byte), y + 0x1F has the
// high bit from 'a' (0x61) up and y + 0x05 from '{' (0x7B) up.
// Letters::any_case: A-Z too (cl100k's and GPT-2's letter runs), by setting
// the case bit first (it takes A-Z to a-z and no other ASCII byte into that range).
enum class Letters { lower_case, any_case };
template <Letters kLetters>
std::size_t letter_run(const unsigned char* s, std::size_t i, std::size_t size) noexcept {
  constexpr bool kAnyCase = kLetters == Letters::any_case;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t x;
    std::memcpy(&x, s + i, 8);
    const std::uint64_t y = (kAnyCase ? x | 0x2020202020202020ull : x) & ~kHigh;
    const std::uint64_t lowers = (y + 0x1F1F1F1F1F1F1F1Full) & ~(y + 0x0505050505050505ull) & ~x;
    if (const std::uint64_t other = ~lowers & kHigh; other != 0)
      return i + static_cast<std::size_t>(std::countr_zero(other) >> 3);
  }
  while (i < size && static_cast<unsigned>((kAnyCase ? s[i] | 0x20 : s[i]) - 'a') < 26u) ++i;
  return i;
}

// The word alternatives where ASCII bytes alone decide them, the shape of most
// matches in English: an optional ASCII prefix character (kAllowed: not a
// letter, digit, CR or LF), then ASCII letters, then an ASCII byte that cannot
// continue the match. Returns the end, or 0 to run the full matcher (no letter,
// a non-ASCII byte that may be a letter or a mark, or, where a contraction may
// follow the word, an apostrophe). kCaseRuns: o200k's A-Z* then a-z* (both of
// its word alternatives give exactly that on ASCII letters); else any letters.
template <bool kCaseRuns>
std::size_t ascii_word(const Text& text, std::size_t p) noexcept {
  const unsigned char* s = text.bytes();
  const std::size_t size = text.size();
  const auto is_upper = [](unsigned char b) { return static_cast<unsigned>(b - 'A') < 26u; };
  const auto is_lower = [](unsigned char b) { return static_cast<unsigned>(b - 'a') < 26u; };
  std::size_t i = p;
  const unsigned char c0 = s[i];
  if (!is_upper(c0) && !is_lower(c0)) {
    if (c0 >= 0x80 || c0 == '\r' || c0 == '\n' || static_cast<unsigned>(c0 - '0') < 10u) return 0;
    ++i;
  }
  const std::size_t letters = i;
  if constexpr (kCaseRuns) {
    while (i < size && is_upper(s[i])) ++i;
    i = letter_run<Letters::lower_case>(s, i, size);
  } else {
    i = letter_run<Letters::any_case>(s, i, size);
  }
  if (i == letters) return 0;
  if (i < size && (s[i] >= 0x80 || (kCaseRuns && s[i] == '\''))) return 0;
  return i;
}

// The number and punctuation alternatives where ASCII bytes alone decide them,
// for o200k and cl100k once ascii_word has not matched: \p{N}{1,3} on ASCII
// digits (kMostDigits: 1 for Qwen 2's \p{N}), and ` ?[^\s\p{L}\p{N}]+` then [\r\n/]* (o200k) or
// [\r\n]* (cl100k) on ASCII punctuation. A word alternative would win at p only with letters after
// the first character, so a letter there sends it back (0), as does a
// non-ASCII byte where the run could go on (a digit or symbol of another
// script).
template <bool kSlash, int kMostDigits>
std::size_t ascii_number_or_symbols(const Text& text, std::size_t p) noexcept {
  const unsigned char* s = text.bytes();
  const std::size_t size = text.size();
  const auto digit = [](unsigned char b) { return static_cast<unsigned>(b - '0') < 10u; };
  const auto ascii_symbol = [](unsigned char b) {
    return b < 0x80 && (kAsciiClasses[b] & (kL | kN | kWs)) == 0;
  };
  std::size_t i = p;
  if (digit(s[i])) {
    for (int n = 0; n < kMostDigits && i < size && digit(s[i]); ++n) ++i;
    return i - p < static_cast<std::size_t>(kMostDigits) && i < size && s[i] >= 0x80 ? 0 : i;
  }
  if (s[i] == ' ') ++i;
  if (i >= size || !ascii_symbol(s[i])) return 0;
  const std::size_t first = i++;
  if (first == p && i < size && (kAsciiClasses[s[i] & 0x7F] & kL) != 0 && s[i] < 0x80) return 0;
  while (i < size && ascii_symbol(s[i])) ++i;
  if (i < size && s[i] >= 0x80) return 0;
  while (i < size && (s[i] == '\r' || s[i] == '\n' || (kSlash && s[i] == '/'))) ++i;
  return i;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t match_gpt2(Text& text, std::size_t p) noexcept {
  const Char c0 = text.at(p);
  if (c0.size == 0) return p;
  if (const std::size_t end = contraction<false>(text, p); end != p) return end;
  // The three classes are disjoint, so at most one of them follows.
  if (std::size_t end = space_then_run(text, p, c0, letter); end != p) return end;
  if (std::size_t end = space_then_run(text, p, c0, number); end != p) return end;
  if (std::size_t end = space_then_run(text, p, c0, symbol); end != p) return end;
  return white_space<false>(text, p, c0);
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,most}|
//  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
template <int kMostDigits>
std::size_t match_cl100k(Text& text, std::size_t p) noexcept {
  // A contraction at p comes first; elsewhere an apostrophe ends a word.
  if (p < text.size() && text.bytes()[p] != '\'') {
    if (const std::size_t end = ascii_word<false>(text, p); end != 0) return end;
    if (const std::size_t end = ascii_number_or_symbols<false, kMostDigits>(text, p); end != 0)
      return end;
  }
  const Char c0 = text.at(p);
  if (c0.size == 0) return p;
  if (const std::size_t end = contraction<true>(text, p); end != p) return end;
  // The optional character is given back when no letter follows it, but then c0
  // is no letter either.
  if (prefix(c0)) {
    const Char c1 = text.at(p + c0.size);
    if (letter(c1)) return run(text, p + c0.size + c1.size, letter);
  }
  if (letter(c0)) return run(text, p + c0.size, letter);
  if (number(c0)) return numbers(text, p, c0, kMostDigits);
  if (std::size_t end = space_then_run(text, p, c0, symbol); end != p) return run(text, end, crlf);
  return white_space<true>(text, p, c0);
}

// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ from s, with the
// contraction after it: the end, or 0 when it does not match. The classes share
// Lm, Lo and M, so when no lower-class character follows the greedy star, it gives
// back characters down to its last one of the shared kinds, which alone (the ones
// after it are Lu or Lt) then makes the plus.
std::size_t lower_word(Text& text, std::size_t s) noexcept {
  std::size_t i = s;
  std::size_t after_shared = 0;
  Char c = text.at(i);
  for (; upper(c); c = text.at(i)) {
    i += c.size;
    if (lower(c)) after_shared = i;
  }
  std::size_t end = 0;
  if (lower(c)) {
    end = run(text, i + c.size, lower);
  } else if (after_shared != 0) {
    end = after_shared;
  } else {
    return 0;
  }
  return contraction<true>(text, end);
}

// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* from s, with the
// contraction after it: the end, or 0 when it does not match.
std::size_t upper_word(Text& text, std::size_t s) noexcept {
  const std::size_t i = run(text, s, upper);
  if (i == s) return 0;
  return contraction<true>(text, run(text, i, lower));
}

// [^\r\n\p{L}\p{N}]?UPPER*LOWER+(?i:...)?|[^\r\n\p{L}\p{N}]?UPPER+LOWER*(?i:...)?|
// \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
std::size_t match_o200k(Text& text, std::size_t p) noexcept {
  if (p < text.size()) {
    if (const std::size_t end = ascii_word<true>(text, p); end != 0) return end;
    if (const std::size_t end = ascii_number_or_symbols<true, 3>(text, p); end != 0) return end;
  }
  const Char c0 = text.at(p);
  if (c0.size == 0) return p;
  // Each word alternative tries its optional character first, then without it
  // (c0 may be a mark, which the word classes take too).
  const bool has_prefix = prefix(c0);
  if (has_prefix) {
    if (const std::size_t end = lower_word(text, p + c0.size); end != 0) return end;
  }
  if (const std::size_t end = lower_word(text, p); end != 0) return end;
  if (has_prefix) {
    if (const std::size_t end = upper_word(text, p + c0.size); end != 0) return end;
  }
  if (const std::size_t end = upper_word(text, p); end != 0) return end;
  if (number(c0)) return numbers(text, p, c0, 3);
  if (std::size_t end = space_then_run(text, p, c0, symbol); end != p)
    return run(text, end, crlf_or_slash);
  return white_space<true>(text, p, c0);
}

// DeepSeek V3's pre-tokenizer: three Splits, each Isolated, so that each cuts
// the pieces of the one before and keeps both its matches and what lies
// between them as pieces:
//   1. \p{N}{1,3}: runs of numbers, three at a time from each run's start;
//   2. [一-龥぀-ゟ゠-ヿ]+: runs of U+4E00..U+9FA5 and U+3040..U+30FF (no number
//      lies in them, so they only cut the pieces between the numbers);
//   3. a word pattern (match_deepseek_words below), in each piece of the second.
// A piece of the second split is a maximal run of characters of one kind:
// numbers, the two ranges, or the rest. SegmentText shows the third pattern
// only the run it starts in, by giving no character past it, as if the text
// ended there (its lookahead \s+(?!\S) must not see past a piece's end).
bool in_cjk_ranges(char32_t c) noexcept {
  return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FA5);
}

class SegmentText {
 public:
  SegmentText(Text& text, bool cjk) noexcept : text_(text), cjk_(cjk) {}
  [[gnu::always_inline]] Char at(std::size_t i) noexcept {
    const Char c = text_.at(i);
    if ((c.bits & kN) != 0) return {};
    if (cjk_ ? !in_cjk_ranges(c.cp) : c.cp >= 0x3040 && in_cjk_ranges(c.cp)) return {};
    return c;
  }

 private:
  Text& text_;
  bool cjk_;
};

constexpr auto letter_or_mark = [](Char c) noexcept {
  return (c.bits & kL) != 0 || (c.bits & (kUpper | kLower)) == (kUpper | kLower);
};
constexpr auto punct_or_symbol = [](Char c) noexcept { return (c.bits & kPS) != 0; };
// [^\r\n\p{L}\p{P}\p{S}]
constexpr auto deepseek_prefix = [](Char c) noexcept {
  return (c.bits & (kValid | kL | kPS | kCrLf)) == kValid;
};

// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//  ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// at p, where c0 (a character of the segment) is: the end, or p when nothing
// matches there.
std::size_t match_deepseek_words(SegmentText& text, std::size_t p, Char c0) noexcept {
  if (c0.cp < 0x80 && punct_or_symbol(c0)) {  // the bracket is all of ASCII's P and S
    std::size_t i = p + 1;
    for (Char c = text.at(i); c.cp < 0x80 && letter(c); c = text.at(i)) ++i;
    if (i > p + 1) return i;
  }
  // The optional character is given back when no letter or mark follows it;
  // then c0 itself must be one.
  if (deepseek_prefix(c0)) {
    const Char c1 = text.at(p + c0.size);
    if (letter_or_mark(c1)) return run(text, p + c0.size + c1.size, letter_or_mark);
  }
  if (letter_or_mark(c0)) return run(text, p + c0.size, letter_or_mark);
  if (std::size_t end = space_then_run(text, p, c0, punct_or_symbol); end != p)
    return run(text, end, crlf);
  if (space(c0)) return white_space<true>(text, p, c0);
  return p;
}

// The next piece of DeepSeek V3's pre-tokenizer from p (a piece's start): its
// end, or p when the text is not well-formed UTF-8 there.
std::size_t deepseek_piece(Text& text, std::size_t p) noexcept {
  const Char c0 = text.at(p);
  if (c0.size == 0) return p;
  if (number(c0)) return numbers(text, p, c0, 3);
  SegmentText segment(text, c0.cp >= 0x3040 && in_cjk_ranges(c0.cp));
  const std::size_t end = match_deepseek_words(segment, p, c0);
  if (end != p) return end;
  // No match at p: what lies before the next match (or the segment's end) is
  // a piece of its own. Only a control, format, private-use or unassigned
  // character not followed by a letter or mark matches nothing.
  std::size_t i = p + c0.size;
  for (Char c = segment.at(i); c.size != 0; c = segment.at(i)) {
    if (match_deepseek_words(segment, i, c) != i) break;
    i += c.size;
  }
  return i;
}

template <std::size_t (*kMatch)(Text&, std::size_t), UnicodeVersion kVersion>
std::size_t checked(std::string_view text, std::size_t from) noexcept {
  Text decoded(text, kVersion);
  const std::size_t end = kMatch(decoded, from);
  return decoded.ill_formed() || end == from ? kPresetUndecided : end;
}

// Consecutive matches from `from` in one call, over one decoded Text: the
// pieces of a line average four bytes, so a call per match cost as much as
// matching.
template <std::size_t (*kMatch)(Text&, std::size_t), UnicodeVersion kVersion>
std::size_t checked_run(std::string_view text, std::size_t from, std::size_t* ends,
                        std::size_t capacity) noexcept {
  Text decoded(text, kVersion);
  std::size_t count = 0;
  while (count < capacity && from < text.size()) {
    const std::size_t end = kMatch(decoded, from);
    if (decoded.ill_formed() || end == from) break;
    ends[count++] = end;
    from = end;
  }
  return count;
}

// unicode_words_pattern's match at from, by the unicode pre-tokenizer's own
// classes (simple_split.hpp), which the pattern spells as properties: an
// optional space, then a word. What the splitter never sees, a second space
// or other white space (the pattern reads it as punctuation) or ill-formed
// UTF-8, is left to ICU.
std::size_t match_unicode_word(std::string_view text, std::size_t from) noexcept {
  std::size_t p = from;
  if (text[p] == ' ') ++p;
  if (p >= text.size()) return kPresetUndecided;
  const auto next = [&](Classified& c) {
    const utf8::Sequence d = utf8::decode_sequence(text, p);
    if (d.length == 0) return false;
    c = detail::classify(d.code_point);  // the splitter's, not this file's classify
    p += d.length;
    return true;
  };
  Classified first{};
  if (!next(first) || first.cls == CharClass::space) return kPresetUndecided;
  while (p < text.size()) {
    const std::size_t before = p;
    Classified c{};
    if (!next(c)) return kPresetUndecided;
    const bool continues =
        c.cls == CharClass::mark || (first.cls != CharClass::mark && c.cls == first.cls &&
                                     (c.cls != CharClass::letter || c.script == first.script));
    if (continues) continue;
    if (c.cls == CharClass::space && text[before] != ' ') return kPresetUndecided;
    return before;
  }
  return p;
}

}  // namespace

namespace {

// The matchers of the presets for one Unicode version.
template <UnicodeVersion kVersion>
PresetRun preset_run_of(std::string_view pattern) noexcept {
  if (pattern == kGpt2Pattern) return checked_run<match_gpt2, kVersion>;
  if (pattern == kCl100kPattern) return checked_run<match_cl100k<3>, kVersion>;
  if (pattern == kQwen2Pattern) return checked_run<match_cl100k<1>, kVersion>;
  if (pattern == kO200kPattern) return checked_run<match_o200k, kVersion>;
  return nullptr;
}

template <UnicodeVersion kVersion>
PresetMatcher preset_matcher_of(std::string_view pattern) noexcept {
  if (pattern == kGpt2Pattern) return checked<match_gpt2, kVersion>;
  if (pattern == kCl100kPattern) return checked<match_cl100k<3>, kVersion>;
  if (pattern == kQwen2Pattern) return checked<match_cl100k<1>, kVersion>;
  if (pattern == kO200kPattern) return checked<match_o200k, kVersion>;
  return nullptr;
}

}  // namespace

PresetRun find_preset_run(std::string_view pattern, UnicodeVersion version) noexcept {
  return version == UnicodeVersion::v16_0 ? preset_run_of<UnicodeVersion::v16_0>(pattern)
                                          : preset_run_of<UnicodeVersion::library>(pattern);
}

PresetRun find_split_sequence_run(std::string_view key, UnicodeVersion version) noexcept {
  if (key != kDeepSeekV3Splits) return nullptr;
  return version == UnicodeVersion::v16_0 ? checked_run<deepseek_piece, UnicodeVersion::v16_0>
                                          : checked_run<deepseek_piece, UnicodeVersion::library>;
}

PresetMatcher find_preset_matcher(std::string_view pattern, UnicodeVersion version) noexcept {
  if (PresetMatcher matcher = version == UnicodeVersion::v16_0
                                  ? preset_matcher_of<UnicodeVersion::v16_0>(pattern)
                                  : preset_matcher_of<UnicodeVersion::library>(pattern))
    return matcher;
  // tokenlab's own unicode pre-tokenizer, as its exported files spell it: its
  // classes are the library's whatever the file's reader (the pattern names
  // scripts, which the 16.0 table does not carry), so that an exported model
  // reads as it was trained. Only a pattern that starts as it does is built and
  // compared (it is long).
  if (pattern.size() > 1000 && pattern.starts_with(R"( ?(?:[[\p{L}\p{Nl}\p{No}]&&)") &&
      pattern == unicode_words_pattern())
    return match_unicode_word;
  return nullptr;
}

}  // namespace tokenlab::detail
