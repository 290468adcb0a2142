#include "tokenlab/allocation_report.hpp"

#include <algorithm>
#include <cstdio>

#include "report_format.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

using report_format::row_label;

// A piece as text: bytes that are not valid UTF-8 (a tiktoken piece may hold
// half a character) written as \xNN, so that every file stays UTF-8.
std::string printable(const std::string& piece) {
  std::string out;
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t n = utf8::sequence_length(piece, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(piece[i]));
      out += buf;
      ++i;
      continue;
    }
    out.append(piece, i, n);
    i += n;
  }
  return out;
}

std::string language_name(const std::string& language) {
  return language.empty() ? "text" : language;
}

}  // namespace

ReportTable allocation_table(const CompareResult& result) {
  ReportTable t;
  t.title = "What each language gets from the vocabulary";
  const auto I = ColumnKind::integer;
  const auto R = ColumnKind::real;
  t.columns = {{"segmenter", ColumnKind::text},
               {"language", ColumnKind::text},
               {"tokens", I, "tokens of the language's evaluation text"},
               {"entries used", I, "entries its tokens use"},
               {"serving", R, "entries serving it: each entry's savings split in proportion"},
               {"vocab%", R, "serving / vocabulary size"},
               {"saved", I, "tokens more with every removable entry taken out"},
               {"saved%", R, "saved / tokens"}};
  for (const std::size_t d : result.options.d_models) {
    t.columns.push_back(
        {"emb M d" + std::to_string(d), R, "embedding parameters serving it, millions", false});
    t.columns.push_back({"saved/M d" + std::to_string(d), R,
                         "tokens saved per million parameters of the whole embedding matrix"});
  }
  for (const auto& a : result.allocations) {
    if (!a.error.empty()) continue;
    const VocabularyAllocation& v = a.allocation;
    for (std::size_t l = 0; l < v.per_language.size(); ++l) {
      const AllocationLanguage& lang = v.per_language[l];
      std::vector<std::string> row = {
          row_label(result, a.label),
          language_name(lang.language),
          std::to_string(lang.tokens),
          std::to_string(lang.entries_used),
          fixed_decimals(lang.served_entries, 1),
          fixed_decimals(100.0 * lang.vocabulary_share, 3),
          std::to_string(lang.saved_by_vocabulary),
          lang.tokens == 0 ? "-"
                           : fixed_decimals(100.0 * static_cast<double>(lang.saved_by_vocabulary) /
                                                static_cast<double>(lang.tokens),
                                            1)};
      for (const std::size_t d : result.options.d_models) {
        row.push_back(fixed_decimals(lang.served_entries * static_cast<double>(d) / 1e6, 3));
        row.push_back(fixed_decimals(v.saved_per_million(l, d), 1));
      }
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

ReportTable allocation_summary_table(const CompareResult& result) {
  ReportTable t;
  t.title = "Vocabulary allocation";
  const auto I = ColumnKind::integer;
  t.columns = {{"segmenter", ColumnKind::text},
               {"method", ColumnKind::text,
                "the rule run without entries (* a stand-in; held out: the curve on other lines)"},
               {"vocab", I, "vocabulary size (ids)"},
               {"removable", I, "entries the method can go without"},
               {"unused", I, "text entries no language uses or builds"},
               {"no savings", I, "entries used or built that save no language a token"},
               {"units", I, "units measured (occurrences)", false},
               {"distinct", I, "distinct units"},
               {"differing", I, "distinct units the method cuts otherwise than the model"},
               {"allocation s", ColumnKind::real, "wall time (not deterministic)", false},
               {"error", ColumnKind::text, "why there is no allocation", false}};
  for (const auto& a : result.allocations) {
    const VocabularyAllocation& v = a.allocation;
    if (!a.error.empty()) {
      std::vector<std::string> row(t.columns.size(), "-");
      row[0] = row_label(result, a.label);
      row.back() = a.error;
      t.rows.push_back(std::move(row));
      continue;
    }
    t.rows.push_back({row_label(result, a.label),
                      v.method + (v.exact ? "" : "*") + (v.held_out_order ? ", held out" : ""),
                      std::to_string(v.vocabulary_size), std::to_string(v.removable),
                      std::to_string(v.unused), std::to_string(v.no_savings),
                      std::to_string(v.units), std::to_string(v.distinct_units),
                      std::to_string(v.differing_units), fixed_decimals(a.seconds, 3), ""});
  }
  return t;
}

ReportTable allocation_pruning_table(const CompareResult& result) {
  ReportTable t;
  t.title = "Pruning curve: tokens as the least valuable entries are taken out";
  t.columns = {{"segmenter", ColumnKind::text},
               {"kept", ColumnKind::integer, "vocabulary size kept"},
               {"language", ColumnKind::text},
               {"tokens", ColumnKind::integer},
               {"x full", ColumnKind::real, "tokens / tokens with the whole vocabulary"}};
  bool held_out = false;
  for (const auto& a : result.allocations) held_out = held_out || a.allocation.held_out_order;
  if (held_out)
    t.metadata.emplace_back("held out",
                            "the order is chosen on each language's even-numbered lines and the "
                            "tokens are of its odd-numbered lines");
  for (const auto& a : result.allocations) {
    if (!a.error.empty()) continue;
    const VocabularyAllocation& v = a.allocation;
    for (const auto& point : v.pruning)
      for (std::size_t l = 0; l < v.languages.size(); ++l) {
        const std::uint64_t full = v.pruning.front().tokens[l];
        t.rows.push_back(
            {row_label(result, a.label), std::to_string(point.kept), language_name(v.languages[l]),
             std::to_string(point.tokens[l]),
             full == 0 ? "-"
                       : fixed_decimals(
                             static_cast<double>(point.tokens[l]) / static_cast<double>(full), 4)});
      }
  }
  return t;
}

ReportTable allocation_entries_table(const CompareResult& result) {
  ReportTable t;
  t.title = "Vocabulary allocation per entry";
  t.columns = {{"segmenter", ColumnKind::text},
               {"id", ColumnKind::integer},
               {"piece", ColumnKind::text, "as the model spells it; \\xNN: a byte"},
               {"removable", ColumnKind::text},
               {"removal rank", ColumnKind::integer, "0 = taken out first"},
               {"value", ColumnKind::real, "sum over languages of saved / tokens"},
               {"language", ColumnKind::text},
               {"uses", ColumnKind::integer},
               {"saved", ColumnKind::integer, "tokens more without the entry"},
               {"share", ColumnKind::real, "the entry's share serving this language"}};
  for (const auto& a : result.allocations) {
    if (!a.error.empty()) continue;
    const VocabularyAllocation& v = a.allocation;
    for (const auto& e : v.entries)
      for (std::size_t l = 0; l < v.languages.size(); ++l) {
        if (e.uses[l] == 0 && e.saved[l] == 0) continue;
        const std::uint64_t tokens = v.per_language[l].tokens;
        const double share =
            e.saved[l] > 0 && e.value > 0.0 && tokens > 0
                ? static_cast<double>(e.saved[l]) / static_cast<double>(tokens) / e.value
                : 0.0;
        t.rows.push_back(
            {a.label, std::to_string(e.id), printable(e.piece), e.removable ? "yes" : "no",
             e.removable ? std::to_string(e.removal_rank) : "-", fixed_decimals(e.value, 9),
             language_name(v.languages[l]), std::to_string(e.uses[l]), std::to_string(e.saved[l]),
             fixed_decimals(share, 6)});
      }
  }
  return t;
}

std::vector<PlotSpec> allocation_pruning_plots(const CompareResult& result) {
  std::vector<PlotSpec> plots;
  for (const auto& a : result.allocations) {
    if (!a.error.empty() || a.allocation.pruning.size() < 2) continue;
    const VocabularyAllocation& v = a.allocation;
    PlotSpec spec{.title = "Pruning curve of " + a.label + ": tokens per language",
                  .x_label = "vocabulary size kept",
                  .y_label = "tokens / tokens with the whole vocabulary",
                  .log_x = true};
    for (std::size_t l = 0; l < v.languages.size(); ++l) {
      PlotSeries series{language_name(v.languages[l]), {}, {}};
      const double full = static_cast<double>(v.pruning.front().tokens[l]);
      for (const auto& point : v.pruning)
        if (full > 0.0 && point.kept > 0)
          series.points.emplace_back(static_cast<double>(point.kept),
                                     static_cast<double>(point.tokens[l]) / full);
      spec.series.push_back(std::move(series));
    }
    plots.push_back(std::move(spec));
  }
  return plots;
}

PlotSpec allocation_share_plot(const CompareResult& result) {
  PlotSpec spec{.title = "Share of the vocabulary serving each language",
                .x_label = "language",
                .y_label = "% of the vocabulary",
                .style = PlotStyle::bars};
  for (const auto& a : result.allocations) {
    if (!a.error.empty()) continue;
    for (const auto& lang : a.allocation.per_language) {
      const std::string name = language_name(lang.language);
      if (std::find(spec.categories.begin(), spec.categories.end(), name) == spec.categories.end())
        spec.categories.push_back(name);
    }
  }
  for (const auto& a : result.allocations) {
    if (!a.error.empty()) continue;
    PlotSeries series{a.label, {}, std::vector<double>(spec.categories.size(), 0.0)};
    for (const auto& lang : a.allocation.per_language) {
      const auto it =
          std::find(spec.categories.begin(), spec.categories.end(), language_name(lang.language));
      series.values[static_cast<std::size_t>(it - spec.categories.begin())] =
          100.0 * lang.vocabulary_share;
    }
    spec.series.push_back(std::move(series));
  }
  return spec;
}

}  // namespace tokenlab
