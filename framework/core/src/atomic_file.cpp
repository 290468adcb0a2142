#include "tokenlab/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <streambuf>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

namespace fs = std::filesystem;

std::string errno_text(int error) {
  return std::strerror(error);
}

// Follows symbolic links (not only the last component's) to the file that a write
// to path would reach; the result need not exist (a dangling link).
fs::path resolve_links(const fs::path& path) {
  fs::path p = path;
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(p, ec)) return p;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw Error(path.string() + ": cannot read symbolic link: " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw Error(path.string() + ": too many levels of symbolic links");
}

fs::path parent_of(const fs::path& path) {
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

// Whether a file's data is to be fsynced when written: the streambuf then starts
// its writeback as it goes.
enum class Durability { none, fsync_at_end };

// A streambuf writing to a file descriptor, remembering the first errno. For a
// file fsynced at the end, every MiB written is handed to the kernel's
// writeback at once (sync_file_range, which does not wait): the final fsync
// then waits for the last MiB, not the whole file. That fsync was serial time
// at the end of every `tokenlab encode` (6 ms of a 10 MB file's 160 on two
// threads, the disk shared).
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd, Durability durability = Durability::none)
      : fd_(fd), durability_(durability), buffer_(std::size_t{1} << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  [[nodiscard]] int error() const noexcept { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < static_cast<std::streamsize>(buffer_.size()) / 2) return std::streambuf::xsputn(s, n);
    if (!flush_buffer() || !write_all(s, static_cast<std::size_t>(n))) return 0;
    return n;
  }
  int sync() override { return flush_buffer() ? 0 : -1; }

 private:
  bool flush_buffer() {
    const bool ok = write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok;
  }
  bool write_all(const char* data, std::size_t size) {
    if (error_ != 0) return false;
    while (size > 0) {
      const ssize_t written = ::write(fd_, data, size);
      if (written < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      data += written;
      size -= static_cast<std::size_t>(written);
      written_ += static_cast<std::uint64_t>(written);
    }
    start_writeback();
    return true;
  }

  void start_writeback() noexcept {
#if defined(__linux__)
    constexpr std::uint64_t kStep = std::uint64_t{1} << 20;
    if (durability_ != Durability::fsync_at_end || written_ - started_ < kStep) return;
    // Advisory: a failure here (a file system without it) leaves the work to
    // fsync, which reports any write error.
    ::sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(written_ - started_),
                      SYNC_FILE_RANGE_WRITE);
    started_ = written_;
#endif
  }

  int fd_;
  Durability durability_;
  std::uint64_t written_ = 0;  // bytes written, from offset 0: the file is written in order
  std::uint64_t started_ = 0;  // bytes whose writeback has been started
  std::vector<char> buffer_;
  int error_ = 0;
};

// Runs writer on fd; throws Error naming path if the writer or a write fails.
void write_to_fd(int fd, const fs::path& path, const std::function<void(std::ostream&)>& writer,
                 Durability durability = Durability::none) {
  FdStreamBuf buffer(fd, durability);
  std::ostream out(&buffer);
  writer(out);
  out.flush();
  if (!out || buffer.error() != 0)
    throw Error(path.string() + ": write failed: " +
                (buffer.error() != 0 ? errno_text(buffer.error()) : std::string("stream error")));
}

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  // Closes now and reports the error close() saw (NFS reports write errors here).
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// Writes through a FIFO or character device, which cannot be replaced atomically.
void write_through(const fs::path& path, const std::function<void(std::ostream&)>& writer) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(path.string() + ": cannot open for writing: " + errno_text(errno));
  FdCloser closer(fd);
  write_to_fd(fd, path, writer);
  if (closer.close() != 0) throw Error(path.string() + ": write failed: " + errno_text(errno));
}

std::string temp_prefix(const fs::path& target) {
  return "." + target.filename().string() + ".tmp-";
}

// Removes ".NAME.tmp-PID-XXXXXX" files beside target whose writer process is gone.
void remove_stale_temporaries(const fs::path& target) {
  const std::string prefix = temp_prefix(target);
  std::error_code ec;
  fs::directory_iterator it(parent_of(target), ec);
  if (ec) return;
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return;
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    long pid = 0;
    const auto [ptr, err] = std::from_chars(first, last, pid);
    if (err != std::errc() || ptr == last || *ptr != '-' || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive or unknown
    std::error_code ignored;
    if (fs::is_regular_file(fs::symlink_status(it->path(), ignored)))
      fs::remove(it->path(), ignored);
  }
}

// Creates the temporary file with O_EXCL and mode 0666, so the umask applies.
int create_temporary(const fs::path& target, std::string& name) {
  static std::atomic<std::uint64_t> counter{0};
  thread_local std::mt19937_64 random(std::random_device{}() ^
                                      (counter.fetch_add(1) * 0x9E3779B97F4A7C15ULL));
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const std::string base =
      (parent_of(target) / (temp_prefix(target) + std::to_string(::getpid()) + "-")).string();
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = base;
    for (int i = 0; i < 6; ++i) name += kAlphabet[random() % (sizeof kAlphabet - 1)];
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST)
      throw Error(target.string() + ": cannot create a temporary file: " + errno_text(errno));
  }
  throw Error(target.string() + ": cannot create a temporary file: too many collisions");
}

void sync_directory(const fs::path& target) {
  const int fd = ::open(parent_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; a directory we cannot open we cannot sync
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0 && error != EINVAL && error != EROFS)
    throw Error(target.string() +
                ": written, but syncing its directory failed: " + errno_text(error));
}

void replace_atomically(const fs::path& target, const std::function<void(std::ostream&)>& writer) {
  remove_stale_temporaries(target);
  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  std::string temp;
  const int fd = create_temporary(target, temp);
  FdCloser closer(fd);
  try {
    if (exists) {
      // Keep the mode (a 0600 model stays private) and, where permitted, the owner.
      if (::fchmod(fd, existing.st_mode & 07777) != 0)
        throw Error(target.string() + ": cannot set the mode: " + errno_text(errno));
      if ((existing.st_uid != ::geteuid() || existing.st_gid != ::getegid()) &&
          ::fchown(fd, existing.st_uid, existing.st_gid) != 0) {
        // Only root may give a file away: the new file is then ours, as with cp.
      }
    }
    write_to_fd(fd, target, writer, Durability::fsync_at_end);
    if (::fsync(fd) != 0)
      throw Error(target.string() + ": write failed (fsync): " + errno_text(errno));
    if (closer.close() != 0) throw Error(target.string() + ": write failed: " + errno_text(errno));
    if (::rename(temp.c_str(), target.c_str()) != 0)
      throw Error(target.string() + ": cannot replace: " + errno_text(errno));
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  sync_directory(target);
}

}  // namespace

void check_writable(const fs::path& path) {
  const fs::path target = resolve_links(path);
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status)) {
    switch (status.type()) {
      case fs::file_type::directory:
        throw Error(path.string() + ": is a directory");
      case fs::file_type::regular:
        break;
      case fs::file_type::fifo:
      case fs::file_type::character:
        if (::access(target.c_str(), W_OK) != 0)
          throw Error(path.string() + ": cannot write: " + errno_text(errno));
        return;  // written through, not replaced
      default:
        throw Error(path.string() +
                    ": is not a regular file, FIFO or character device; refusing to replace it");
    }
  }
  const fs::path parent = parent_of(target);
  if (!fs::is_directory(parent, ec))
    throw Error(path.string() + ": cannot write: directory '" + parent.string() +
                "' does not exist");
  if (::access(parent.c_str(), W_OK) != 0)
    throw Error(path.string() + ": cannot write: directory '" + parent.string() +
                "' is not writable");
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& writer) {
  check_writable(path);
  const fs::path target = resolve_links(path);
  std::error_code ec;
  const fs::file_type type = fs::status(target, ec).type();
  if (type == fs::file_type::fifo || type == fs::file_type::character) {
    write_through(target, writer);
    return;
  }
  try {
    replace_atomically(target, writer);
  } catch (const Error& e) {
    if (target == path) throw;
    throw Error(std::string(e.what()) + " (through the symbolic link " + path.string() + ")");
  }
}

bool same_file(const fs::path& a, const fs::path& b) noexcept {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void check_output_is_not_input(const fs::path& output, const std::vector<fs::path>& inputs) {
  if (output.empty() || output == "-") return;
  struct stat so {};
  if (::stat(output.c_str(), &so) != 0 || !S_ISREG(so.st_mode)) return;
  for (const auto& input : inputs) {
    if (input.empty() || input == "-") continue;
    if (same_file(output, input))
      throw Error(output.string() + ": is also an input (" + input.string() +
                  "); refusing to overwrite it");
  }
}

}  // namespace tokenlab
