// File: registry.hpp
// The plugins the module finds: the CLI's search order, relative to the module.
#pragma once

#include <dlfcn.h>
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::python {

namespace py = pybind11;

inline std::filesystem::path module_directory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&module_directory), &info) == 0 || info.dli_fname == nullptr)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

// --plugin-dir entries, then $TOKENLAB_PLUGIN_PATH, then the plugins installed
// (or built) with this module: the CLI's order, relative to the module instead
// of the executable (which is Python's).
inline std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& dirs) {
  std::vector<std::filesystem::path> path(dirs.begin(), dirs.end());
  if (const char* env = std::getenv("TOKENLAB_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (colon != 0) path.emplace_back(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (const auto dir = module_directory(); !dir.empty())
    path.push_back((dir / TOKENLAB_PYTHON_PLUGIN_DIR).lexically_normal());
  return path;
}

// One registry per search path, never destroyed: every segmenter it created
// (in any Tokenizer Python holds) needs its library loaded until the end.
inline const PluginRegistry& registry_for(const std::vector<std::string>& dirs) {
  static std::mutex mutex;
  static auto* registries = new std::map<std::vector<std::filesystem::path>, PluginRegistry*>();
  const auto path = plugin_search_path(dirs);
  std::lock_guard lock(mutex);
  auto& slot = (*registries)[path];
  if (slot == nullptr) {
    auto* registry = new PluginRegistry();
    registry->load_search_path(path);
    slot = registry;
    for (const auto& e : registry->load_errors())
      if (PyErr_WarnEx(PyExc_RuntimeWarning, ("tokenlab: " + e).c_str(), 1) < 0)
        throw py::error_already_set();
  }
  return *slot;
}

}  // namespace tokenlab::python
