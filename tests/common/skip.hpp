// Skipping a test case whose resource is missing, so that CTest reports it as
// "Skipped" instead of "Passed".
//
// Catch2 v2 has no SKIP. TOKENLAB_SKIP(reason) prints the reason as a warning,
// records that the case was skipped, and returns from the test case. The shared
// main (tests/main.cpp) then exits with kSkipExitCode when nothing failed, and
// tokenlab_add_test_suite registers every discovered case with
// SKIP_RETURN_CODE kSkipExitCode. A case that skips must check its resource
// before it tests anything: a skip overrides a pass of what ran before it, so
// keep optional parts in test cases of their own.
//
// TOKENLAB_TEST_NO_SKIP=1 in the environment turns every skip into a failure,
// for a machine that is supposed to have every resource.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tokenlab::test {

inline constexpr int kSkipExitCode = 77;

// True once a test case in this process called TOKENLAB_SKIP.
inline bool& skipped() {
  static bool flag = false;
  return flag;
}

inline bool skips_are_failures() {
  const char* value = std::getenv("TOKENLAB_TEST_NO_SKIP");
  return value != nullptr && std::string(value) == "1";
}

// The shared corpora: $TOKENLAB_SHARED_DIR when set, else the build's default
// (../shared beside the source tree).
inline std::filesystem::path shared_dir() {
  const char* value = std::getenv("TOKENLAB_SHARED_DIR");
  return value != nullptr && *value != '\0' ? std::filesystem::path(value)
                                            : std::filesystem::path(TOKENLAB_SHARED_DIR);
}

}  // namespace tokenlab::test

#define TOKENLAB_SKIP(reason)                                         \
  do {                                                                \
    if (::tokenlab::test::skips_are_failures()) {                     \
      FAIL("resource missing (TOKENLAB_TEST_NO_SKIP=1): " << reason); \
    }                                                                 \
    WARN("SKIPPED: " << reason);                                      \
    ::tokenlab::test::skipped() = true;                               \
    return;                                                           \
  } while (false)
