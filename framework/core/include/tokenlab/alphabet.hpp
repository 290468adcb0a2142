// File: alphabet.hpp
// The base alphabet every subword trainer starts from, chosen once, the same way
// for every algorithm, so that a comparison is fair; and the byte pieces that
// stand for characters outside it.
//
//   const Alphabet a = select_alphabet(counts, 0.9995);
//   a.characters     // kept code points, ascending
//   a.distinct       // code points seen in the counts
//
// Rule (SentencePiece's character_coverage): order the characters by weighted
// count, descending, ties by smaller code point; keep them until the kept ones
// cover `coverage` of all character occurrences. Coverage 1 keeps every
// character. Ill-formed UTF-8 bytes never join the alphabet. Deterministic,
// whatever the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

struct TOKENLAB_API Alphabet {
  std::vector<char32_t> characters;   // kept, in code point order
  std::vector<std::uint64_t> counts;  // weighted occurrences of each kept character
  std::size_t distinct = 0;           // distinct code points in the counts
  std::uint64_t occurrences = 0;      // weighted character occurrences
  std::uint64_t covered = 0;          // occurrences of kept characters
};

/// Chooses the alphabet; coverage must be in (0, 1] (throws Error otherwise).
/// At most max_characters are kept (the most frequent), for a vocabulary too
/// small for the whole alphabet. threads: 0 means all cores.
[[nodiscard]] TOKENLAB_API Alphabet
select_alphabet(const WordCounts& counts, double coverage, unsigned threads = 0,
                std::size_t max_characters = static_cast<std::size_t>(-1));

/// The byte-fallback pieces "<0x00>".."<0xFF>", as SentencePiece and Hugging Face
/// spell them.
[[nodiscard]] TOKENLAB_API std::string byte_fallback_piece(unsigned byte);

/// Which hex digits a byte-fallback piece may use when read back. The readers
/// differ: SentencePiece's PieceToByte (model_interface.cc) accepts only the
/// upper-case spelling its ByteToPiece writes; Hugging Face's ByteFallback
/// decoder (decoders/byte_fallback.rs) parses with u8::from_str_radix, which
/// takes either case.
enum class HexDigits { upper_case, either_case };

/// The byte a piece "<0xNN>" stands for, or nullopt if it is not one. The one
/// reader of the spelling byte_fallback_piece writes.
[[nodiscard]] TOKENLAB_API std::optional<unsigned char> byte_fallback_value(
    std::string_view piece, HexDigits digits = HexDigits::upper_case) noexcept;

/// The ids of a vocabulary's 256 byte-fallback pieces, or none if it lacks any
/// of them (a word-level vocabulary that happens to hold "<0x41>" has no byte
/// fallback).
[[nodiscard]] TOKENLAB_API std::vector<TokenId> byte_fallback_ids(const Vocabulary& vocabulary);

}  // namespace tokenlab
