// A plugin built against a future, incompatible ABI: the entry point exists and the
// descriptor is otherwise valid, but its ABI version is not the host's.
#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_nothing(char* error, std::size_t error_size) {
  std::snprintf(error, error_size, "this test plugin never creates a segmenter");
  return nullptr;
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION + 1000u,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "wrong_abi",
    "0.0.1",
    "a plugin from an incompatible tokenlab",
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    0,
    &make_nothing,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
