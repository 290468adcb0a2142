// File: html_report.hpp
// One self-contained HTML page per run: tables, inline SVG plots, and sample
// sentences drawn as coloured token chips with their ids, per segmenter, so a
// reader sees how each one cuts the same text. No external resources.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

struct HtmlReport {
  std::string title;
  std::vector<ReportTable> tables;
  std::vector<std::pair<std::string, std::string>> plots;  // caption, SVG document
  std::vector<SampleSegmentation> samples;
  std::vector<std::pair<std::string, std::string>> metadata;
};

TOKENLAB_API void write_html(std::ostream& out, const HtmlReport& report);

/// HTML text escape (&, <, >, ", ').
TOKENLAB_API std::string html_escape(const std::string& text);

}  // namespace tokenlab
