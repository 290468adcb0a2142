// A plugin compiled and linked with AddressSanitizer (tests/framework/CMakeLists.txt
// adds -fsanitize=address). A host without ASan would abort inside dlopen ("ASan
// runtime does not come first"); the registry must refuse it before dlopen.
#include <vector>

#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_nothing(char* error, std::size_t error_size) {
  std::vector<char> instrumented(16, 'x');  // some instrumented memory access
  std::snprintf(error, error_size, "this test plugin never creates a segmenter (%c)",
                instrumented[3]);
  return nullptr;
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "sanitized",
    "0.0.1",
    "a plugin built with AddressSanitizer",
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    0,
    &make_nothing,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
