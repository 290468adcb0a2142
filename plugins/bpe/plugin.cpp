// The BPE segmenter exported through the plugin ABI; all the code lives in
// algorithms/bpe.
// Name, version, description and capabilities are static constants of the class.
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/plugin_abi.hpp"

TOKENLAB_DEFINE_PLUGIN(tokenlab::bpe::BpeSegmenter)
