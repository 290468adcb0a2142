// File: vocabulary_report.hpp
// compare --audit and --agreement as report tables and charts: the audit as
// one row per label, the agreement as one row per pair of labels (the matrix in
// long form, for CSV and pandas) and as heat maps drawn without gnuplot.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/plot.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

/// One row per audited label: the counts of VocabularyAudit.
[[nodiscard]] TOKENLAB_API ReportTable audit_table(const CompareResult& result);
/// One row per ordered pair of labels (and language): Jaccard, word agreement,
/// boundary F1 and the words compared.
[[nodiscard]] TOKENLAB_API ReportTable agreement_table(const CompareResult& result);
/// The agreement as square tables, one per figure (Jaccard, words cut alike,
/// boundary F1) and language: what the terminal shows.
[[nodiscard]] TOKENLAB_API std::vector<ReportTable> agreement_matrix_tables(
    const CompareResult& result);
/// The audit's shares of each vocabulary as clustered bars (gnuplot).
[[nodiscard]] TOKENLAB_API PlotSpec audit_plot(const CompareResult& result);
/// One self-contained SVG heat map per agreement matrix and figure: caption, SVG.
[[nodiscard]] TOKENLAB_API std::vector<std::pair<std::string, std::string>> agreement_heat_maps(
    const CompareResult& result);
/// The heat map of one n x n matrix of values in [0, 1], labels on both axes.
[[nodiscard]] TOKENLAB_API std::string heat_map_svg(const std::string& title,
                                                    const std::vector<std::string>& labels,
                                                    const std::vector<double>& values);

}  // namespace tokenlab
