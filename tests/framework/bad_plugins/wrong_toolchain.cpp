// A plugin whose toolchain fingerprint is not the host's (here: another compiler
// and a sanitizer build): the registry must refuse it by the toolchain check.
#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_nothing(char* error, std::size_t error_size) {
  std::snprintf(error, error_size, "this test plugin never creates a segmenter");
  return nullptr;
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "wrong_toolchain",
    "0.0.1",
    "a plugin from another compiler, built with sanitizers",
    "othercc-1/cxx11abi-1+asan+sanitize",
    0,
    &make_nothing,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
