// Builds TrainOptions field by field: g++ warns (-Wmissing-field-initializers)
// on designated initializers that leave members out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/train_options.hpp"

namespace tokenlab::wordpiece::testing {

struct Options {
  TrainOptions value;
  explicit Options(std::size_t vocab_size) { value.vocab_size = vocab_size; }
  Options& coverage(double c) {
    value.character_coverage = c;
    return *this;
  }
  Options& min_frequency(std::uint64_t m) {
    value.min_frequency = m;
    return *this;
  }
  Options& threads(unsigned t) {
    value.threads = t;
    return *this;
  }
  Options& specials(std::vector<std::string> s) {
    value.special_tokens = std::move(s);
    return *this;
  }
  Options& extra(const std::string& key, const std::string& v) {
    value.extra[key] = v;
    return *this;
  }
  operator const TrainOptions&() const { return value; }  // NOLINT: used as an argument
};

}  // namespace tokenlab::wordpiece::testing
