// File: cache_directory.hpp
// Where tokenlab keeps what it can rebuild: the bundled default corpus, the
// reference encoders, compiled models.
#pragma once

#include <filesystem>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// $TOKENLAB_CACHE_DIR, else $XDG_CACHE_HOME/tokenlab, else ~/.cache/tokenlab,
/// else the temporary directory's tokenlab-cache. Not created here.
TOKENLAB_API std::filesystem::path cache_directory();

}  // namespace tokenlab
