// File: conformance.hpp
// The plugin conformance suite, runnable on any plugin (tokenlab check-plugin).
//
//   for (const auto& r : run_conformance(registry, "bpe")) std::cout << r.check << r.passed;
//
// conformance_checks() lists the checks in order; docs/writing-a-plugin.md says
// what each one catches. A failed check's detail says what was expected and what
// happened. After a fatal failure (no segmenter, no training, encode() does not
// append) the remaining checks are reported as skipped, not silently dropped. A
// passing check may carry a warning: something a user will see that looks
// unfinished (the description new-plugin wrote, still unchanged).
//
// The suite runs plugin code in this process: a plugin that crashes kills the
// caller. tokenlab check-plugin therefore runs it in a child process
// (run_conformance_isolated) and reports a crash as a failed check naming the
// signal and the check that was running.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

class PluginRegistry;

struct ConformanceCheck {
  std::string check;
  bool passed = false;
  std::string detail;
  bool skipped = false;  // not run, after a fatal failure (then passed is false too)
  std::string warning;   // set on a passing check that found something to fix all the same
};

/// What the description tokenlab new-plugin writes says, so that check-plugin can
/// warn about a plugin that ships it unchanged.
inline constexpr std::string_view kNewPluginPlaceholder =
    "placeholder written by tokenlab new-plugin";

/// The names of every check, in the order they run.
TOKENLAB_API const std::vector<std::string>& conformance_checks();

/// Called before each check starts (its name) and after it ends (its result).
struct ConformanceListener {
  std::function<void(const std::string&)> on_start;
  std::function<void(const ConformanceCheck&)> on_result;
};

/// Runs every check in this process. Never throws for a plugin's misbehaviour
/// (exceptions of any type become failed checks); a crash is not caught.
TOKENLAB_API std::vector<ConformanceCheck> run_conformance(
    const PluginRegistry& registry, const std::string& plugin_name,
    const ConformanceListener& listener = {});

/// Runs the suite in a forked child process and collects the results through a
/// pipe. A child killed by a signal (or exiting early) gives a failed check naming
/// the signal and the check that was running; the checks after it are skipped.
TOKENLAB_API std::vector<ConformanceCheck> run_conformance_isolated(const PluginRegistry& registry,
                                                                    const std::string& plugin_name);

}  // namespace tokenlab
