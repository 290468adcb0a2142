// The training cap on word length: the same for every algorithm.
#include <catch2/catch.hpp>

#include <string>

#include "tokenlab/training_counts.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::leave_out_long_words;
using tokenlab::WordCounts;

TEST_CASE("words longer than the cap are left out of training, the rest keep their order",
          "[training_counts]") {
  WordCounts counts;
  counts.add("short", 3);
  counts.add(std::string(11, 'x'), 2);
  counts.add("also", 1);
  counts.add(std::string(12, 'y'), 1);
  const auto cut = leave_out_long_words(counts, 10);
  CHECK(cut.distinct == 2);
  CHECK(cut.occurrences == 3);
  REQUIRE(counts.size() == 2);
  CHECK(counts.entries()[0].word == "short");
  CHECK(counts.entries()[1].word == "also");
  CHECK(counts.total() == 4);
  CHECK(tokenlab::describe(cut, 10) ==
        "2 distinct words (3 occurrences) longer than 10 characters left out of training");
}

TEST_CASE("the cap counts code points, not bytes", "[training_counts]") {
  WordCounts counts;
  const std::string ten_cyrillic = "\u0436\u0436\u0436\u0436\u0436\u0436\u0436\u0436\u0436\u0436";
  counts.add(ten_cyrillic, 1);  // 20 bytes, 10 characters
  CHECK(leave_out_long_words(counts, 10).distinct == 0);
  CHECK(counts.size() == 1);
  CHECK(tokenlab::describe(leave_out_long_words(counts, 10)).empty());
}
