// File: compare.hpp
// tokenlab.compare(), tokenlab.sweep() and their results (compare.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace tokenlab::python {

/// Registers CompareResult, SweepResult, compare() and sweep().
void bind_compare(pybind11::module_& m);

}  // namespace tokenlab::python
