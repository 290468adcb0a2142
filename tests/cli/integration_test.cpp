// Integration: compare character and word on real parallel text (NTREX-128),
// English and Hindi, when the shared corpora are present.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "common/skip.hpp"

using namespace tokenlab::test;
namespace fs = std::filesystem;

namespace {

// Finds "en.txt" or "eng*.txt" style names for a language.
std::string find_language_file(const fs::path& dir, const std::string& iso1,
                               const std::string& iso3) {
  for (const auto& name : {iso1 + ".txt", iso3 + ".txt"})
    if (fs::is_regular_file(dir / name)) return (dir / name).string();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(iso3, 0) == 0 && entry.is_regular_file()) return entry.path().string();
  }
  return {};
}

using Row = std::map<std::string, std::string>;

std::map<std::string, Row> compare_rows(const std::string& corpus, const TempDir& dir,
                                        const std::string& tag) {
  const std::string reports = dir / ("reports-" + tag);
  const RunResult r =
      run_tokenlab({"compare", "--corpus", corpus, "--algorithms", "character,word", "--vocab-size",
                    "2000", "--held-out", "0.1", "--report-dir", reports});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = split_lines(read_bytes(reports + "/compare.csv"));
  REQUIRE(lines.size() == 3);
  const auto header = csv_cells(lines[0]);
  std::map<std::string, Row> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = csv_cells(lines[i]);
    REQUIRE(cells.size() == header.size());
    Row row;
    for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = cells[c];
    rows[cells[0]] = row;
  }
  return rows;
}

double number(const Row& row, const std::string& column) {
  INFO("column " << column);
  REQUIRE(row.count(column) == 1);
  return std::stod(row.at(column));
}

}  // namespace

TEST_CASE("character and word compare sanely on NTREX-128 English and Hindi",
          "[cli][integration]") {
  const fs::path dir = shared_dir() / "corpora" / "parallel" / "ntrex128";
  if (!fs::is_directory(dir)) TOKENLAB_SKIP(dir.string() << " does not exist");
  const std::string english = find_language_file(dir, "en", "eng");
  const std::string hindi = find_language_file(dir, "hi", "hin");
  REQUIRE_FALSE(english.empty());
  REQUIRE_FALSE(hindi.empty());
  TempDir work;

  for (const auto& [language, corpus] :
       std::vector<std::pair<std::string, std::string>>{{"eng", english}, {"hin", hindi}}) {
    INFO(language << ": " << corpus);
    auto rows = compare_rows(corpus, work, language);
    REQUIRE(rows.count("character") == 1);
    REQUIRE(rows.count("word") == 1);
    const Row& character = rows.at("character");
    const Row& word = rows.at("word");
    CHECK(character.at("note").find("error") == std::string::npos);

    // The word baseline is one token per word, with many held-out words unknown.
    CHECK(number(word, "tok/word") == Approx(1.0));
    CHECK(number(word, "unk word%") > 5.0);
    CHECK(number(word, "unk word%") < 80.0);
    // Characters: several tokens per word, almost nothing unknown.
    CHECK(number(character, "tok/word") > 2.5);
    CHECK(number(character, "tok/word") < 10.0);
    CHECK(number(character, "unk chr%") < 1.0);
    CHECK(number(character, "chars/tok") <= 1.0);
    // Both covered the same held-out text.
    CHECK(number(character, "tokens") > number(word, "tokens"));
    for (const auto& row : {character, word}) {
      CHECK(number(row, "renyi") > 0.0);
      CHECK(number(row, "renyi") <= 1.0);
      CHECK(number(row, "vocab") <= 2000);
    }
  }
}
