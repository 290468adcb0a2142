// lines_of and numbered_lines: the lines of a text in memory, as the readers of
// line-based files (tiktoken ranks, benchmark texts) see them.
#include <catch2/catch.hpp>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>
#include <string>
#include <vector>

#include "tokenlab/lines.hpp"

using tokenlab::lines_of;
using tokenlab::numbered_lines;
using tokenlab::strip_cr;
using Lines = std::vector<std::string_view>;

TEST_CASE("lines: a text splits at its newlines, which the lines do not hold", "[lines]") {
  CHECK((lines_of("low\nlower\nnewest") | ranges::to<Lines>()) == Lines{"low", "lower", "newest"});
}

TEST_CASE("lines: a final newline ends the last line and starts no empty one", "[lines]") {
  CHECK((lines_of("low\nlower\n") | ranges::to<Lines>()) == Lines{"low", "lower"});
  CHECK((lines_of("\n") | ranges::to<Lines>()) == Lines{""});
  CHECK((lines_of("") | ranges::to<Lines>()).empty());
}

TEST_CASE("lines: empty lines in the middle count, and CR stays until stripped", "[lines]") {
  const Lines lines = lines_of("a\r\n\r\n\nb") | ranges::to<Lines>();
  CHECK(lines == Lines{"a\r", "\r", "", "b"});
  CHECK(strip_cr(lines[0]) == "a");
  CHECK(strip_cr(lines[2]).empty());
}

TEST_CASE("lines: numbered from 1, so messages can name the line", "[lines]") {
  std::vector<std::pair<std::size_t, std::string>> seen;
  for (const auto& [number, line] : numbered_lines("IQ== 0\n\nIg== 1\n"))
    seen.emplace_back(number, std::string(line));
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::pair<std::size_t, std::string>{1, "IQ== 0"});
  CHECK(seen[1].first == 2);
  CHECK(seen[2] == std::pair<std::size_t, std::string>{3, "Ig== 1"});
}

TEST_CASE("lines: the view composes with range-v3 adaptors", "[lines]") {
  const auto lengths = lines_of("low\n\nwidest\n") |
                       ranges::views::filter([](std::string_view l) { return !l.empty(); }) |
                       ranges::views::transform([](std::string_view l) { return l.size(); }) |
                       ranges::to<std::vector<std::size_t>>();
  CHECK(lengths == std::vector<std::size_t>{3, 6});
}
