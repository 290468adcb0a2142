// File: report_bundle.hpp
// Everything a run writes into its --report-dir: the tables as CSV, JSON and
// Markdown, the plots as SVG (gnuplot), and one self-contained report.html.
// Every file is written atomically.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"

namespace tokenlab {

struct ReportBundle {
  std::vector<std::filesystem::path> files;  // written, in order
  std::vector<std::string> warnings;         // e.g. plots skipped without gnuplot
};

/// compare.{csv,json,md}; fairness.{csv,json,md} for several languages;
/// pooled.{csv,json,md} when the run has rows over the languages pooled;
/// plots/*.svg (lorenz.svg, the Lorenz curves beside Gini, on aligned text);
/// report.html.
TOKENLAB_API ReportBundle write_compare_reports(const std::filesystem::path& dir,
                                                const CompareResult& result);

/// sweep.{csv,json,md}; plots/sweep-*.svg (tokens per character, unknown rate,
/// embedding parameters against sequence length); report.html.
TOKENLAB_API ReportBundle write_sweep_reports(const std::filesystem::path& dir,
                                              const SweepResult& sweep);

}  // namespace tokenlab
