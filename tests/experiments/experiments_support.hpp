// What the experiments suite's files share: the fixture directory and the
// registry of the built-in plugins, loaded once per process.
#pragma once

#include <string>

#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::test {

inline const std::string kExperimentsData = TOKENLAB_TEST_DATA_DIR "/experiments";

inline const PluginRegistry& experiments_registry() {
  static PluginRegistry* r = [] {
    auto* reg = new PluginRegistry();
    reg->load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
    return reg;
  }();
  return *r;
}

}  // namespace tokenlab::test
