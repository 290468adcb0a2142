// File: simple_split.hpp
// The word finder of the unicode and whitespace pre-tokenizers, as a template
// over what receives the words. PreTokenizer::split adds the boundary markers
// and calls a std::function; counting passes its table instead, so the lookup
// of every word in the corpus is inlined into the loop that finds it and no
// word is copied to add a marker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tokenlab/utf8.hpp"

namespace tokenlab::detail {

// Character classes for the unicode pre-tokenizer.
enum class CharClass : unsigned char { space, letter, digit, punct, mark };

struct Classified {
  CharClass cls;
  int script;  // UScriptCode for letters, else -1
};

inline constexpr int kLatinScript = 25;  // USCRIPT_LATIN, without ICU's header here

// The class of a code point at or above U+0080, asked of ICU (pre_tokenizer.cpp).
Classified classify_with_icu(char32_t cp);

// Classes of the 128 ASCII characters, computed once: the hot loop's common case.
struct AsciiClasses {
  Classified table[128];
  constexpr AsciiClasses() : table() {
    for (int c = 0; c < 128; ++c) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f')
        table[c] = {CharClass::space, -1};
      else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        table[c] = {CharClass::letter, kLatinScript};
      else if (c >= '0' && c <= '9')
        table[c] = {CharClass::digit, -1};
      else
        table[c] = {CharClass::punct, -1};
    }
  }
};
inline constexpr AsciiClasses kAscii;

// The classes of the BMP, as classify_with_icu gives them, packed: the class
// in bits 0-2 and the script + 1 (0 for none) above, or kAskIcu. Made from ICU
// on the first call (pre_tokenizer.cpp), about 1 ms.
const std::uint16_t* bmp_classes();
inline constexpr std::uint16_t kAskIcu = 0xFFFF;

// The class of a code point at or above U+0080: classify_with_icu's, from the
// table for the BMP. Inline: the splitters' loop over a Hindi or Japanese line
// classifies every character, and fetches bmp once a line.
inline Classified classify_non_ascii(const std::uint16_t* bmp, char32_t cp) {
  if (cp < 0x10000) {
    const std::uint16_t packed = bmp[cp];
    if (packed != kAskIcu)
      return {static_cast<CharClass>(packed & 7u), static_cast<int>(packed >> 3) - 1};
  }
  return classify_with_icu(cp);
}

inline Classified classify_non_ascii(char32_t cp) {
  return classify_non_ascii(bmp_classes(), cp);
}

inline Classified classify(char32_t cp) {
  return cp < 0x80 ? kAscii.table[cp] : classify_non_ascii(cp);
}

// The classes of up to 64 ASCII bytes, one bit per byte (bit k: byte k), for
// finding the words among them without a branch per byte. Punctuation is what
// is none of the three.
struct AsciiChunk {
  std::uint64_t letters = 0;
  std::uint64_t digits = 0;
  std::uint64_t spaces = 0;
  unsigned length = 0;  // bytes classified: up to the first non-ASCII one, at most 64
};

// The chunk's masks from 64 readable bytes at p, and the mask of the bytes at
// or above 0x80, one byte at a time: where SSE2 is missing, and the reference
// the SSE2 form is tested against.
inline AsciiChunk classify_64_bytes_scalar(const char* p, std::uint64_t& non_ascii) noexcept {
  AsciiChunk chunk;
  non_ascii = 0;
  for (unsigned k = 0; k < 64; ++k) {
    const auto byte = static_cast<unsigned char>(p[k]);
    const std::uint64_t bit = std::uint64_t{1} << k;
    if (byte >= 0x80) {
      non_ascii |= bit;
      continue;
    }
    const CharClass cls = kAscii.table[byte].cls;
    if (cls == CharClass::letter) chunk.letters |= bit;
    if (cls == CharClass::digit) chunk.digits |= bit;
    if (cls == CharClass::space) chunk.spaces |= bit;
  }
  return chunk;
}

// classify_64_bytes_scalar, sixteen bytes to an instruction where SSE2 is there.
inline AsciiChunk classify_64_bytes(const char* p, std::uint64_t& non_ascii) noexcept {
#if defined(__SSE2__)
  // Unsigned range checks as signed compares: x in [lo, lo + width) exactly
  // when x + (128 - lo), as a signed byte, is below -128 + width.
  const auto in_range = [](__m128i x, int lo, int width) {
    return _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8(static_cast<char>(128 - lo))),
                          _mm_set1_epi8(static_cast<char>(-128 + width)));
  };
  const auto bits = [](__m128i m) {
    return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m)));
  };
  AsciiChunk chunk;
  non_ascii = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const unsigned shift = 16 * k;
    non_ascii |= bits(v) << shift;
    // Setting bit 5 maps A-Z onto a-z and no other ASCII byte into it. No byte
    // at or above 0x80 falls in any of the three ranges.
    chunk.letters |= bits(in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26)) << shift;
    chunk.digits |= bits(in_range(v, '0', 10)) << shift;
    chunk.spaces |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), in_range(v, '\t', 5)))
                    << shift;
  }
  return chunk;
#else
  return classify_64_bytes_scalar(p, non_ascii);
#endif
}

// Classifies the bytes from p on, of which available are readable.
inline AsciiChunk classify_ascii_chunk(const char* p, std::size_t available) noexcept {
  char padded[64];
  if (available < 64) {  // the end of a line: classify a zero-padded copy
    std::memset(padded, 0, sizeof padded);
    std::memcpy(padded, p, available);
    p = padded;
  }
  std::uint64_t non_ascii = 0;
  AsciiChunk chunk = classify_64_bytes(p, non_ascii);
  const std::size_t length =
      non_ascii == 0 ? 64 : static_cast<std::size_t>(__builtin_ctzll(non_ascii));
  chunk.length = static_cast<unsigned>(length < available ? length : available);
  if (chunk.length < 64) {
    const std::uint64_t kept = (std::uint64_t{1} << chunk.length) - 1;
    chunk.letters &= kept;
    chunk.digits &= kept;
    chunk.spaces &= kept;
  }
  return chunk;
}

// What a splitter may assume of its text: nothing (a PreTokenizer's caller's
// string), or that it is well-formed UTF-8 (counting's lines, which the corpus
// reader checked, and normalized text), which decodes without checks.
enum class Utf8Input { unchecked, well_formed };

// The character at line[i], a non-ASCII byte, as input allows decoding it.
template <Utf8Input input>
utf8::Sequence decode_at(std::string_view line, std::size_t i) noexcept {
  if constexpr (input == Utf8Input::well_formed)
    return utf8::decode_well_formed(reinterpret_cast<const unsigned char*>(line.data()) + i);
  else
    return utf8::decode_sequence(line, i);
}

// Decodes and classifies the non-ASCII character at line[i] into c and len,
// after check accepts it (false if it refuses); a malformed byte stands alone.
// bmp is the class table, fetched at the line's first such character.
template <Utf8Input input, class Check>
bool classify_character_at(std::string_view line, std::size_t i, Check& check,
                           const std::uint16_t*& bmp, Classified& c, std::size_t& len) {
  utf8::Sequence d = decode_at<input>(line, i);
  if (!check.character(d.code_point, d.length)) return false;
  if (d.length == 0) d = {static_cast<unsigned char>(line[i]), 1};
  len = d.length;
  if (bmp == nullptr) bmp = bmp_classes();
  c = classify_non_ascii(bmp, d.code_point);
  return true;
}

// A check on the characters of a line that passes them all: the splitters'
// default. Counting passes WordsInertCheck (words_inert.hpp) instead, so that
// one loop splits a line and finds out whether it needed normalizing.
struct NoCheck {
  void after_ascii(unsigned char /*last_byte*/) noexcept {}
  bool character(char32_t /*c*/, std::size_t /*length*/) noexcept { return true; }
};

// The whitespace pre-tokenizer: words are the runs between White_Space. False
// when check refused a character (the words so far were given).
template <Utf8Input input = Utf8Input::unchecked, class OnWord, class Check = NoCheck>
bool split_at_spaces(std::string_view line, OnWord&& on_word, Check&& check = {}) {
  const std::size_t n = line.size();
  std::size_t start = 0;
  bool in_word = false;
  const std::uint16_t* bmp = nullptr;  // fetched at the first non-ASCII character
  for (std::size_t i = 0; i < n;) {
    const auto byte = static_cast<unsigned char>(line[i]);
    std::size_t len = 1;
    bool space = false;
    if (byte < 0x80) {
      space = kAscii.table[byte].cls == CharClass::space;
      check.after_ascii(byte);
    } else {
      Classified c;
      if (!classify_character_at<input>(line, i, check, bmp, c, len)) return false;
      space = c.cls == CharClass::space;
    }
    if (space) {
      if (in_word) on_word(line.substr(start, i - start), true, true);
      in_word = false;
    } else if (!in_word) {
      start = i;
      in_word = true;
    }
    i += len;
  }
  if (in_word) on_word(line.substr(start, n - start), true, true);
  return true;
}

/// Calls on_word(word, space_before, space_after) for each word of a normalized
/// line, in order: the words of the unicode pre-tokenizer (breaks at white space
/// and between letters of different scripts, digits and punctuation), or with
/// whitespace_only those of the whitespace one. The flags say whether white
/// space (or the line's edge) is on either side, which is where the boundary
/// markers go. A word is a view into line. With a check (WordsInertCheck), it
/// stops and returns false at the first character the check refuses. With
/// Utf8Input::well_formed, line must be well-formed UTF-8.
template <Utf8Input input = Utf8Input::unchecked, class OnWord, class Check = NoCheck>
bool split_simple(std::string_view line, bool whitespace_only, OnWord&& on_word,
                  Check&& check = {}) {
  if (whitespace_only) return split_at_spaces<input>(line, on_word, check);
  const std::uint16_t* bmp = nullptr;  // fetched at the first non-ASCII character
  std::size_t start = 0;               // start of the current word
  bool in_word = false;
  bool space_before = true;  // the line start counts as a space
  CharClass word_class = CharClass::space;
  int word_script = -1;
  const auto flush = [&](std::size_t end, bool space_after) {
    if (in_word) on_word(line.substr(start, end - start), space_before, space_after);
    in_word = false;
    space_before = space_after;
  };
  const std::size_t n = line.size();
  for (std::size_t i = 0; i < n;) {
    const auto byte = static_cast<unsigned char>(line[i]);
    Classified c;
    std::size_t len = 1;
    if (byte < 0x80 && i + 1 < n && static_cast<unsigned char>(line[i + 1]) >= 0x80) {
      // One ASCII byte before a non-ASCII character: most often the space
      // between two words of Hindi, Russian or Arabic, classified alone rather
      // than as a chunk of 64 bytes (a quarter of the instructions of counting
      // Hindi's blocks).
      c = kAscii.table[byte];
      check.after_ascii(byte);
    } else if (byte < 0x80) {
      // ASCII, most of most corpora, up to 64 bytes at once. A byte continues
      // the word before it if both are letters (of a Latin word), digits or
      // punctuation; a word ends where the next byte does not continue it.
      const AsciiChunk chunk = classify_ascii_chunk(line.data() + i, n - i);
      const std::uint64_t punct = ~(chunk.letters | chunk.digits | chunk.spaces);
      const bool latin_word =
          in_word && word_class == CharClass::letter && word_script == kLatinScript;
      const std::uint64_t continues =
          (chunk.letters & ((chunk.letters << 1) | std::uint64_t{latin_word})) |
          (chunk.digits &
           ((chunk.digits << 1) | std::uint64_t{in_word && word_class == CharClass::digit})) |
          (punct & ((punct << 1) | std::uint64_t{in_word && word_class == CharClass::punct}));
      const std::uint64_t kept =
          chunk.length == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << chunk.length) - 1;
      const std::uint64_t ends = ~continues & kept;  // where the word so far ends
      std::uint64_t starts = ends & ~chunk.spaces;
      // Bit k: white space (or the line's start) just before byte k.
      const std::uint64_t space_before_bits = (chunk.spaces << 1) | std::uint64_t{!in_word};
      if (in_word) {
        if (ends == 0) {  // the whole chunk continues the word
          check.after_ascii(static_cast<unsigned char>(line[i + chunk.length - 1]));
          i += chunk.length;
          continue;
        }
        const auto end = static_cast<unsigned>(__builtin_ctzll(ends));
        on_word(line.substr(start, i + end - start), space_before,
                ((chunk.spaces >> end) & 1) != 0);
        in_word = false;
      }
      while (starts != 0) {
        const auto first = static_cast<unsigned>(__builtin_ctzll(starts));
        starts &= starts - 1;
        // (2 << 63) is 0 in unsigned arithmetic: no end after the last byte.
        const std::uint64_t later = ends & ~((std::uint64_t{2} << first) - 1);
        const bool spaced = ((space_before_bits >> first) & 1) != 0;
        if (later == 0) {  // the word runs past the chunk
          in_word = true;
          start = i + first;
          space_before = spaced;
          word_class = ((chunk.letters >> first) & 1) != 0  ? CharClass::letter
                       : ((chunk.digits >> first) & 1) != 0 ? CharClass::digit
                                                            : CharClass::punct;
          word_script = word_class == CharClass::letter ? kLatinScript : -1;
          break;
        }
        const auto end = static_cast<unsigned>(__builtin_ctzll(later));
        on_word(line.substr(i + first, end - first), spaced, ((chunk.spaces >> end) & 1) != 0);
      }
      if (!in_word) space_before = true;  // the chunk ended in white space
      check.after_ascii(static_cast<unsigned char>(line[i + chunk.length - 1]));
      i += chunk.length;
      continue;
    } else if (!classify_character_at<input>(line, i, check, bmp, c, len)) {
      return false;
    }
    if (c.cls == CharClass::space) {
      flush(i, true);
    } else if (!in_word) {
      // A mark at a word start begins a word of its own, which letters continue.
      start = i;
      in_word = true;
      word_class = c.cls == CharClass::mark ? CharClass::letter : c.cls;
      word_script = c.script;
    } else if (c.cls != CharClass::mark &&
               (c.cls != word_class || (c.cls == CharClass::letter && c.script != word_script))) {
      flush(i, false);
      start = i;
      in_word = true;
      word_class = c.cls;
      word_script = c.script;
    }
    i += len;
  }
  flush(n, true);
  return true;
}

}  // namespace tokenlab::detail
