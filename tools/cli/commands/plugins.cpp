// tokenlab plugins: the segmenter plugins found, one row each.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::cli {

int cmd_plugins(const std::vector<std::string>& args) {
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("plugin-dir", po::value(&plugin_dirs),
                     "extra directory to search first (repeatable)");
  po::variables_map vm;
  if (!parse("plugins", "[--plugin-dir DIR]...", desc, {}, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  ReportTable table;
  table.columns = {{"name", ColumnKind::text},
                   {"version", ColumnKind::text},
                   {"capabilities", ColumnKind::text},
                   {"description", ColumnKind::text},
                   {"file", ColumnKind::text}};
  for (const auto& p : registry.plugins()) {
    std::string caps;
    if (p.capabilities & kCapabilitySampling) caps += "sampling ";
    if (p.capabilities & kCapabilityNBest) caps += "nbest ";
    if (p.capabilities & kCapabilityTrace) caps += "trace ";
    // push_back, not = "-": GCC 12 at -O2 with the sanitizers warns falsely
    // (-Wrestrict, GCC bug 105329) on assigning a literal to a string.
    if (caps.empty())
      caps.push_back('-');
    else
      caps.pop_back();
    table.rows.push_back({p.name, p.version, caps, p.description, p.file.string()});
  }
  write_terminal(std::cout, table);
  if (registry.plugins().empty()) {
    std::cerr << "error: no plugins found (searched --plugin-dir, $TOKENLAB_PLUGIN_PATH and "
                 "<exe>/../lib/tokenlab/plugins)\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tokenlab::cli
