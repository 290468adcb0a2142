// The unigram language-model segmenter as a tokenlab plugin (unigram.so).
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/unigram/unigram_segmenter.hpp"

TOKENLAB_DEFINE_PLUGIN(unigram, tokenlab::unigram::UnigramSegmenter, "0.1.0",
                       "Unigram language model (Kudo 2018): EM, pruning, sampling, n-best",
                       tokenlab::kCapabilitySampling | tokenlab::kCapabilityNBest |
                           tokenlab::kCapabilityTrace)
