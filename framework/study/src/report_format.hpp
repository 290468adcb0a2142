// File: report_format.hpp
// What the study's table makers share: a number with fixed decimals, and a
// label as the comparison table spells it. Internal to tokenlab_study.
#pragma once

#include <cstdio>
#include <string>

#include "tokenlab/compare.hpp"

namespace tokenlab::report_format {

inline std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

/// label, with " (pretrained)" when its rows are a real model's tokenizer.
inline std::string row_label(const CompareResult& result, const std::string& label) {
  for (const auto& row : result.rows)
    if (row.algorithm == label && row.pretrained) return label + " (pretrained)";
  return label;
}

}  // namespace tokenlab::report_format
