// File: lorenz.hpp
// The Lorenz curve of non-negative values (a segmenter's token counts per
// language on aligned text), drawn beside the Gini coefficient in the reports.
//
//   auto points = lorenz_curve({10, 10, 40});
//   // (0, 0), (1/3, 1/6), (2/3, 1/3), (1, 1)
//   // Gini = 1 - 2 * (area under the points, by trapezoids) = gini_coefficient(...)
#pragma once

#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// The Lorenz curve of the values, as swiss-ai/tokenizer-intrinsic-evals's
/// compute_lorenz_curve_data draws it: the values sorted ascending, point i is
/// (i / n, sum of the i smallest / sum of all), from (0, 0) to (1, 1), n + 1
/// points. The area between the diagonal and these points joined by straight
/// lines, doubled, is gini_coefficient(values) (docs/metrics.md). Empty values
/// give no points; values summing to 0 (no inequality to show) give the
/// diagonal, as gini_coefficient gives 0.
[[nodiscard]] TOKENLAB_API std::vector<std::pair<double, double>> lorenz_curve(
    std::vector<double> values);

}  // namespace tokenlab
