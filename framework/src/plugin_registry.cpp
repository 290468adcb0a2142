#include "tokenlab/plugin_registry.hpp"

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

// Plugin libraries are never unloaded: objects and deleters they created may run
// until exit, and unloading breaks sanitizer stack traces. The handles live in a
// process-wide list that is intentionally never destroyed.
std::vector<boost::dll::shared_library>& library_handles() {
  static auto* handles = new std::vector<boost::dll::shared_library>();
  return *handles;
}
std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

struct PluginRegistry::Loaded {
  PluginInfo info;
  const tokenlab_plugin_descriptor* descriptor = nullptr;
};

PluginRegistry::PluginRegistry() = default;
PluginRegistry::~PluginRegistry() = default;

std::vector<std::filesystem::path> PluginRegistry::default_search_path(
    const std::vector<std::filesystem::path>& explicit_dirs) {
  std::vector<std::filesystem::path> dirs = explicit_dirs;
  if (const char* env = std::getenv("TOKENLAB_PLUGIN_PATH"); env != nullptr && *env != '\0') {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const auto part = rest.substr(0, colon);
      if (!part.empty()) dirs.emplace_back(std::string(part));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::error_code ec;
  const auto exe = boost::dll::program_location(ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "lib" / "tokenlab" / "plugins");
  return dirs;
}

std::string check_descriptor(const tokenlab_plugin_descriptor* d,
                             const std::string& expected_name) {
  if (d == nullptr) return "entry point returned a null descriptor";
  if (d->abi_version != TOKENLAB_PLUGIN_ABI_VERSION)
    return "ABI version check failed: plugin has ABI version " + std::to_string(d->abi_version) +
           ", this tokenlab needs " + std::to_string(TOKENLAB_PLUGIN_ABI_VERSION) +
           " (rebuild the plugin)";
  if (d->struct_size < sizeof(tokenlab_plugin_descriptor))
    return "descriptor size check failed: " + std::to_string(d->struct_size) +
           " bytes, expected at least " + std::to_string(sizeof(tokenlab_plugin_descriptor));
  if (d->toolchain == nullptr || std::strcmp(d->toolchain, TOKENLAB_TOOLCHAIN_FINGERPRINT) != 0)
    return std::string("toolchain check failed: plugin built with '") +
           (d->toolchain ? d->toolchain : "(null)") +
           "', tokenlab with '" TOKENLAB_TOOLCHAIN_FINGERPRINT
           "' (build both with the same compiler)";
  if (d->name == nullptr || d->version == nullptr || d->make_segmenter == nullptr)
    return "descriptor check failed: name, version or factory is null";
  if (!expected_name.empty() && expected_name != d->name)
    return "name check failed: plugin calls itself '" + std::string(d->name) +
           "' but the file is named '" + expected_name + "' (they must be equal)";
  return {};
}

const PluginInfo& PluginRegistry::add(const tokenlab_plugin_descriptor* d,
                                      const std::filesystem::path& file, std::shared_ptr<void>) {
  const std::string where = file.empty() ? std::string("static plugin") : file.string();
  if (loaded_.count(d->name) > 0)
    throw Error(where + ": uniqueness check failed: a plugin named '" + d->name +
                "' is already loaded from " +
                (loaded_.at(d->name)->info.file.empty() ? std::string("a static registration")
                                                        : loaded_.at(d->name)->info.file.string()));
  auto loaded = std::make_unique<Loaded>();
  loaded->descriptor = d;
  loaded->info = PluginInfo{d->name,      d->version,      d->description ? d->description : "",
                            d->toolchain, d->capabilities, file};
  auto& ref = *loaded;
  loaded_.emplace(d->name, std::move(loaded));
  return ref.info;
}

const PluginInfo& PluginRegistry::load_file(const std::filesystem::path& file) {
  const std::string where = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error(where + ": no such plugin file");
  if (std::filesystem::is_directory(file, ec))
    throw Error(where + ": is a directory, not a plugin file");
  boost::dll::shared_library library;
  try {
    library.load(boost::dll::fs::path(file.string()),
                 boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw Error(where + ": cannot load shared library: " + e.what());
  }
  if (!library.has(TOKENLAB_PLUGIN_ENTRY_SYMBOL))
    throw Error(where + ": entry point check failed: no symbol '" TOKENLAB_PLUGIN_ENTRY_SYMBOL
                        "' (not a tokenlab plugin, or TOKENLAB_DEFINE_PLUGIN missing)");
  auto& entry = library.get<const tokenlab_plugin_descriptor*()>(TOKENLAB_PLUGIN_ENTRY_SYMBOL);
  const tokenlab_plugin_descriptor* descriptor = entry();
  const std::string problem = check_descriptor(descriptor, file.stem().string());
  if (!problem.empty()) throw Error(where + ": " + problem);
  const PluginInfo& info = add(descriptor, std::filesystem::absolute(file, ec), nullptr);
  std::lock_guard lock(library_mutex());
  library_handles().push_back(std::move(library));
  return info;
}

void PluginRegistry::load_search_path(const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (loaded_.count(file.stem().string()) > 0) continue;  // an earlier directory wins
      try {
        load_file(file);
      } catch (const Error& e) {
        errors_.push_back(e.what());
      }
    }
  }
}

const PluginInfo& PluginRegistry::add_static(const tokenlab_plugin_descriptor* descriptor) {
  const std::string problem = check_descriptor(descriptor, "");
  if (!problem.empty()) throw Error("static plugin: " + problem);
  return add(descriptor, {}, nullptr);
}

std::vector<PluginInfo> PluginRegistry::plugins() const {
  std::vector<PluginInfo> out;
  for (const auto& [name, loaded] : loaded_) out.push_back(loaded->info);
  return out;
}

std::string PluginRegistry::available_names() const {
  std::string names;
  for (const auto& [name, loaded] : loaded_) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? std::string("(none found)") : names;
}

bool PluginRegistry::has(const std::string& name) const {
  return loaded_.count(name) > 0;
}

const PluginInfo& PluginRegistry::info(const std::string& name) const {
  auto it = loaded_.find(name);
  if (it == loaded_.end()) {
    throw Error("unknown algorithm '" + name + "'; available: " + available_names());
  }
  return it->second->info;
}

std::unique_ptr<Segmenter> PluginRegistry::create(const std::string& name) const {
  const PluginInfo& plugin = info(name);
  const auto* d = loaded_.at(plugin.name)->descriptor;
  char message[512] = {0};
  Segmenter* s = d->make_segmenter(message, sizeof message);
  if (s == nullptr)
    throw Error("plugin '" + name +
                "' failed to create a segmenter: " + (message[0] ? message : "no reason given"));
  return std::unique_ptr<Segmenter>(s);
}

}  // namespace tokenlab
