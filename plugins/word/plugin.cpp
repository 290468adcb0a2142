// The word segmenter, exported through the plugin ABI.
// Name, version, description and capabilities are static constants of the class.
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/word/word_model.hpp"

TOKENLAB_DEFINE_PLUGIN(tokenlab::word::WordSegmenter)
