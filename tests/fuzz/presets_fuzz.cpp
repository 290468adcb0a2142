// libFuzzer target, differential: any bytes as a text through the regex
// presets' hand-written matchers and DeepSeek V3's sequence of splits, and
// through ICU running the same patterns (presets_fuzz_support.hpp). Any
// difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "presets_fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly size bytes, so that a read past the end is a heap overflow.
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!tokenlab::fuzz::presets_agree_with_icu(text)) std::abort();
  return 0;
}
