// File: atomic_file.hpp
// Writes a file so that readers see either the old file or the complete new one.
//
//   write_file_atomically("out.csv", [&](std::ostream& out) { out << csv; });
//
// Writes to "<path>.tmp-XXXXXX" beside the target, flushes, then renames. On any
// failure (including an exception from the writer) the temporary file is removed
// and an Error names the path and the reason.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// Throws Error naming path unless it can be written: it is not a directory and
/// its directory exists and is writable. Cheap, so callers run it before long work
/// whose result goes to path; write_file_atomically runs it too.
TOKENLAB_API void check_writable(const std::filesystem::path& path);

TOKENLAB_API void write_file_atomically(const std::filesystem::path& path,
                                        const std::function<void(std::ostream&)>& writer);

}  // namespace tokenlab
