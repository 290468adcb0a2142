// run_conformance_isolated: the suite in a forked child, its results read back
// through a pipe, so that a plugin that crashes fails a check instead of killing
// the checker.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>

#include "tokenlab/child_pipe.hpp"
#include "tokenlab/conformance.hpp"

namespace tokenlab {

namespace {

// The child reports one line per event through the pipe (child_pipe.hpp):
// S <name> | R <p|f|s> <name> <detail> <warning>, tabs between the fields.

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    const char* text = strsignal(sig);
    return "the plugin crashed: signal " + std::to_string(sig) + " (" +
           (abbrev ? "SIG" + std::string(abbrev) + ", " : std::string()) +
           (text ? text : "unknown") + ")";
  }
  if (WIFEXITED(status))
    return "the plugin ended the checker with exit code " + std::to_string(WEXITSTATUS(status));
  return "the checker stopped abnormally";
}

// The child: runs the suite, writing each event to fd; never returns.
[[noreturn]] void run_child(int fd, const PluginRegistry& registry,
                            const std::string& plugin_name) {
  // A crash must end the child, not run a handler the parent installed (a test
  // framework's, say): the parent reports the signal.
  for (const int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
  ConformanceListener listener;
  listener.on_start = [&](const std::string& name) { write_all(fd, "S\t" + name + "\n"); };
  listener.on_result = [&](const ConformanceCheck& r) {
    const char* state = r.skipped ? "s" : r.passed ? "p" : "f";
    write_all(fd, std::string("R\t") + state + "\t" + r.check + "\t" + one_line(r.detail) + "\t" +
                      one_line(r.warning) + "\n");
  };
  try {
    run_conformance(registry, plugin_name, listener);
  } catch (...) {
    ::_exit(3);
  }
  ::_exit(0);
}

// The results the child wrote; running is the check it started last and did not end.
std::vector<ConformanceCheck> parse_events(const std::string& data, std::string& running) {
  std::vector<ConformanceCheck> results;
  std::istringstream lines(data);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      f.push_back(line.substr(start, tab - start));
    f.push_back(line.substr(start));
    if (f.size() == 2 && f[0] == "S") running = f[1];
    if (f.size() == 5 && f[0] == "R") {
      results.push_back({f[2], f[1] == "p", f[3], f[1] == "s", f[4]});
      running.clear();
    }
  }
  return results;
}

}  // namespace

std::vector<ConformanceCheck> run_conformance_isolated(const PluginRegistry& registry,
                                                       const std::string& plugin_name) {
  int fds[2];
  if (::pipe(fds) != 0) return run_conformance(registry, plugin_name);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return run_conformance(registry, plugin_name);
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], registry, plugin_name);
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string running;
  std::vector<ConformanceCheck> results = parse_events(data, running);
  const std::size_t total = conformance_checks().size();
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (clean_exit && results.size() == total) return results;
  // The child died: the running check failed, the rest never ran.
  const std::string why = describe_status(status);
  if (running.empty() && results.size() < total) running = conformance_checks()[results.size()];
  if (!running.empty()) results.push_back({running, false, why + " during this check", false, {}});
  for (std::size_t i = results.size(); i < total; ++i)
    results.push_back({conformance_checks()[i], false, "skipped: the plugin crashed", true, {}});
  return results;
}

}  // namespace tokenlab
