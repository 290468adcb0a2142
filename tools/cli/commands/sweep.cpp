// tokenlab sweep: compare repeated over vocabulary sizes, with the curves plotted.
#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands/report_dir.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/report_bundle.hpp"

namespace tokenlab::cli {

int cmd_sweep(const std::vector<std::string>& args) {
  app::SweepRequest experiment;
  po::options_description desc("options");
  app::add_options(desc, app::sweep_table(), experiment);
  po::variables_map vm;
  if (!parse("sweep", "[--vocab-sizes 500,1000,...] [--corpus ...] [options]", desc, {}, args, vm))
    return kExitOk;
  const std::vector<std::size_t>& sizes = experiment.vocab_sizes;
  PluginRegistry registry;
  load_plugins(registry, experiment.plugin_dirs);
  app::resolve_experiment(experiment, registry, app::note_to_stderr);
  Progress progress;
  const SweepResult sweep =
      run_sweep(registry, experiment.options, sizes,
                [&](const std::string& stage, double) { progress.update(stage); });
  progress.done();
  write_terminal(std::cout, sweep_table(sweep));
  if (!experiment.report_dir.empty())
    report_bundle(write_sweep_reports(experiment.report_dir, sweep));
  // A row of '-' says only that something failed, and a size the corpus cannot
  // reach shows only in the vocab column: each is said in words under the table.
  bool failed = false;
  bool capped = false;
  for (std::size_t i = 0; i < sweep.runs.size(); ++i)
    for (const auto& row : sweep.runs[i].rows) {
      const std::string who =
          row.algorithm + (row.language.empty() ? "" : " (" + row.language + ")");
      if (!row.error.empty()) {
        failed = true;
        std::cerr << "error: " << who << " at vocabulary size " << sweep.vocab_sizes[i] << ": "
                  << row.error << '\n';
      } else if (!row.pretrained && row.train_seconds >= 0 &&
                 row.metrics.vocabulary_size < sweep.vocab_sizes[i]) {
        std::cout << (capped ? "" : "\n") << who << " at " << sweep.vocab_sizes[i]
                  << ": the corpus supports only " << row.metrics.vocabulary_size << " entries\n";
        capped = true;
      }
    }
  return failed ? kExitFailure : kExitOk;
}

}  // namespace tokenlab::cli
