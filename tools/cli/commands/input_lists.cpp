#include "commands/input_lists.hpp"

namespace tokenlab::cli {

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace tokenlab::cli
