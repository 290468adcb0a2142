// The default-corpus cleaner, on a fixture shaped like real diatheke output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/skip.hpp"
#include "test_support.hpp"
#include "tokenlab/default_corpus.hpp"

namespace {

const std::string kDataDir = TOKENLAB_TEST_DATA_DIR;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Properties every cleaned line must have, whatever the input.
void check_clean(const std::vector<std::string>& lines) {
  static const std::regex case_join("[a-z][A-Z]");
  static const std::regex reference("^(?:[IV]+ )?[A-Z][A-Za-z ()]* \\d+:\\d+: ");
  for (const auto& line : lines) {
    INFO(line);
    REQUIRE_FALSE(line.empty());
    REQUIRE(line.find('<') == std::string::npos);
    REQUIRE(line.find('[') == std::string::npos);
    REQUIRE(line.find(']') == std::string::npos);
    REQUIRE(line.find("  ") == std::string::npos);
    REQUIRE(line.front() != ' ');
    REQUIRE(line.back() != ' ');
    REQUIRE_FALSE(std::regex_search(line, case_join));
    REQUIRE_FALSE(std::regex_search(line, reference));
  }
}

// Standard output of a shell command.
std::string command_output(const char* command) {
  FILE* pipe = ::popen(command, "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("the diatheke cleaner keeps verse text only, exactly", "[default_corpus]") {
  std::ifstream in(kDataDir + "/diatheke/sample_raw.txt", std::ios::binary);
  REQUIRE(in);
  std::ostringstream out;
  const std::size_t written = tokenlab::clean_diatheke_output(in, out);
  const auto lines = lines_of(out.str());
  const auto expected =
      lines_of(tokenlab::test::read_bytes(kDataDir + "/diatheke/sample_clean.txt"));
  CHECK(lines == expected);
  CHECK(written == lines.size());
  check_clean(lines);

  SECTION("the repeated Psalm 151 title artifact is kept once") {
    CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
            return l.rfind("This Psalm is a genuine one of David", 0) == 0;
          }) == 1);
  }
  SECTION("nothing after Revelation 22:21 survives: no glossary, no module name") {
    CHECK(lines.back() == "The grace of the Lord Jesus Christ be with all the saints. Amen.");
  }
}

TEST_CASE("the cleaner accepts CRLF input and empty input", "[default_corpus]") {
  std::istringstream crlf("Genesis 1:1: In the beginning.\r\nGenesis 1:2: The earth.\r\n");
  std::ostringstream out;
  CHECK(tokenlab::clean_diatheke_output(crlf, out) == 2);
  CHECK(out.str() == "In the beginning.\nThe earth.\n");
  std::istringstream empty("");
  std::ostringstream none;
  CHECK(tokenlab::clean_diatheke_output(empty, none) == 0);
  CHECK(none.str().empty());
}

// Runs the real extraction when diatheke and the module are installed (about 20 s);
// skipped otherwise. Once both are there, a short or broken extraction fails.
TEST_CASE("the cleaned real World English Bible starts at Genesis and ends at Revelation",
          "[default_corpus][.slow]") {
  const std::string modules = command_output("diatheke -b system -k modulelist 2>/dev/null");
  if (modules.find("engWEB2015eb") == std::string::npos)
    TOKENLAB_SKIP("diatheke or its engWEB2015eb module (sword-text-web) is not installed");
  const std::string raw = command_output(
      "diatheke -b engWEB2015eb -f plain -o f -k 'Genesis 1:1-Revelation 22:21' 2>/dev/null");
  REQUIRE(raw.size() > 1000000);
  std::istringstream in(raw);
  std::ostringstream out;
  tokenlab::clean_diatheke_output(in, out);
  const auto lines = lines_of(out.str());
  CHECK(lines.size() > 30000);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.front() == "In the beginning, God created the heavens and the earth.");
  CHECK(lines.back() == "The grace of the Lord Jesus Christ be with all the saints. Amen.");
  check_clean(lines);
}

// Real module output repeats Psalm 145's title, with an emptied footnote, before
// about 11,000 later verses (Tobit, Judith, Esther (Greek)...). Like the Psalm 151
// artifact, it must survive at most once.
TEST_CASE("the repeated 'A praise psalm by David.' artifact is kept at most once",
          "[default_corpus]") {
  std::istringstream in(
      "A praise psalm by David. \n"
      "  Psalms 145:1: I will exalt you, my God, the King.\n"
      "A praise psalm by David. [] \n"
      "  Tobit 6:17: The demon will smell it, and flee away.\n"
      "A praise psalm by David. [] \n"
      "  Tobit 7:1: They came to Ecbatana.\n");
  std::ostringstream out;
  tokenlab::clean_diatheke_output(in, out);
  const auto lines = lines_of(out.str());
  CHECK(std::count(lines.begin(), lines.end(), "A praise psalm by David.") <= 1);
  CHECK(std::count(lines.begin(), lines.end(), "They came to Ecbatana.") == 1);
}
