// A valid plugin whose factory breaks its promise and throws: it loads, but
// creating a segmenter must be an Error naming the plugin, not a crash.
#include <stdexcept>

#include "tokenlab/plugin_abi.hpp"

namespace {

tokenlab::Segmenter* make_throwing(char*, std::size_t) {
  throw std::runtime_error("the factory of this test plugin always throws");
}

const tokenlab_plugin_descriptor descriptor = {
    TOKENLAB_PLUGIN_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(tokenlab_plugin_descriptor)),
    "factory_throws",
    "0.0.1",
    "a plugin whose factory throws",
    TOKENLAB_TOOLCHAIN_FINGERPRINT,
    0,
    &make_throwing,
    TOKENLAB_PLUGIN_TOKENLAB_VERSION};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tokenlab_plugin_descriptor*
tokenlab_plugin_entry() noexcept {
  return &descriptor;
}
