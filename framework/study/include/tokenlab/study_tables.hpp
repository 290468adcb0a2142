// File: study_tables.hpp
// The tables of compare's studies beyond compression: morphological alignment
// (--morph-gold) and inference methods (--inference). Terminal, CSV, JSON and
// Markdown through report.hpp's writers, like compare's other tables.
//
//   if (!result.morphology.empty()) write_terminal(std::cout, morphology_table(result));
//   if (!result.inference.empty()) write_terminal(std::cout, inference_table(result));
#pragma once

#include <iosfwd>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/plot.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

/// One row per (row label, gold set): boundary P/R/F1 per boundary and per word,
/// exact words, MorphScore with the words it excluded, tokens per morpheme.
[[nodiscard]] TOKENLAB_API ReportTable morphology_table(const CompareResult& result);
/// One row per (tokenizer, method, language): tokens against the own encoding's,
/// the share of words segmented differently and the boundary F1 between them.
[[nodiscard]] TOKENLAB_API ReportTable inference_table(const CompareResult& result);

/// Bars per row label: boundary F1 and MorphScore on each gold set (report.html).
[[nodiscard]] TOKENLAB_API PlotSpec morphology_plot(const CompareResult& result);
/// Bars per tokenizer, one per method: how many percent more tokens than the
/// own encoding (over every language), or with f1 the boundary F1 against it.
[[nodiscard]] TOKENLAB_API PlotSpec inference_plot(const CompareResult& result, bool f1);

/// Both tables on a terminal, each after a blank line, where the run has them.
TOKENLAB_API void write_study_tables(std::ostream& out, const CompareResult& result);

}  // namespace tokenlab
