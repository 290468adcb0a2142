// The character segmenter, exported through the plugin ABI.
// Name, version, description and capabilities are static constants of the class.
#include "tokenlab/character/character_model.hpp"
#include "tokenlab/plugin_abi.hpp"

TOKENLAB_DEFINE_PLUGIN(tokenlab::character::CharacterSegmenter)
