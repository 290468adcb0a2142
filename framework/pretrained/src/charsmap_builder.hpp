// Internal to tokenlab_pretrained: writes a SentencePiece precompiled character
// map (the format precompiled.hpp reads, and normalizer.cc's
// DecodePrecompiledCharsMap) from rewrite rules, and the rules that make
// SentencePiece's normalizer give tokenlab's Normalizer on real text.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenlab/normalizer.hpp"

namespace tokenlab::detail {

/// (key, replacement) pairs: at each position SentencePiece rewrites the
/// longest key that starts there. Keys are non-empty and hold no NUL byte.
using CharsMapRules = std::vector<std::pair<std::string, std::string>>;

/// The map blob: the trie size, a Darts-clone double array over the keys, and
/// the '\0'-terminated replacements. Throws Error on an empty or NUL key, or
/// two rules for one key.
std::string build_charsmap(CharsMapRules rules);

/// Rules that give options' normalization (form nfc, nfkc or none, lowercase,
/// every White_Space character a space) one code point at a time, plus one rule
/// per canonical and compatibility decomposition, so that decomposed letters
/// compose as ICU composes them. SentencePiece then collapses and trims the
/// spaces as tokenlab does. Exact wherever normalizing the whole line equals
/// normalizing each longest key on its own: everywhere but marks in
/// non-canonical order and compositions across a rewritten character.
CharsMapRules normalization_rules(const NormalizerOptions& options);

}  // namespace tokenlab::detail
