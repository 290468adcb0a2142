// A plugin built against another tokenlab release: its descriptor is otherwise
// valid, but TrainOptions, WordCounts and Vocabulary may differ in layout.
#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_nothing(char* error, std::size_t error_size) {
  std::snprintf(error, error_size, "this test plugin never creates a segmenter");
  return nullptr;
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "wrong_version",
    "0.0.1",
    "a plugin from another tokenlab release",
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    0,
    &make_nothing,
    "0.0.0-other"};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
