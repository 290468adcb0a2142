// File: compare_tables.hpp
// A comparison's results as report tables (the report writers in report.hpp
// print them as terminal text, CSV, JSON or Markdown) and its provenance.
//
//   CompareResult r = run_compare(registry, options);
//   write_terminal(std::cout, comparison_table(r));
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

/// The comparison table: one row per segmenter (and language), with run metadata.
TOKENLAB_API ReportTable comparison_table(const CompareResult& result);
/// Per algorithm: tokens per byte in each language, premium and Gini (multilingual runs).
TOKENLAB_API ReportTable fairness_table(const CompareResult& result);
/// One row per label over every language's evaluation text pooled (multilingual
/// runs with one tokenizer for all languages): swiss-ai's global figures.
TOKENLAB_API ReportTable pooled_table(const CompareResult& result);
/// One row per (size, segmenter[, language]): the sweep's curves as numbers.
TOKENLAB_API ReportTable sweep_table(const SweepResult& sweep);

/// Provenance shared by every report: version, options, corpus files and checksums.
TOKENLAB_API std::vector<std::pair<std::string, std::string>> run_metadata(
    const CompareResult& result);

}  // namespace tokenlab
