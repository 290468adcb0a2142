// File: random.hpp
// A tiny, portable, seedable generator (SplitMix64) so that sampling results are
// the same on every platform and standard library.
#pragma once

#include <cstdint>

namespace tokenlab {

/// Advances state and returns 64 random bits.
inline std::uint64_t next_random(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// A uniform double in [0, 1).
inline double next_unit(std::uint64_t& state) noexcept {
  return static_cast<double>(next_random(state) >> 11) * 0x1.0p-53;
}

}  // namespace tokenlab
