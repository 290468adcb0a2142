#include "tokenlab/vocabulary_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report_format.hpp"
#include "tokenlab/html_report.hpp"

namespace tokenlab {

namespace {

using report_format::fixed;
using report_format::row_label;

std::string percent_of(std::size_t part, std::size_t whole) {
  return whole == 0 ? "-"
                    : fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 2);
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

// White (0) to dark blue (1), so that a reader sees agreement at a glance.
std::string cell_colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const auto channel = [&](double from, double to) {
    return static_cast<int>(from + (to - from) * v + 0.5);
  };
  char buf[32];
  std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", channel(247, 8), channel(251, 48),
                channel(255, 107));
  return buf;
}

}  // namespace

ReportTable audit_table(const CompareResult& result) {
  ReportTable t;
  t.title = "Vocabulary audit";
  const auto I = ColumnKind::integer;
  const auto R = ColumnKind::real;
  t.columns = {
      {"segmenter", ColumnKind::text},
      {"language", ColumnKind::text, "the language a per-language tokenizer serves", false},
      {"ids", I, "one past the largest id"},
      {"entries", I, "ids that name a token"},
      {"single byte", I, "entries whose text is one byte"},
      {"partial utf8", I, "entries of 2+ bytes that are not valid UTF-8 on their own"},
      {"unreachable", I, "entries whose own text does not encode to them"},
      {"tested", I, "entries tested for reachability", false},
      {"special", I, "control tokens"},
      {"added", I, "non-special added tokens"},
      {"byte fb", I, "byte-fallback pieces <0xNN>", false},
      {"continuation", I, "WordPiece ## pieces", false},
      {"never used", I, "entries the evaluation text never uses"},
      {"never used%", R, "never used / entries"},
      {"words", I, "word-list words kept", false},
      {"strr%", R, "word-list words encoded as one token alone"},
      {"strr space%", R, "word-list words encoded as one token after a space"},
      {"audit s", R, "wall time of the audit (not deterministic)", false},
      {"unreachable examples", ColumnKind::text, "the first unreachable entries", false},
      {"error", ColumnKind::text, "why there is no audit", false}};
  for (const auto& a : result.audits) {
    const VocabularyAudit& v = a.audit;
    const std::string label = row_label(result, a.label);
    if (!a.error.empty()) {
      std::vector<std::string> row(t.columns.size(), "-");
      row[0] = label;
      row[1] = a.language;
      row.back() = a.error;
      t.rows.push_back(std::move(row));
      continue;
    }
    const bool words = v.words > 0;
    t.rows.push_back({label,
                      a.language,
                      std::to_string(v.ids),
                      std::to_string(v.entries),
                      std::to_string(v.single_byte),
                      std::to_string(v.partial_utf8),
                      std::to_string(v.unreachable),
                      std::to_string(v.reachability_tested),
                      std::to_string(v.special),
                      std::to_string(v.added),
                      std::to_string(v.byte_fallback),
                      std::to_string(v.continuation),
                      v.evaluated ? std::to_string(v.never_used) : "-",
                      v.evaluated ? percent_of(v.never_used, v.entries) : "-",
                      std::to_string(v.words),
                      words ? fixed(100.0 * v.retention(), 2) : "-",
                      words ? fixed(100.0 * v.retention_spaced(), 2) : "-",
                      fixed(a.seconds, 3),
                      join(v.unreachable_examples),
                      ""});
  }
  return t;
}

ReportTable agreement_table(const CompareResult& result) {
  ReportTable t;
  t.title = "Tokenizers against each other";
  t.columns = {{"language", ColumnKind::text, "the text compared on (empty: all of it)", false},
               {"a", ColumnKind::text},
               {"b", ColumnKind::text},
               {"jaccard", ColumnKind::real, "vocabulary overlap |A∩B|/|A∪B|"},
               {"word agreement", ColumnKind::real, "share of words cut alike"},
               {"boundary f1", ColumnKind::real, "2|Ba∩Bb| / (|Ba|+|Bb|)"},
               {"words compared", ColumnKind::integer, "word occurrences in both figures"},
               {"words", ColumnKind::integer, "word occurrences in the text", false}};
  for (const auto& [language, m] : result.agreement) {
    const std::size_t n = m.labels.size();
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        t.rows.push_back({language, m.labels[i], m.labels[j], fixed(m.at(m.jaccard, i, j), 4),
                          fixed(m.at(m.word_agreement, i, j), 4),
                          fixed(m.at(m.boundary_f1, i, j), 4),
                          std::to_string(m.compared[i * n + j]), std::to_string(m.words)});
      }
  }
  return t;
}

std::vector<ReportTable> agreement_matrix_tables(const CompareResult& result) {
  std::vector<ReportTable> tables;
  for (const auto& [language, m] : result.agreement) {
    const std::string on = language.empty() ? "" : " (" + language + ")";
    const std::pair<std::string, const std::vector<double>*> figures[] = {
        {"Vocabulary overlap (Jaccard)", &m.jaccard},
        {"Words cut alike (share of words)", &m.word_agreement},
        {"Boundary F1", &m.boundary_f1}};
    for (const auto& [name, values] : figures) {
      ReportTable t;
      t.title = name + on;
      t.columns.push_back({"", ColumnKind::text});
      for (const auto& label : m.labels) t.columns.push_back({label, ColumnKind::real});
      for (std::size_t i = 0; i < m.labels.size(); ++i) {
        std::vector<std::string> row = {m.labels[i]};
        for (std::size_t j = 0; j < m.labels.size(); ++j)
          row.push_back(fixed(m.at(*values, i, j), 3));
        t.rows.push_back(std::move(row));
      }
      tables.push_back(std::move(t));
    }
  }
  return tables;
}

PlotSpec audit_plot(const CompareResult& result) {
  PlotSpec spec{.title = "What each vocabulary holds (percent of its entries)",
                .x_label = "segmenter",
                .y_label = "% of entries",
                .style = PlotStyle::bars};
  PlotSeries bytes{"single byte", {}, {}};
  PlotSeries partial{"partial UTF-8", {}, {}};
  PlotSeries unreachable{"unreachable", {}, {}};
  PlotSeries special{"special or added", {}, {}};
  PlotSeries unused{"never used", {}, {}};
  for (const auto& a : result.audits) {
    if (!a.error.empty() || a.audit.entries == 0) continue;
    const VocabularyAudit& v = a.audit;
    const auto share = [&](std::size_t n) {
      return 100.0 * static_cast<double>(n) / static_cast<double>(v.entries);
    };
    spec.categories.push_back(a.language.empty() ? a.label : a.label + " " + a.language);
    bytes.values.push_back(share(v.single_byte));
    partial.values.push_back(share(v.partial_utf8));
    unreachable.values.push_back(share(v.unreachable));
    special.values.push_back(share(v.special + v.added));
    unused.values.push_back(v.evaluated ? share(v.never_used) : 0.0);
  }
  spec.series = {bytes, partial, unreachable, special, unused};
  return spec;
}

std::string heat_map_svg(const std::string& title, const std::vector<std::string>& labels,
                         const std::vector<double>& values) {
  const std::size_t n = labels.size();
  std::size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  const int cell = 56;
  const int margin = 20 + static_cast<int>(std::min<std::size_t>(longest, 24)) * 7;
  const int size = margin + cell * static_cast<int>(n) + 20;
  std::ostringstream svg;
  // The column labels lean right, past the last column: room for the longest.
  const int width = size + static_cast<int>(std::min<std::size_t>(longest, 24)) * 5;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
      << size + 30 << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << html_escape(title)
      << "</text>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const int y = 30 + margin + cell * static_cast<int>(i);
    const int x = margin + cell * static_cast<int>(i);
    svg << "<text x=\"" << margin - 6 << "\" y=\"" << y + cell / 2 + 4 << "\" text-anchor=\"end\">"
        << html_escape(labels[i]) << "</text>\n"
        << "<text transform=\"translate(" << x + cell / 2 + 4 << "," << 30 + margin - 6
        << ") rotate(-45)\">" << html_escape(labels[i]) << "</text>\n";
    for (std::size_t j = 0; j < n; ++j) {
      const double v = values[i * n + j];
      const int cx = margin + cell * static_cast<int>(j);
      svg << "<rect x=\"" << cx << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell
          << "\" fill=\"" << cell_colour(v) << "\" stroke=\"#fff\"><title>"
          << html_escape(labels[i] + " / " + labels[j] + ": " + fixed(v, 4))
          << "</title></rect>\n<text x=\"" << cx + cell / 2 << "\" y=\"" << y + cell / 2 + 4
          << "\" text-anchor=\"middle\" fill=\"" << (v > 0.55 ? "#fff" : "#222") << "\">"
          << fixed(v, 2) << "</text>\n";
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

std::vector<std::pair<std::string, std::string>> agreement_heat_maps(const CompareResult& result) {
  std::vector<std::pair<std::string, std::string>> maps;
  for (const auto& [language, m] : result.agreement) {
    if (m.labels.size() < 2) continue;
    const std::string on = language.empty() ? "" : " (" + language + ")";
    const std::pair<std::string, const std::vector<double>*> figures[] = {
        {"Vocabulary overlap (Jaccard)", &m.jaccard},
        {"Words cut alike (share of words)", &m.word_agreement},
        {"Boundary F1", &m.boundary_f1}};
    for (const auto& [name, values] : figures)
      maps.emplace_back(name + on, heat_map_svg(name + on, m.labels, *values));
  }
  return maps;
}

}  // namespace tokenlab
