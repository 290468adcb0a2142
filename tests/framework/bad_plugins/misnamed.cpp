// A valid descriptor whose name differs from the file's base name (misnamed.so
// calls itself "someone_else"): the registry must refuse it by the name check.
#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_nothing(char* error, std::size_t error_size) {
  std::snprintf(error, error_size, "this test plugin never creates a segmenter");
  return nullptr;
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "someone_else",
    "0.0.1",
    "a plugin whose file was renamed",
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    0,
    &make_nothing,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
