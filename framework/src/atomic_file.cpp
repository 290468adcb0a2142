#include "tokenlab/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "tokenlab/error.hpp"

namespace tokenlab {

void check_writable(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path.string() + ": is a directory");
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(parent, ec))
    throw Error(path.string() + ": cannot write: directory '" + parent.string() +
                "' does not exist");
  if (::access(parent.c_str(), W_OK) != 0)
    throw Error(path.string() + ": cannot write: directory '" + parent.string() +
                "' is not writable");
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& writer) {
  namespace fs = std::filesystem;
  check_writable(path);
  std::error_code ec;
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string temp = (parent / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw Error(path.string() + ": cannot write: " + std::strerror(errno));
  ::fchmod(fd, 0644);  // mkstemp creates 0600; models and reports are meant to be shared
  ::close(fd);
  try {
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error(path.string() + ": cannot write: " + std::strerror(errno));
      writer(out);
      out.flush();
      if (!out) throw Error(path.string() + ": write failed (disk full?)");
    }
    fs::rename(temp, path, ec);
    if (ec) throw Error(path.string() + ": cannot replace: " + ec.message());
  } catch (...) {
    fs::remove(temp, ec);
    throw;
  }
}

}  // namespace tokenlab
