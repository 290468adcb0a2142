#include "tokenlab/report.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

std::size_t display_width(const std::string& s) {
  return utf8::count_code_points(s);
}

void pad(std::ostream& out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out << ' ';
}

bool right_aligned(ColumnKind kind) {
  return kind != ColumnKind::text;
}

}  // namespace

std::string fixed_decimals(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_terminal(std::ostream& out, const ReportTable& full) {
  // Columns marked file-only are dropped here; every other writer keeps them.
  ReportTable table;
  table.title = full.title;
  std::vector<std::size_t> keep;
  for (std::size_t c = 0; c < full.columns.size(); ++c)
    if (full.columns[c].terminal) {
      keep.push_back(c);
      table.columns.push_back(full.columns[c]);
    }
  for (const auto& row : full.rows) {
    std::vector<std::string> cells;
    for (const std::size_t c : keep) cells.push_back(c < row.size() ? row[c] : std::string());
    table.rows.push_back(std::move(cells));
  }
  std::vector<std::size_t> widths(table.columns.size(), 0);
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    widths[c] = display_width(table.columns[c].name);
  for (const auto& row : table.rows)
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], display_width(row[c]));
  const auto print_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      const std::size_t gap = widths[c] - display_width(cell);
      if (c > 0) out << "  ";
      if (right_aligned(table.columns[c].kind)) {
        pad(out, gap);
        out << cell;
      } else {
        out << cell;
        if (c + 1 < table.columns.size()) pad(out, gap);
      }
    }
    out << '\n';
  };
  if (!table.title.empty()) out << table.title << '\n';
  std::vector<std::string> header;
  for (const auto& col : table.columns) header.push_back(col.name);
  print_row(header);
  std::size_t total = 0;
  for (std::size_t c = 0; c < widths.size(); ++c) total += widths[c] + (c > 0 ? 2 : 0);
  out << std::string(total, '-') << '\n';
  for (const auto& row : table.rows) print_row(row);
}

void write_csv(std::ostream& out, const ReportTable& table) {
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    out << (c ? "," : "") << csv_field(table.columns[c].name);
  out << '\n';
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      out << (c ? "," : "") << csv_field(c < row.size() ? row[c] : std::string());
    out << '\n';
  }
}

void write_json(std::ostream& out, const ReportTable& table) {
  out << "{\n  \"title\": " << json_quote(table.title) << ",\n  \"metadata\": {";
  for (std::size_t i = 0; i < table.metadata.size(); ++i)
    out << (i ? ",\n    " : "\n    ") << json_quote(table.metadata[i].first) << ": "
        << json_quote(table.metadata[i].second);
  out << (table.metadata.empty() ? "},\n" : "\n  },\n") << "  \"rows\": [";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    out << (r ? ",\n    {" : "\n    {");
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const std::string& cell = c < table.rows[r].size() ? table.rows[r][c] : std::string();
      out << (c ? ", " : "") << json_quote(table.columns[c].name) << ": ";
      const bool numeric =
          table.columns[c].kind != ColumnKind::text && !cell.empty() && cell != "-";
      out << (numeric ? cell
              : (cell.empty() || cell == "-") && table.columns[c].kind != ColumnKind::text
                  ? std::string("null")
                  : json_quote(cell));
    }
    out << '}';
  }
  out << (table.rows.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

void write_markdown(std::ostream& out, const ReportTable& table) {
  if (!table.title.empty()) out << "# " << table.title << "\n\n";
  const auto escape = [](const std::string& s) {
    std::string o;
    for (const char c : s) {
      if (c == '|') o += '\\';
      o += c;
    }
    return o;
  };
  out << '|';
  for (const auto& col : table.columns) out << ' ' << escape(col.name) << " |";
  out << "\n|";
  for (const auto& col : table.columns) out << (right_aligned(col.kind) ? "---:|" : "---|");
  out << '\n';
  for (const auto& row : table.rows) {
    out << '|';
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      out << ' ' << escape(c < row.size() ? row[c] : std::string()) << " |";
    out << '\n';
  }
  bool legend = false;
  for (const auto& col : table.columns) legend = legend || !col.description.empty();
  if (legend) {
    out << "\nColumns:\n\n";
    for (const auto& col : table.columns)
      if (!col.description.empty())
        out << "- **" << escape(col.name) << "**: " << col.description << '\n';
  }
  if (!table.metadata.empty()) {
    out << "\nRun:\n\n";
    for (const auto& [key, value] : table.metadata)
      out << "- " << key << ": " << escape(value) << '\n';
  }
}

}  // namespace tokenlab
