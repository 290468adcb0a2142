// The word segmenter, exported through the plugin ABI.
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/word/word_segmenter.hpp"

TOKENLAB_DEFINE_PLUGIN(word, tokenlab::word::WordSegmenter, "1.0.0",
                       "One token per pre-tokenized word; the rest are unknown",
                       tokenlab::kCapabilityNone)
