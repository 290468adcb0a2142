// The unigram language-model segmenter as a tokenlab plugin (unigram.so).
// Name, version, description and capabilities are static constants of the class.
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/unigram/unigram_model.hpp"

TOKENLAB_DEFINE_PLUGIN(tokenlab::unigram::UnigramSegmenter)
