#include "tokenlab/lorenz.hpp"

#include <algorithm>
#include <cstddef>

namespace tokenlab {

std::vector<std::pair<double, double>> lorenz_curve(std::vector<double> values) {
  std::vector<std::pair<double, double>> points;
  if (values.empty()) return points;
  std::sort(values.begin(), values.end());
  double total = 0.0;
  for (const double v : values) total += v;
  const auto n = static_cast<double>(values.size());
  points.reserve(values.size() + 1);
  points.emplace_back(0.0, 0.0);
  double cumulative = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    cumulative += values[i];
    const double x = static_cast<double>(i + 1) / n;
    points.emplace_back(x, total > 0.0 ? cumulative / total : x);
  }
  return points;
}

}  // namespace tokenlab
