#include "tokenlab/cache_directory.hpp"

#include <cstdlib>

namespace tokenlab {

namespace fs = std::filesystem;

fs::path cache_directory() {
  if (const char* dir = std::getenv("TOKENLAB_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "tokenlab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "tokenlab";
  return fs::temp_directory_path() / "tokenlab-cache";
}

}  // namespace tokenlab
