// The WordPiece plugin: the algorithm library behind the plugin ABI.
// Name, version, description and capabilities are static constants of the class.
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

TOKENLAB_DEFINE_PLUGIN(tokenlab::wordpiece::WordPieceSegmenter)
