// tokenlab compare: every segmenter trained on one corpus and measured on the same held-out
// text.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands/report_dir.hpp"
#include "tokenlab/allocation_report.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/report_bundle.hpp"
#include "tokenlab/study_tables.hpp"
#include "tokenlab/vocabulary_report.hpp"

namespace tokenlab::cli {

namespace {

// The note column is file-only; on the terminal each row's note or error goes
// under the table, one line each.
void print_notes(const CompareResult& result) {
  bool first = true;
  for (const auto& row : result.rows) {
    const std::string& text = row.error.empty() ? row.note : "error: " + row.error;
    if (text.empty()) continue;
    if (first) std::cout << '\n';
    first = false;
    const std::string label =
        row.algorithm + (row.language.empty() ? "" : " (" + row.language + ")");
    // Plugins often start their messages with their own name already.
    const bool named = text.rfind(row.algorithm + ":", 0) == 0 && row.language.empty();
    std::cout << (named ? text : label + ": " + text) << '\n';
  }
  if (!result.training_note.empty())
    std::cout << (first ? "\n" : "") << result.training_note << '\n';
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args) {
  app::CompareRequest experiment;
  po::options_description desc("options");
  app::add_options(desc, app::compare_table(), experiment);
  po::variables_map vm;
  if (!parse("compare", "[--corpus FILE... | --corpus LANG=FILE... | --parallel DIR] [options]",
             desc, {}, args, vm))
    return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, experiment.plugin_dirs);
  app::resolve_experiment(experiment, registry, app::note_to_stderr);
  Progress progress;
  const CompareResult result =
      run_compare(registry, experiment.options,
                  [&](const std::string& stage, double) { progress.update(stage); });
  progress.done();
  write_terminal(std::cout, comparison_table(result));
  print_notes(result);
  if (result.languages.size() > 1) {
    std::cout << '\n';
    write_terminal(std::cout, fairness_table(result));
    if (!result.premium_note.empty()) std::cout << '\n' << result.premium_note << '\n';
    if (!result.bootstrap_note.empty()) std::cout << result.bootstrap_note << '\n';
    if (!result.pooled.empty()) {
      std::cout << '\n';
      write_terminal(std::cout, pooled_table(result));
    }
  }
  write_study_tables(std::cout, result);
  if (experiment.options.audit) {
    std::cout << '\n';
    write_terminal(std::cout, audit_table(result));
  }
  if (experiment.options.agreement)
    for (const auto& table : agreement_matrix_tables(result)) {
      std::cout << '\n';
      write_terminal(std::cout, table);
    }
  if (experiment.options.allocation) {
    std::cout << '\n';
    write_terminal(std::cout, allocation_summary_table(result));
    std::cout << '\n';
    write_terminal(std::cout, allocation_table(result));
  }
  bool failed = false;
  for (const auto& row : result.rows) failed = failed || !row.error.empty();
  if (!experiment.report_dir.empty())
    report_bundle(write_compare_reports(experiment.report_dir, result));
  return failed ? kExitFailure : kExitOk;
}

}  // namespace tokenlab::cli
