// bench_utf8: UTF-8 validation of a text's lines, timed in-process, each
// validator alone (docs/performance.md, eleventh round).
//
// usage: tokenlab_bench_utf8 TEXT [ROUNDS]
//   TEXT    split into lines as `tokenlab encode` reads it (lines_of); ROUNDS (default 9)
// Prints, for the portable DFA, the SSSE3 lookup validator (the DFA again where
// the CPU lacks SSSE3) and find_invalid (what encode calls), the fastest of
// ROUNDS passes over every line in milliseconds, and how many lines each found
// ill-formed (the same count, or the validators disagree: exit 1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/lines.hpp"
#include "tokenlab/utf8.hpp"

namespace {

template <class Validate>
void time_validator(const char* name, const std::vector<std::string_view>& lines, int rounds,
                    Validate validate, std::size_t& ill_formed) {
  double best = 1e300;
  for (int round = 0; round < rounds; ++round) {
    std::size_t bad = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const std::string_view line : lines) bad += validate(line) ? 0 : 1;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, ms);
    ill_formed = bad;
  }
  std::printf("%-20s %9.3f ms  %zu ill-formed lines\n", name, best, ill_formed);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: tokenlab_bench_utf8 TEXT [ROUNDS]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "tokenlab_bench_utf8: cannot open %s\n", argv[1]);
    return 2;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const int rounds = argc == 3 ? std::max(1, std::atoi(argv[2])) : 9;
  std::vector<std::string_view> lines;
  for (const std::string_view line : tokenlab::lines_of(text)) lines.push_back(line);
  namespace utf8 = tokenlab::utf8;
  std::size_t portable = 0, vector = 0, found = 0;
  time_validator("dfa", lines, rounds, utf8::detail::well_formed_portable, portable);
  time_validator("ssse3", lines, rounds, utf8::detail::well_formed_vector, vector);
  time_validator(
      "find_invalid", lines, rounds,
      [](std::string_view line) { return !utf8::find_invalid(line).has_value(); }, found);
  std::printf("%zu lines, %zu bytes\n", lines.size(), text.size());
  return portable == vector && vector == found ? 0 : 1;
}
