#include "tokenlab/html_report.hpp"

#include <cstdio>
#include <ostream>

namespace tokenlab {

namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1400px; color: #222; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.8rem 0; display: block; overflow-x: auto; }
th, td { padding: 0.25rem 0.55rem; border-bottom: 1px solid #eee; white-space: nowrap; }
th { background: #f4f4f4; text-align: left; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9rem; color: #555; }
.sample { margin: 1.2rem 0; } .sample .text { font-style: italic; margin-bottom: 0.4rem; }
.seg { display: flex; align-items: flex-start; gap: 0.6rem; margin: 0.35rem 0; }
.seg .name { width: 9rem; flex: none; font-weight: 600; font-size: 0.85rem; padding-top: 0.2rem; }
.chips { display: flex; flex-wrap: wrap; gap: 2px; }
.tok { display: inline-flex; flex-direction: column; align-items: center; border-radius: 3px; padding: 1px 3px;
       font-family: ui-monospace, monospace; font-size: 0.85rem; }
.tok .id { font-size: 0.62rem; color: #555; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; font-size: 0.85rem; }
dt { font-weight: 600; } dd { margin: 0; word-break: break-all; }
)";

void write_table(std::ostream& out, const ReportTable& table) {
  out << "<h2>" << html_escape(table.title) << "</h2>\n<table>\n<thead><tr>";
  for (const auto& column : table.columns)
    out << "<th title=\"" << html_escape(column.description) << "\">" << html_escape(column.name)
        << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out << "<tr>";
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const bool numeric = table.columns[c].kind != ColumnKind::text;
      out << (numeric ? "<td class=\"num\">" : "<td>")
          << html_escape(c < row.size() ? row[c] : std::string()) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

// A stable, readable colour per token id: the golden angle spreads neighbours apart.
std::string chip_colour(TokenId id) {
  const double hue = static_cast<double>(id % 1000u) * 137.508;
  char buf[48];
  std::snprintf(buf, sizeof buf, "hsl(%d, 70%%, 84%%)", static_cast<int>(hue) % 360);
  return buf;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void write_html(std::ostream& out, const HtmlReport& report) {
  out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << html_escape(report.title) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n<h1>" << html_escape(report.title) << "</h1>\n";
  for (const auto& table : report.tables) write_table(out, table);
  if (!report.plots.empty()) out << "<h2>Plots</h2>\n";
  for (const auto& [caption, svg] : report.plots) {
    // Inline the <svg> element only: the XML prolog and DOCTYPE are not valid inside HTML.
    const auto start = svg.find("<svg");
    out << "<figure>\n"
        << (start == std::string::npos ? std::string() : svg.substr(start)) << "\n<figcaption>"
        << html_escape(caption) << "</figcaption>\n</figure>\n";
  }
  if (!report.samples.empty()) {
    out << "<h2>How each segmenter cuts the same text</h2>\n"
           "<p>Each chip is one token, with its id underneath; \u2581 marks a word boundary.</p>\n";
    std::string current;
    for (std::size_t i = 0; i < report.samples.size(); ++i) {
      const auto& s = report.samples[i];
      const std::string key = s.language + '\n' + s.text;
      if (key != current) {
        if (!current.empty()) out << "</div>\n";
        current = key;
        out << "<div class=\"sample\">\n<div class=\"text\">"
            << (s.language.empty() ? "" : "[" + html_escape(s.language) + "] ")
            << html_escape(s.text) << "</div>\n";
      }
      out << "<div class=\"seg\"><div class=\"name\">" << html_escape(s.algorithm) << " ("
          << s.tokens.size() << ")</div><div class=\"chips\">";
      for (const auto& [piece, id] : s.tokens)
        out << "<span class=\"tok\" style=\"background:" << chip_colour(id) << "\">"
            << html_escape(piece) << "<span class=\"id\">" << id << "</span></span>";
      out << "</div></div>\n";
    }
    if (!current.empty()) out << "</div>\n";
  }
  if (!report.metadata.empty()) {
    out << "<h2>How this report was made</h2>\n<dl>\n";
    for (const auto& [key, value] : report.metadata)
      out << "<dt>" << html_escape(key) << "</dt><dd>" << html_escape(value) << "</dd>\n";
    out << "</dl>\n";
  }
  out << "</body>\n</html>\n";
}

}  // namespace tokenlab
