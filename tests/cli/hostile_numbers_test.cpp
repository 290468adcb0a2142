// Hostile numbers on the command line: sampling parameters out of range, sampling
// that must never drop text, and counts files that would overflow 2^64-1.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

const std::string kEnglish = data_file("corpus/english.txt");

std::string train(const TempDir& dir, const std::string& algorithm) {
  const std::string model = dir / (algorithm + ".tkl");
  const RunResult r =
      run_tokenlab({"train", "-a", algorithm, "-v", "400", "--corpus", kEnglish, "-o", model});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return model;
}

}  // namespace

TEST_CASE("encode --alpha and --dropout sample without dropping text, whatever the value",
          "[cli][sampling][hostile]") {
  TempDir dir;
  const std::string text = "hello world unbelievable\nx y z\n";
  SECTION("unigram at extreme alphas decodes back to the input") {
    const std::string model = train(dir, "unigram");
    for (const std::string alpha : {"0", "1e-300", "0.1", "1e307", "1.7976931348623157e308"}) {
      INFO("alpha " << alpha);
      const RunResult encoded = run_tokenlab({"encode", "-m", model, "--alpha", alpha}, text);
      REQUIRE(encoded.exit_code == 0);
      const RunResult decoded = run_tokenlab({"decode", "-m", model}, encoded.out);
      REQUIRE(decoded.exit_code == 0);
      CHECK(decoded.out == text);
    }
    const RunResult pieces =
        run_tokenlab({"encode", "-m", model, "--alpha", "1e307", "--pieces"}, "hello world\n");
    std::string joined;  // the pieces without their separating spaces
    for (const char c : pieces.out)
      if (c != ' ') joined += c;
    CHECK(joined == "▁hello▁world\n");
  }
  SECTION("BPE at dropout 0, a tiny one and 1 decodes back to the input") {
    const std::string model = train(dir, "bpe");
    for (const std::string dropout : {"0", "1e-300", "0.5", "1"}) {
      INFO("dropout " << dropout);
      const RunResult encoded = run_tokenlab({"encode", "-m", model, "--dropout", dropout}, text);
      REQUIRE(encoded.exit_code == 0);
      const RunResult decoded = run_tokenlab({"decode", "-m", model}, encoded.out);
      REQUIRE(decoded.exit_code == 0);
      CHECK(decoded.out == text);
    }
  }
}

TEST_CASE("encode refuses NaN, infinite and negative sampling parameters with the valid range",
          "[cli][sampling][hostile][usage]") {
  TempDir dir;
  const std::string model = dir / "missing.tkl";  // option parsing fails before loading
  for (const std::string option : {"--alpha", "--dropout"}) {
    for (const std::string value : {"nan", "-nan", "inf", "-1", "-0.5", "1e400"}) {
      INFO(option << " " << value);
      const RunResult r = run_tokenlab({"encode", "-m", model, option, value}, "hello\n");
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: ") &&
                                           Catch::Contains(option.substr(2)) &&
                                           Catch::Contains("[0, "));
    }
  }
  const RunResult r = run_tokenlab({"encode", "-m", model, "--dropout", "1.5"}, "hello\n");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.first_error_line(), Catch::Contains("[0, 1]"));
}

TEST_CASE("count --merge refuses counts past 2^64-1, naming the file and the word",
          "[cli][count][hostile]") {
  TempDir dir;
  write_bytes(dir / "a.tsv", "hello\t18446744073709551614\n");
  write_bytes(dir / "b.tsv", "hello\t2\n");
  const std::string out = dir / "merged.tsv";
  const RunResult r = run_tokenlab({"count", "--merge", dir / "a.tsv", dir / "b.tsv", "-o", out});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.first_error_line(), Catch::StartsWith("error: ") &&
                                       Catch::Contains((dir / "b.tsv").string()) &&
                                       Catch::Contains("'hello'") && Catch::Contains("overflow"));
  CHECK_FALSE(std::filesystem::exists(out));
  SECTION("exactly 2^64-1 in total merges") {
    write_bytes(dir / "c.tsv", "hello\t18446744073709551614\n");
    write_bytes(dir / "d.tsv", "hello\t1\n");
    const RunResult ok =
        run_tokenlab({"count", "--merge", dir / "c.tsv", dir / "d.tsv", "-o", out});
    INFO(ok.err);
    REQUIRE(ok.exit_code == 0);
    CHECK(read_bytes(out) == "hello\t18446744073709551615\n");
  }
}

TEST_CASE("a literal U+2581 in the input decodes as a space, as docs/file-formats.md says",
          "[cli][hostile]") {
  // Documented, not escaped: the marker and a literal U+2581 are the same
  // character (as in SentencePiece). If this changes, update file-formats.md.
  TempDir dir;
  for (const std::string algorithm : {"unigram", "bpe"}) {
    INFO(algorithm);
    const std::string model = train(dir, algorithm);
    const RunResult encoded = run_tokenlab({"encode", "-m", model},
                                           "the\xE2\x96\x81"
                                           "end\n");
    REQUIRE(encoded.exit_code == 0);
    const RunResult decoded = run_tokenlab({"decode", "-m", model}, encoded.out);
    REQUIRE(decoded.exit_code == 0);
    CHECK(decoded.out == "the end\n");
  }
}
