// File: commands/input_lists.hpp
// The input files of count and train as one list, for check_not_an_input.
#pragma once

#include <string>
#include <vector>

namespace tokenlab::cli {

/// a, then b: "--corpus FILE..." and "--counts FILE..." as one list of inputs.
std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b);

}  // namespace tokenlab::cli
