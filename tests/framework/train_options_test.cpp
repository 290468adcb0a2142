// TrainOptions are checked once, on the host, before any plugin sees them.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/train_options.hpp"

using Catch::Matchers::Contains;
using tokenlab::TrainOptions;

TEST_CASE("the host rejects training options no trainer could honour", "[train_options]") {
  TrainOptions options;
  CHECK_NOTHROW(validate(options));
  SECTION("a zero vocabulary") {
    options.vocab_size = 0;
    CHECK_THROWS_WITH(validate(options), Contains("vocab_size"));
  }
  SECTION("a coverage of zero, above one, or not a number") {
    for (const double coverage : {0.0, 1.0000001, -0.5, std::nan("")}) {
      CAPTURE(coverage);
      options.character_coverage = coverage;
      CHECK_THROWS_WITH(validate(options), Contains("character_coverage"));
    }
  }
  SECTION("empty or repeated special tokens") {
    options.special_tokens = std::vector<std::string>{"<unk>", ""};
    CHECK_THROWS_WITH(validate(options), Contains("empty"));
    options.special_tokens = std::vector<std::string>{"<unk>", "<s>", "<unk>"};
    CHECK_THROWS_WITH(validate(options), Contains("'<unk>' is listed twice"));
  }
}
