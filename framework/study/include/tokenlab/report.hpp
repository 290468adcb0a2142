// File: report.hpp
// A table of results and its writers: aligned terminal text, CSV, JSON, Markdown.
//
//   ReportTable t;
//   t.columns = {{"segmenter", ColumnKind::text}, {"vocab", ColumnKind::integer}};
//   t.rows.push_back({"bpe", "8000"});
//   write_terminal(std::cout, t);
//
// Cells are strings already formatted by the caller (so every writer shows the same
// digits); the column kind decides alignment and JSON quoting. Metadata (version,
// options, corpus checksums) goes into JSON and Markdown.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

enum class ColumnKind { text, integer, real };

struct ReportColumn {
  std::string name;
  ColumnKind kind = ColumnKind::text;
  std::string description{};  // used in Markdown's legend
  bool terminal = true;       // false: in files only (keeps the terminal table narrow)
};

struct ReportTable {
  std::string title;
  std::vector<ReportColumn> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::pair<std::string, std::string>> metadata;  // ordered key/value
};

TOKENLAB_API void write_terminal(std::ostream& out, const ReportTable& table);
TOKENLAB_API void write_csv(std::ostream& out, const ReportTable& table);
TOKENLAB_API void write_json(std::ostream& out, const ReportTable& table);
TOKENLAB_API void write_markdown(std::ostream& out, const ReportTable& table);

/// JSON string literal with escapes.
TOKENLAB_API std::string json_quote(const std::string& text);
/// value with exactly digits decimals ("%.*f"): the one format every table cell
/// with a figure uses, so that the terminal, CSV, JSON and Markdown agree.
TOKENLAB_API std::string fixed_decimals(double value, int digits);
/// CSV field, quoted when needed (RFC 4180).
TOKENLAB_API std::string csv_field(const std::string& text);

}  // namespace tokenlab
