// The single Catch2 main shared by every test executable; it holds no tests.
// A run in which a case called TOKENLAB_SKIP and nothing failed exits with
// kSkipExitCode, which CTest reports as "Skipped" (see common/skip.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "common/skip.hpp"

int main(int argc, char* argv[]) {
  const int failures = Catch::Session().run(argc, argv);
  if (failures != 0)
    return failures == tokenlab::test::kSkipExitCode ? 1 : failures;  // never a false skip
  return tokenlab::test::skipped() ? tokenlab::test::kSkipExitCode : 0;
}
