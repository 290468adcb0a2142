// Report writers: the same table as terminal text, CSV, JSON and Markdown.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "tokenlab/report.hpp"

using tokenlab::ColumnKind;
using tokenlab::ReportTable;

namespace {

ReportTable sample_table() {
  ReportTable t;
  t.title = "Comparison";
  t.columns = {{"segmenter", ColumnKind::text, "plugin name"},
               {"vocab", ColumnKind::integer, ""},
               {"fertility", ColumnKind::real, "tokens per word"}};
  t.rows = {{"bpe", "8000", "1.25"}, {"character", "312", "4.70"}};
  t.metadata = {{"corpus", "bible.txt"}, {"held-out", "0.1"}};
  return t;
}

template <class Writer>
std::string render(Writer writer, const ReportTable& table) {
  std::ostringstream out;
  writer(out, table);
  return out.str();
}

}  // namespace

TEST_CASE("the terminal table aligns text left and numbers right", "[report]") {
  ReportTable t = sample_table();
  t.title.clear();
  CHECK(render(tokenlab::write_terminal, t) ==
        "segmenter  vocab  fertility\n"
        "---------------------------\n"
        "bpe         8000       1.25\n"
        "character    312       4.70\n");
  SECTION("widths count characters, not bytes") {
    t.rows.push_back({"na\u00EFve\u2581", "1", "2"});
    const std::string text = render(tokenlab::write_terminal, t);
    CHECK_THAT(text, Catch::Contains("\nna\u00EFve\u2581         1          2\n"));
  }
}

TEST_CASE("CSV fields are quoted only when needed, with doubled quotes", "[report]") {
  CHECK(tokenlab::csv_field("plain") == "plain");
  CHECK(tokenlab::csv_field("a,b") == "\"a,b\"");
  CHECK(tokenlab::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(tokenlab::csv_field("two\nlines") == "\"two\nlines\"");
  ReportTable t = sample_table();
  t.rows = {{"bpe, bytes", "8000", "1.25"}};
  CHECK(render(tokenlab::write_csv, t) == "segmenter,vocab,fertility\n\"bpe, bytes\",8000,1.25\n");
}

TEST_CASE("JSON strings are escaped and numeric columns are numbers", "[report]") {
  CHECK(tokenlab::json_quote("a\"b\\c\nd\te\x01") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  CHECK(tokenlab::json_quote("\u2581caf\u00E9") == "\"\u2581caf\u00E9\"");
  ReportTable t = sample_table();
  t.rows = {{"say \"hi\"", "8000", "-"}};
  const std::string json = render(tokenlab::write_json, t);
  CHECK_THAT(json, Catch::Contains("\"segmenter\": \"say \\\"hi\\\"\""));
  CHECK_THAT(json, Catch::Contains("\"vocab\": 8000"));
  CHECK_THAT(json, Catch::Contains("\"fertility\": null"));
  CHECK_THAT(json, Catch::Contains("\"corpus\": \"bible.txt\""));
  CHECK_THAT(json, Catch::Contains("\"title\": \"Comparison\""));
}

TEST_CASE("Markdown escapes pipes and right-aligns numeric columns", "[report]") {
  ReportTable t = sample_table();
  t.rows = {{"a|b", "1", "2.5"}};
  const std::string md = render(tokenlab::write_markdown, t);
  CHECK_THAT(md, Catch::StartsWith("# Comparison\n\n"
                                   "| segmenter | vocab | fertility |\n"
                                   "|---|---:|---:|\n"
                                   "| a\\|b | 1 | 2.5 |\n"));
  CHECK_THAT(md, Catch::Contains("- **fertility**: tokens per word"));
  CHECK_THAT(md, Catch::Contains("- corpus: bible.txt"));
}
