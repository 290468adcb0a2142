// The BPE segmenter exported through the plugin ABI; all the code lives in
// algorithms/bpe.
#include "tokenlab/bpe/bpe_segmenter.hpp"
#include "tokenlab/plugin_abi.hpp"

TOKENLAB_DEFINE_PLUGIN(bpe, tokenlab::bpe::BpeSegmenter, "0.1.0",
                       "Byte-pair encoding (Sennrich et al. 2016): chars or bytes, byte fallback, "
                       "BPE-dropout, merge traces",
                       tokenlab::kCapabilitySampling | tokenlab::kCapabilityTrace)
