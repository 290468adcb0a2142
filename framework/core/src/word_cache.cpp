#include "tokenlab/word_cache.hpp"

#include <atomic>

namespace tokenlab {

std::uint64_t new_model_identity() noexcept {
  // One counter in libtokenlab_core for every plugin and reader, so identities
  // never collide across the shared libraries that cache words.
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tokenlab
