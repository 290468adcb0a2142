// File: allocation_report.hpp
// compare --allocation as report tables and charts: per label and language the
// share of the vocabulary serving it, per label the summary, the pruning curve
// in long form, and the per-entry table (CSV only: one row per entry and
// language that uses it or would miss it).
//
//   if (!result.allocations.empty()) write_terminal(std::cout, allocation_table(result));
#pragma once

#include <string>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/plot.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

/// One row per (label, language): tokens, entries used, entries serving it and
/// their share of the vocabulary, their embedding parameters at each d_model,
/// the tokens the vocabulary saves it and those per million parameters.
[[nodiscard]] TOKENLAB_API ReportTable allocation_table(const CompareResult& result);
/// One row per label: the method run without entries, the entries removable,
/// unused and saving nothing, the units measured and the time taken.
[[nodiscard]] TOKENLAB_API ReportTable allocation_summary_table(const CompareResult& result);
/// One row per (label, vocabulary size kept, language): tokens, and their ratio
/// to the tokens with the whole vocabulary.
[[nodiscard]] TOKENLAB_API ReportTable allocation_pruning_table(const CompareResult& result);
/// One row per (label, entry, language) with a use or a saving.
[[nodiscard]] TOKENLAB_API ReportTable allocation_entries_table(const CompareResult& result);

/// Per label: one line per language, its tokens over its tokens with the whole
/// vocabulary, against the vocabulary size kept (log scale).
[[nodiscard]] TOKENLAB_API std::vector<PlotSpec> allocation_pruning_plots(
    const CompareResult& result);
/// Bars per language, one per label: the percent of the vocabulary serving it.
[[nodiscard]] TOKENLAB_API PlotSpec allocation_share_plot(const CompareResult& result);

}  // namespace tokenlab
