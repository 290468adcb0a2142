// libFuzzer target: a word counts TSV through WordCounts::load_tsv.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tokenlab::fuzz::load_counts_bytes(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const tokenlab::Error&) {
  }
  return 0;
}
