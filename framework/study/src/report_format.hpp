// File: report_format.hpp
// A label as the comparison table spells it (numbers: fixed_decimals in
// report.hpp). Internal to tokenlab_study.
#pragma once

#include <string>

#include "tokenlab/compare.hpp"

namespace tokenlab::report_format {

/// label, with " (pretrained)" when its rows are a real model's tokenizer.
inline std::string row_label(const CompareResult& result, const std::string& label) {
  for (const auto& row : result.rows)
    if (row.algorithm == label && row.pretrained) return label + " (pretrained)";
  return label;
}

}  // namespace tokenlab::report_format
