// File: error.hpp
// The one exception type tokenlab throws across library and plugin boundaries.
//
// Every failure a user can cause (bad input, bad options, bad files) is reported
// as a tokenlab::Error whose what() is a complete, one-line message naming the
// file, line and problem where they are known. The CLI prints it after "error: ".
#pragma once

#include <stdexcept>
#include <string>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// A user-facing failure with a complete message. Thrown by the framework and
/// by plugins; the type is exported so that catch clauses work across modules.
class TOKENLAB_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  ~Error() override;  // out of line: anchors the vtable and typeinfo in libtokenlab_core
};

}  // namespace tokenlab
