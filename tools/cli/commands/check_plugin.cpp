// tokenlab check-plugin: one plugin file loaded with the registry's checks, then the
// conformance suite run on it.
#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::cli {

int cmd_check_plugin(const std::vector<std::string>& args) {
  std::string path;
  po::options_description desc("options");
  desc.add_options()("plugin", po::value(&path)->required(), "plugin file (.so)");
  po::positional_options_description positional;
  positional.add("plugin", 1);
  po::variables_map vm;
  if (!parse("check-plugin", "PATH", desc, positional, args, vm)) return kExitOk;
  PluginRegistry registry;
  const PluginInfo info = registry.load_file(path);
  std::cout << "plugin " << info.name << " " << info.version << " (" << info.file.string() << ")\n";
  std::cout.flush();  // the suite runs in a child process; nothing buffered twice
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::size_t warnings = 0;
  const auto results = run_conformance_isolated(registry, info.name);
  for (const auto& r : results) {
    std::cout << (r.skipped ? "  SKIP  " : r.passed ? "  PASS  " : "  FAIL  ") << r.check;
    if (!r.detail.empty()) std::cout << "  (" << r.detail << ")";
    std::cout << '\n';
    if (!r.warning.empty()) std::cout << "  WARN  " << r.warning << '\n';
    failed += !r.passed && !r.skipped;
    skipped += r.skipped;
    warnings += !r.warning.empty();
  }
  std::cout << results.size() - failed - skipped << " passed, " << failed << " failed";
  if (skipped > 0) std::cout << ", " << skipped << " skipped";
  if (warnings > 0) std::cout << ", " << warnings << (warnings == 1 ? " warning" : " warnings");
  std::cout << '\n';
  if (failed > 0) {
    std::cerr << "error: " << info.name << " failed " << failed << " conformance check(s)\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tokenlab::cli
