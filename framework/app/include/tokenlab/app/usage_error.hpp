// File: usage_error.hpp
// A mistake in how the application was asked (an option out of range, two
// options that exclude each other): the CLI exits with 2, Python raises
// InputError. Problems with the input itself are tokenlab::Error.
#pragma once

#include <stdexcept>

namespace tokenlab::app {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tokenlab::app
