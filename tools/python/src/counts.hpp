// File: counts.hpp
// tokenlab.WordCounts and tokenlab.count().
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "keywords.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::python {

namespace py = pybind11;

using CountsPtr = std::shared_ptr<WordCounts>;

/// counts=WordCounts takes the table itself (the option tables declare only
/// counts files): sets given and returns true for it.
KeywordHook counts_object(std::shared_ptr<const WordCounts>& given);

/// Registers WordCounts and count().
void bind_counts(py::module_& m);

}  // namespace tokenlab::python
