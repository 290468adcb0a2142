// The character segmenter, exported through the plugin ABI.
#include "tokenlab/character/character_segmenter.hpp"
#include "tokenlab/plugin_abi.hpp"

TOKENLAB_DEFINE_PLUGIN(character, tokenlab::character::CharacterSegmenter, "1.0.0",
                       "One token per code point (or grapheme cluster, units=graphemes)",
                       tokenlab::kCapabilityNone)
