// File: plot.hpp
// SVG charts drawn by gnuplot (Debian's gnuplot-nox), for the reports.
//
//   PlotSpec spec{.title = "Tokens per character", .x_label = "vocabulary size",
//                 .y_label = "tokens / character", .log_x = true};
//   spec.series.push_back({"bpe", {{1000, 0.31}, {8000, 0.24}}});
//   std::string svg = render_svg(spec);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // x, y (line charts)
  std::vector<double> values;                     // one per category (bar charts)
};

enum class PlotStyle { lines, bars };

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  PlotStyle style = PlotStyle::lines;
  std::vector<std::string> categories{};  // bar charts: the x axis
  std::vector<PlotSeries> series{};
  /// Line charts: when not empty, both axes run from 0 to 1 (square) and the diagonal
  /// y = x is drawn dashed under this title (a Lorenz curve's line of equality).
  std::string diagonal{};
};

/// True when a gnuplot executable is on the PATH.
TOKENLAB_API bool gnuplot_available();

/// The chart as an SVG document. Throws Error if gnuplot is missing or fails.
TOKENLAB_API std::string render_svg(const PlotSpec& spec);

}  // namespace tokenlab
