// File: plugin_registry.hpp
// Finds, loads, validates and instantiates segmenter plugins.
//
//   PluginRegistry registry;
//   registry.load_search_path(PluginRegistry::default_search_path(cli_plugin_dirs));
//   auto bpe = registry.create("bpe");
//
// Loading uses Boost.DLL with RTLD_NOW | RTLD_LOCAL and checks, in order: the
// entry symbol exists, the ABI version, the descriptor size, the toolchain
// fingerprint, that the name equals the file's base name, and that no plugin of
// that name is loaded already. A failure names the file and the check. Libraries
// are never unloaded before the registry is destroyed, and the registry must
// outlive every segmenter it created.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/segmenter_source.hpp"

namespace tokenlab {

struct PluginInfo {
  std::string name;
  std::string version;
  std::string description;
  std::string toolchain;
  Capabilities capabilities = 0;
  std::filesystem::path file;  // empty for statically registered plugins
};

class TOKENLAB_API PluginRegistry final : public SegmenterSource {
 public:
  PluginRegistry();
  ~PluginRegistry() override;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  /// --plugin-dir entries, then $TOKENLAB_PLUGIN_PATH (colon-separated), then
  /// <executable dir>/../lib/tokenlab/plugins.
  static std::vector<std::filesystem::path> default_search_path(
      const std::vector<std::filesystem::path>& explicit_dirs);

  /// Loads one plugin file; throws Error naming the file and the failed check.
  const PluginInfo& load_file(const std::filesystem::path& file);
  /// Loads every *.so in the directories, in order; a plugin whose name is already
  /// loaded from an earlier directory is skipped (earlier wins). Files that fail
  /// to load are recorded in load_errors() and do not stop the others.
  void load_search_path(const std::vector<std::filesystem::path>& dirs);
  /// Registers a descriptor without dynamic loading (tests, static builds).
  const PluginInfo& add_static(const tokenlab_plugin_descriptor* descriptor);

  [[nodiscard]] std::vector<PluginInfo> plugins() const;  // sorted by name
  [[nodiscard]] bool has(const std::string& name) const override;
  /// "a, b, c" in name order, or "(none found)": for error messages.
  [[nodiscard]] std::string available_names() const override;
  [[nodiscard]] const PluginInfo& info(const std::string& name) const;
  /// Throws Error listing available plugins if name is unknown.
  [[nodiscard]] std::unique_ptr<Segmenter> create(const std::string& name) const override;
  [[nodiscard]] const std::vector<std::string>& load_errors() const noexcept { return errors_; }

 private:
  struct Loaded;
  const PluginInfo& add(const tokenlab_plugin_descriptor* descriptor,
                        const std::filesystem::path& file, std::shared_ptr<void> library);
  std::map<std::string, std::unique_ptr<Loaded>> loaded_;
  std::vector<std::string> errors_;
};

/// Validates a descriptor as the registry does; returns "" or the failed check.
TOKENLAB_API std::string check_descriptor(const tokenlab_plugin_descriptor* descriptor,
                                          const std::string& expected_name);

}  // namespace tokenlab
