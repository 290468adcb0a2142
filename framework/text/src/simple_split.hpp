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

// The end of the run of ASCII characters of class cls that starts at i.
inline std::size_t end_of_ascii_run(std::string_view line, std::size_t i, CharClass cls) noexcept {
  const std::size_t n = line.size();
  if (cls == CharClass::letter) {
    // Most of a corpus is letters: find the run's end eight bytes at a time.
    for (; i + 8 <= n; i += 8) {
      const std::uint64_t letters = ascii_letters(line.data() + i);
      if (letters != kAllHigh)
        return i + static_cast<std::size_t>(__builtin_ctzll(~letters & kAllHigh)) / 8;
    }
  }
  while (i < n && static_cast<unsigned char>(line[i]) < 0x80 &&
         kAscii.table[static_cast<unsigned char>(line[i])].cls == cls)
    ++i;
  return i;
}

// The whitespace pre-tokenizer: words are the runs between White_Space.
template <class OnWord>
void split_at_spaces(std::string_view line, OnWord&& on_word) {
  const std::size_t n = line.size();
  std::size_t start = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < n;) {
    const auto byte = static_cast<unsigned char>(line[i]);
    std::size_t len = 1;
    bool space = false;
    if (byte < 0x80) {
      space = kAscii.table[byte].cls == CharClass::space;
    } else {
      len = utf8::sequence_length(line, i);
      if (len == 0) len = 1;
      space =
          classify_non_ascii(len == 1 ? byte : utf8::decode_at(line, i)).cls == CharClass::space;
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
}

/// Calls on_word(word, space_before, space_after) for each word of a normalized
/// line, in order: the words of the unicode pre-tokenizer (breaks at white space
/// and between letters of different scripts, digits and punctuation), or with
/// whitespace_only those of the whitespace one. The flags say whether white
/// space (or the line's edge) is on either side, which is where the boundary
/// markers go. A word is a view into line.
template <class OnWord>
void split_simple(std::string_view line, bool whitespace_only, OnWord&& on_word) {
  if (whitespace_only) {
    split_at_spaces(line, on_word);
    return;
  }
  std::size_t start = 0;  // start of the current word
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
    if (byte < 0x80) {
      // ASCII, most of most corpora: a space ends the word; anything else
      // continues it if it is of the word's class (a letter only in a Latin
      // word), or else starts a word, and takes the rest of its run along.
      const CharClass cls = kAscii.table[byte].cls;
      if (cls == CharClass::space) {
        flush(i, true);
        ++i;
        continue;
      }
      if (in_word &&
          (cls != word_class || (cls == CharClass::letter && word_script != kLatinScript)))
        flush(i, false);
      if (!in_word) {
        start = i;
        in_word = true;
        word_class = cls;
        word_script = kAscii.table[byte].script;
      }
      i = end_of_ascii_run(line, i + 1, cls);
      continue;
    }
    std::size_t len = utf8::sequence_length(line, i);
    if (len == 0) len = 1;
    const Classified c = classify_non_ascii(len == 1 ? byte : utf8::decode_at(line, i));
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
}

}  // namespace tokenlab::detail
