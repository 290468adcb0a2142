// The paired bootstrap of the comparison: percentile intervals of each row's
// premium, NSL and premium difference over resampled evaluation lines.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>

#include "compare_internal.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"

namespace tokenlab::compare_detail {

namespace {

// 95% percentile interval of values (sorted here), interpolated as numpy does.
Interval percentile_interval(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return values[below] + (values[above] - values[below]) * fraction;
  };
  return {at(0.025), at(0.975)};
}

}  // namespace

// Paired bootstrap over evaluation lines. Replicate b draws n lines with
// replacement from an engine seeded by (seed, b, n) alone, so every row of a
// language, and every language of aligned text (same n), is resampled with the
// same lines: the intervals are of paired differences and ratios. Each
// replicate is computed whole on one thread, so the result does not depend on
// the thread count.
void add_bootstrap_intervals(CompareResult& result, const std::vector<LineTokens>& line_tokens,
                             const std::string& reference, const std::string& baseline) {
  const auto& options = result.options;
  const std::size_t replicates = options.bootstrap_samples;
  auto& rows = result.rows;
  const auto find_row = [&](const std::string& label, const std::string& language) -> long {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].algorithm == label && rows[i].language == language && rows[i].error.empty() &&
          !line_tokens[i].empty())
        return static_cast<long>(i);
    return -1;
  };
  // Which rows take part: those with line tokens.
  std::vector<std::size_t> members;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].error.empty() && !line_tokens[i].empty()) members.push_back(i);
  if (members.empty() || replicates == 0) return;
  // sums[i][b]: row i's tokens over replicate b's lines.
  std::vector<std::vector<double>> sums(rows.size(), std::vector<double>(replicates, 0.0));
  parallel_for(replicates, resolve_threads(options.training.threads), [&](std::size_t b) {
    std::map<std::size_t, std::vector<std::uint32_t>> weights;  // by line count
    for (const std::size_t i : members) {
      const std::size_t n = line_tokens[i].size();
      auto [it, fresh] = weights.try_emplace(n);
      if (fresh) {
        it->second.assign(n, 0);
        std::mt19937_64 engine(options.training.seed ^ (0x9E3779B97F4A7C15ull * (b + 1)) ^
                               (0xC2B2AE3D27D4EB4Full * n));
        for (std::size_t k = 0; k < n; ++k) ++it->second[engine() % n];
      }
      double sum = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        sum += static_cast<double>(it->second[k]) * static_cast<double>(line_tokens[i][k]);
      sums[i][b] = sum;
    }
  });
  const auto interval_of = [&](auto&& value_of) -> std::optional<Interval> {
    std::vector<double> values;
    values.reserve(replicates);
    for (std::size_t b = 0; b < replicates; ++b) {
      const std::optional<double> v = value_of(b);
      if (!v) return std::nullopt;
      values.push_back(*v);
    }
    return percentile_interval(values);
  };
  const auto ratio_at = [&](long a, long d, std::size_t b) -> std::optional<double> {
    if (sums[static_cast<std::size_t>(d)][b] <= 0.0) return std::nullopt;
    return sums[static_cast<std::size_t>(a)][b] / sums[static_cast<std::size_t>(d)][b];
  };
  for (const std::size_t i : members) {
    auto& row = rows[i];
    const long self = static_cast<long>(i);
    const long ref = reference.empty() ? -1 : find_row(row.algorithm, reference);
    const long base = baseline.empty() ? -1 : find_row(baseline, row.language);
    if (ref >= 0 && row.premium)
      row.premium_interval = interval_of([&](std::size_t b) { return ratio_at(self, ref, b); });
    if (base >= 0 && row.nsl)
      row.nsl_interval = interval_of([&](std::size_t b) { return ratio_at(self, base, b); });
    const long base_ref =
        baseline.empty() || reference.empty() ? -1 : find_row(baseline, reference);
    if (ref >= 0 && base >= 0 && base_ref >= 0 && row.premium)
      row.premium_difference_interval = interval_of([&](std::size_t b) -> std::optional<double> {
        const auto mine = ratio_at(self, ref, b);
        const auto theirs = ratio_at(base, base_ref, b);
        if (!mine || !theirs) return std::nullopt;
        return *mine - *theirs;
      });
  }
}

}  // namespace tokenlab::compare_detail
