// The WordPiece plugin: the algorithm library behind the plugin ABI.
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/wordpiece/wordpiece.hpp"

TOKENLAB_DEFINE_PLUGIN(wordpiece, tokenlab::wordpiece::WordPieceSegmenter, "0.1.0",
                       "WordPiece: likelihood-trained merges, BERT greedy longest-match encoding",
                       tokenlab::kCapabilityTrace)
