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

#include "tokenlab/utf8.hpp"

namespace tokenlab::detail {

// Character classes for the unicode pre-tokenizer.
enum class CharClass : unsigned char { space, letter, digit, punct, mark };

struct Classified {
  CharClass cls;
  int script;  // UScriptCode for letters, else -1
};

inline constexpr int kLatinScript = 25;  // USCRIPT_LATIN, without ICU's header here

// The class of a code point at or above U+0080 (pre_tokenizer.cpp, through ICU).
Classified classify_non_ascii(char32_t cp);

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

inline Classified classify(char32_t cp) {
  return cp < 0x80 ? kAscii.table[cp] : classify_non_ascii(cp);
}

inline constexpr std::uint64_t kAllHigh = 0x8080808080808080ULL;

// 0x80 in each byte of the eight at p that is an ASCII letter, 0 in the others.
// Setting bit 5 maps A-Z onto a-z and nothing else into a-z; with the high bits
// cleared, adding 0x1f (0x05) to a byte sets its high bit exactly when it is at
// least 'a' (past 'z'), and no sum carries into the next byte.
inline std::uint64_t ascii_letters(const char* p) noexcept {
  std::uint64_t x = 0;
  std::memcpy(&x, p, 8);
  const std::uint64_t folded = (x | 0x2020202020202020ULL) & 0x7f7f7f7f7f7f7f7fULL;
  const std::uint64_t at_least_a = folded + 0x1f1f1f1f1f1f1f1fULL;
  const std::uint64_t past_z = folded + 0x0505050505050505ULL;
  return at_least_a & ~past_z & ~x & kAllHigh;
}

/// Calls on_word(word, space_before, space_after) for each word of a normalized
/// line, in order: the words of the unicode pre-tokenizer (breaks at white space
/// and between letters of different scripts, digits and punctuation), or with
/// whitespace_only those of the whitespace one. The flags say whether white
/// space (or the line's edge) is on either side, which is where the boundary
/// markers go. A word is a view into line.
template <class OnWord>
void split_simple(std::string_view line, bool whitespace_only, OnWord&& on_word) {
  std::size_t start = 0;  // start of the current word
  bool in_word = false;
  bool space_before = true;  // the line start counts as a space
  CharClass word_class = CharClass::space;
  int word_script = -1;
  std::size_t i = 0;
  const auto flush = [&](std::size_t end, bool space_after) {
    if (in_word && end > start) on_word(line.substr(start, end - start), space_before, space_after);
    in_word = false;
  };
  const std::size_t n = line.size();
  while (i < n) {
    const auto byte = static_cast<unsigned char>(line[i]);
    if (in_word && byte < 0x80 && kAscii.table[byte].cls == word_class &&
        word_class != CharClass::space &&
        (word_class != CharClass::letter || word_script == kLatinScript)) {
      // An ASCII character of the word's own class (a letter in a Latin word, a
      // digit in a number, punctuation in punctuation) never starts a new word in
      // any mode: skip the whole run in one loop.
      ++i;
      if (word_class == CharClass::letter) {
        // Most of a corpus is letters: find the run's end eight bytes at a time.
        while (i + 8 <= n) {
          const std::uint64_t letters = ascii_letters(line.data() + i);
          if (letters != kAllHigh) {
            i += static_cast<std::size_t>(__builtin_ctzll(~letters & kAllHigh)) / 8;
            break;
          }
          i += 8;
        }
      }
      while (i < n && static_cast<unsigned char>(line[i]) < 0x80 &&
             kAscii.table[static_cast<unsigned char>(line[i])].cls == word_class)
        ++i;
      continue;
    }
    std::size_t len = 1;
    Classified c{CharClass::punct, -1};
    if (byte < 0x80) {
      c = kAscii.table[byte];
    } else {
      len = utf8::sequence_length(line, i);
      if (len == 0) len = 1;
      c = len == 1 ? classify_non_ascii(byte) : classify_non_ascii(utf8::decode_at(line, i));
    }
    if (c.cls == CharClass::space) {
      flush(i, true);
      space_before = true;
      i += len;
      continue;
    }
    bool boundary = false;
    if (whitespace_only) {
      boundary = false;
    } else if (c.cls == CharClass::mark) {
      boundary = !in_word;  // a mark at a word start begins a word of its own
    } else if (in_word) {
      if (c.cls != word_class)
        boundary = true;
      else if (c.cls == CharClass::letter && c.script != word_script)
        boundary = true;
    }
    if (!in_word) {
      start = i;
      in_word = true;
      word_class = c.cls == CharClass::mark ? CharClass::letter : c.cls;
      word_script = c.script;
    } else if (boundary) {
      flush(i, false);
      space_before = false;
      start = i;
      in_word = true;
      word_class = c.cls;
      word_script = c.script;
    } else if (c.cls != CharClass::mark && word_class != c.cls) {
      word_class = c.cls;  // whitespace mode: classes do not matter
    }
    i += len;
  }
  flush(line.size(), true);
}

}  // namespace tokenlab::detail
