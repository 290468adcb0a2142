// libFuzzer target: a model file for one plugin (TOKENLAB_FUZZ_PLUGIN_FILE, a .so)
// through read_model_file, that plugin's load() and the calls the CLI makes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace {

struct Target {
  tokenlab::PluginRegistry registry;
  std::string name;
  Target() { name = registry.load_file(TOKENLAB_FUZZ_PLUGIN_FILE).name; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Target* target = new Target;  // never destroyed: the plugin stays loaded
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const std::unique_ptr<tokenlab::Segmenter> segmenter = target->registry.create(target->name);
    tokenlab::fuzz::load_model_bytes(bytes, *segmenter);
  } catch (const tokenlab::Error&) {
    // A clean refusal; anything else escapes and libFuzzer reports it.
  }
  return 0;
}
