// File: atomic_file.hpp
// Writes a file so that readers see either the old file or the complete new one.
//
//   write_file_atomically("out.csv", [&](std::ostream& out) { out << csv; });
//
// What happens at the path:
// - A symbolic link is followed (up to 40 levels): its target is written, the
//   link itself stays. A dangling link creates its target.
// - A regular file, or no file: the data goes to ".NAME.tmp-PID-XXXXXX" beside
//   the target, which is fsynced, renamed over the target, and then the directory
//   is fsynced, so that after a crash or power loss the path holds either the old
//   or the complete new file. An existing file keeps its mode (and its owner where
//   permitted); a new file gets 0666 minus the umask. On any failure (including an
//   exception from the writer) the temporary is removed and an Error names the
//   path and the reason.
// - A FIFO or a character device (/dev/null, /dev/stdout on a terminal): written
//   through directly, not atomically, since it cannot be replaced by a file. A
//   FIFO blocks until a reader opens it, as with a shell redirection.
// - A directory, socket or block device: refused with an Error.
//
// A temporary left by a killed process (SIGKILL, power loss) carries the pid
// of its writer; the next write to the same path removes those whose process no
// longer exists (kill(pid, 0) fails with ESRCH). A temporary of a live process,
// or of a process in another pid namespace or on another host sharing the
// directory, is never touched.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// Throws Error naming path unless it can be written as described above: after
/// following symbolic links it is a writable FIFO or character device, or it is
/// (or will be) a regular file in an existing, writable directory. Cheap, so
/// callers run it before long work whose result goes to path;
/// write_file_atomically runs it too.
TOKENLAB_API void check_writable(const std::filesystem::path& path);

TOKENLAB_API void write_file_atomically(const std::filesystem::path& path,
                                        const std::function<void(std::ostream&)>& writer);

/// True if both paths exist and name the same file (same device and inode, after
/// following symbolic links), as with hard links or "a/../a".
[[nodiscard]] TOKENLAB_API bool same_file(const std::filesystem::path& a,
                                          const std::filesystem::path& b) noexcept;

/// Throws Error if output is an existing regular file that is also one of the
/// inputs (same_file), since writing it would destroy an input before or while it
/// is read. Inputs that are empty or "-" (standard input) are ignored.
TOKENLAB_API void check_output_is_not_input(const std::filesystem::path& output,
                                            const std::vector<std::filesystem::path>& inputs);

}  // namespace tokenlab
