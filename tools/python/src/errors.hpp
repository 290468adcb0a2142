// File: errors.hpp
// The module's exception types, and which of them a tokenlab::Error becomes.
#pragma once

#include <pybind11/pybind11.h>

#include <regex>
#include <string>

namespace tokenlab::python {

namespace py = pybind11;

inline PyObject* g_error = nullptr;        // tokenlab.Error
inline PyObject* g_input_error = nullptr;  // tokenlab.InputError(Error, ValueError)
inline PyObject* g_file_error = nullptr;   // tokenlab.FileError(Error, OSError)

// A tokenlab::Error is one type for every failure; its message says whether a
// file could not be read or written (the CLI's wording), which makes it an OSError.
inline bool is_file_problem(const std::string& message) {
  static const std::regex pattern(
      ": (cannot (open|read|write|create|replace|set the mode|load)|is a directory|no such "
      "(plugin )?file|not a directory|(report directory )?is not writable|read error)|No such "
      "file or "
      "directory|Permission denied");
  return std::regex_search(message, pattern);
}

}  // namespace tokenlab::python
