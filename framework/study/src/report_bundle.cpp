#include "tokenlab/report_bundle.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>

#include "tokenlab/allocation_report.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/html_report.hpp"
#include "tokenlab/lorenz.hpp"
#include "tokenlab/plot.hpp"
#include "tokenlab/study_tables.hpp"
#include "tokenlab/vocabulary_report.hpp"

namespace tokenlab {

namespace fs = std::filesystem;

namespace {

void write_table_files(const fs::path& dir, const std::string& stem, const ReportTable& table,
                       ReportBundle& bundle) {
  const auto write = [&](const std::string& ext,
                         void (*writer)(std::ostream&, const ReportTable&)) {
    const fs::path path = dir / (stem + ext);
    write_file_atomically(path, [&](std::ostream& out) { writer(out, table); });
    bundle.files.push_back(path);
  };
  write(".csv", write_csv);
  write(".json", write_json);
  write(".md", write_markdown);
}

// Renders and saves one plot; a missing gnuplot becomes a warning, not a failure.
void add_plot(const fs::path& dir, const std::string& name, const PlotSpec& spec, HtmlReport& html,
              ReportBundle& bundle) {
  try {
    const std::string svg = render_svg(spec);
    fs::create_directories(dir / "plots");
    const fs::path path = dir / "plots" / (name + ".svg");
    write_file_atomically(path, [&](std::ostream& out) { out << svg; });
    bundle.files.push_back(path);
    html.plots.emplace_back(spec.title, svg);
  } catch (const Error& e) {
    if (std::find(bundle.warnings.begin(), bundle.warnings.end(), e.what()) ==
        bundle.warnings.end())
      bundle.warnings.emplace_back(e.what());
  }
}

std::string series_name(const CompareRow& row, bool multilingual) {
  return multilingual ? row.algorithm + " " + row.language : row.algorithm;
}

// One bar per segmenter, clustered by language when there are several.
PlotSpec segmenter_bars(const CompareResult& result, const std::string& title,
                        const std::string& y_label,
                        const std::function<double(const SegmentationMetrics&)>& value_of) {
  PlotSpec spec{
      .title = title, .x_label = "segmenter", .y_label = y_label, .style = PlotStyle::bars};
  spec.categories = row_labels(result.options);
  for (const auto& lang : result.languages) {
    PlotSeries series{lang.language.empty() ? std::string("held-out text") : lang.language, {}, {}};
    for (const auto& algorithm : row_labels(result.options)) {
      double value = 0.0;
      for (const auto& row : result.rows)
        if (row.algorithm == algorithm && row.language == lang.language && row.error.empty())
          value = value_of(row.metrics);
      series.values.push_back(value);
    }
    spec.series.push_back(std::move(series));
  }
  return spec;
}

// The Lorenz curve of each label's per-language token counts on aligned text,
// for the labels with a Gini coefficient (every language's row succeeded), with
// the line of equality: swiss-ai/tokenizer-intrinsic-evals's Lorenz chart.
PlotSpec lorenz_plot(const CompareResult& result) {
  PlotSpec spec{.title = "Lorenz curves of the languages' tokens on the same segments",
                .x_label = "cumulative share of languages (fewest tokens first)",
                .y_label = "cumulative share of tokens",
                .diagonal = "line of equality (Gini 0)"};
  for (const auto& label : row_labels(result.options)) {
    const auto gini = result.gini.find(label);
    if (gini == result.gini.end()) continue;
    std::vector<double> tokens;
    for (const auto& row : result.rows)
      if (row.algorithm == label) tokens.push_back(static_cast<double>(row.metrics.tokens));
    char name[64];
    std::snprintf(name, sizeof name, " (Gini %.3f)", gini->second);
    spec.series.push_back({label + name, lorenz_curve(std::move(tokens)), {}});
  }
  return spec;
}

// --morph-gold and --inference: their tables, and plots to look at rather than read.
void add_study_tables(const fs::path& dir, const CompareResult& result, HtmlReport& html,
                      ReportBundle& bundle) {
  if (!result.morphology.empty()) {
    const ReportTable morphology = morphology_table(result);
    write_table_files(dir, "morphology", morphology, bundle);
    html.tables.push_back(morphology);
    add_plot(dir, "morphology", morphology_plot(result), html, bundle);
  }
  if (!result.inference.empty()) {
    const ReportTable inference = inference_table(result);
    write_table_files(dir, "inference", inference, bundle);
    html.tables.push_back(inference);
    add_plot(dir, "inference-tokens", inference_plot(result, false), html, bundle);
    add_plot(dir, "inference-f1", inference_plot(result, true), html, bundle);
  }
}

// compare --allocation (allocation_report.hpp): the per-entry table as CSV
// only (a row per entry and language: too long to read as a page).
void add_allocation_tables(const fs::path& dir, const CompareResult& result, HtmlReport& html,
                           ReportBundle& bundle) {
  const ReportTable summary = allocation_summary_table(result);
  write_table_files(dir, "allocation", summary, bundle);
  html.tables.push_back(summary);
  const ReportTable languages = allocation_table(result);
  write_table_files(dir, "allocation-languages", languages, bundle);
  html.tables.push_back(languages);
  write_table_files(dir, "allocation-pruning", allocation_pruning_table(result), bundle);
  const fs::path entries = dir / "allocation-entries.csv";
  write_file_atomically(
      entries, [&](std::ostream& out) { write_csv(out, allocation_entries_table(result)); });
  bundle.files.push_back(entries);
  add_plot(dir, "allocation-share", allocation_share_plot(result), html, bundle);
  std::size_t k = 0;
  for (const PlotSpec& plot : allocation_pruning_plots(result))
    add_plot(dir, "allocation-pruning-" + std::to_string(++k), plot, html, bundle);
}

// compare --audit and --agreement (vocabulary_report.hpp).
void add_vocabulary_tables(const fs::path& dir, const CompareResult& result, HtmlReport& html,
                           ReportBundle& bundle) {
  if (result.options.audit) {
    const ReportTable audit = audit_table(result);
    write_table_files(dir, "audit", audit, bundle);
    html.tables.push_back(audit);
  }
  if (result.options.agreement) {
    const ReportTable agreement = agreement_table(result);
    write_table_files(dir, "agreement", agreement, bundle);
    html.tables.push_back(agreement);
  }
  if (result.options.allocation) add_allocation_tables(dir, result, html, bundle);
}
void add_vocabulary_plots(const fs::path& dir, const CompareResult& result, HtmlReport& html,
                          ReportBundle& bundle) {
  if (result.options.audit && !result.audits.empty())
    add_plot(dir, "audit", audit_plot(result), html, bundle);
  // Heat maps are drawn here, not by gnuplot: they need no external program.
  std::size_t k = 0;
  for (const auto& heat_map : agreement_heat_maps(result)) {
    // Not a structured binding: clang 14 (the fuzz preset) cannot capture one.
    const auto& [caption, svg] = heat_map;
    fs::create_directories(dir / "plots");
    const fs::path path = dir / "plots" / ("agreement-" + std::to_string(++k) + ".svg");
    write_file_atomically(path, [&](std::ostream& out) { out << heat_map.second; });
    bundle.files.push_back(path);
    html.plots.emplace_back(caption, svg);
  }
}

void write_html_file(const fs::path& dir, const HtmlReport& html, ReportBundle& bundle) {
  const fs::path path = dir / "report.html";
  write_file_atomically(path, [&](std::ostream& out) { write_html(out, html); });
  bundle.files.push_back(path);
}

}  // namespace

ReportBundle write_compare_reports(const fs::path& dir, const CompareResult& result) {
  ReportBundle bundle;
  HtmlReport html;
  html.title = "tokenlab compare";
  const ReportTable table = comparison_table(result);
  write_table_files(dir, "compare", table, bundle);
  html.tables.push_back(table);
  const bool multilingual = result.languages.size() > 1;
  if (multilingual) {
    const ReportTable fairness = fairness_table(result);
    write_table_files(dir, "fairness", fairness, bundle);
    html.tables.push_back(fairness);
  }
  if (!result.pooled.empty()) {
    const ReportTable pooled = pooled_table(result);
    write_table_files(dir, "pooled", pooled, bundle);
    html.tables.push_back(pooled);
  }
  add_study_tables(dir, result, html, bundle);
  add_vocabulary_tables(dir, result, html, bundle);
  for (auto& t : html.tables) t.metadata.clear();  // shown once, at the end
  html.metadata = run_metadata(result);
  html.samples = result.samples;

  add_plot(dir, "compression",
           segmenter_bars(result, "Characters per token (higher = shorter sequences)",
                          "characters / token",
                          [](const SegmentationMetrics& m) { return m.characters_per_token(); }),
           html, bundle);
  const PlotSpec unknown =
      segmenter_bars(result, "Unknown tokens (percent of tokens)", "unknown tokens, %",
                     [](const SegmentationMetrics& m) { return 100.0 * m.unknown_token_rate(); });
  add_plot(dir, "unknown", unknown, html, bundle);
  add_plot(dir, "byte-fallback",
           segmenter_bars(
               result, "Byte-fallback tokens (percent of tokens): characters outside the alphabet",
               "byte-fallback tokens, %",
               [](const SegmentationMetrics& m) { return 100.0 * m.byte_fallback_rate(); }),
           html, bundle);

  if (multilingual && result.options.aligned) {
    PlotSpec premium{.title = "Token premium against " + result.options.reference_language +
                              " (same segments; 1 = parity)",
                     .x_label = "language",
                     .y_label = "tokens / reference tokens",
                     .style = PlotStyle::bars};
    for (const auto& lang : result.languages) premium.categories.push_back(lang.language);
    for (const auto& algorithm : row_labels(result.options)) {
      PlotSeries series{algorithm, {}, {}};
      for (const auto& lang : result.languages) {
        double value = 0.0;
        for (const auto& row : result.rows)
          if (row.algorithm == algorithm && row.language == lang.language && row.premium)
            value = *row.premium;
        series.values.push_back(value);
      }
      premium.series.push_back(std::move(series));
    }
    add_plot(dir, "premium", premium, html, bundle);
    if (!result.gini.empty()) add_plot(dir, "lorenz", lorenz_plot(result), html, bundle);
  }
  add_vocabulary_plots(dir, result, html, bundle);
  write_html_file(dir, html, bundle);
  return bundle;
}

ReportBundle write_sweep_reports(const fs::path& dir, const SweepResult& sweep) {
  ReportBundle bundle;
  HtmlReport html;
  html.title = "tokenlab sweep";
  ReportTable table = sweep_table(sweep);
  write_table_files(dir, "sweep", table, bundle);
  html.metadata = table.metadata;
  table.metadata.clear();
  html.tables.push_back(table);
  if (!sweep.runs.empty()) html.samples = sweep.runs.back().samples;
  const bool multilingual = !sweep.runs.empty() && sweep.runs.front().languages.size() > 1;
  const std::size_t d = sweep.runs.empty() || sweep.runs.front().options.d_models.empty()
                            ? 768
                            : sweep.runs.front().options.d_models.front();

  // One series per segmenter (and language): points at the sizes it reached.
  std::map<std::string, PlotSeries> per_char;
  std::map<std::string, PlotSeries> unknown;
  std::map<std::string, PlotSeries> byte_fallback;
  std::map<std::string, PlotSeries> tradeoff;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < sweep.runs.size(); ++i)
    for (const auto& row : sweep.runs[i].rows) {
      if (!row.error.empty() || row.metrics.characters == 0) continue;
      const std::string name = series_name(row, multilingual);
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
      const auto x = static_cast<double>(row.metrics.vocabulary_size);
      per_char[name].points.emplace_back(
          x, static_cast<double>(row.metrics.tokens) / static_cast<double>(row.metrics.characters));
      unknown[name].points.emplace_back(x, 100.0 * row.metrics.unknown_token_rate());
      byte_fallback[name].points.emplace_back(x, 100.0 * row.metrics.byte_fallback_rate());
      tradeoff[name].points.emplace_back(
          static_cast<double>(row.metrics.tokens),
          static_cast<double>(embedding_cost(row.metrics.vocabulary_size, d).tied_parameters) /
              1e6);
    }
  const auto collect = [&](std::map<std::string, PlotSeries>& m) {
    std::vector<PlotSeries> out;
    for (const auto& name : order) {
      auto series = m[name];
      series.name = name;
      std::sort(series.points.begin(), series.points.end());
      out.push_back(std::move(series));
    }
    return out;
  };
  PlotSpec a{.title = "Tokens per character against vocabulary size",
             .x_label = "vocabulary size (reached)",
             .y_label = "tokens / character",
             .log_x = true};
  a.series = collect(per_char);
  add_plot(dir, "sweep-tokens-per-character", a, html, bundle);
  PlotSpec b{.title = "Unknown-token rate against vocabulary size",
             .x_label = "vocabulary size (reached)",
             .y_label = "unknown tokens, %",
             .log_x = true};
  b.series = collect(unknown);
  add_plot(dir, "sweep-unknown-rate", b, html, bundle);
  PlotSpec bytes{.title = "Byte-fallback tokens against vocabulary size",
                 .x_label = "vocabulary size (reached)",
                 .y_label = "byte-fallback tokens, %",
                 .log_x = true};
  bytes.series = collect(byte_fallback);
  add_plot(dir, "sweep-byte-fallback-rate", bytes, html, bundle);
  PlotSpec c{
      .title = "Embedding parameters (d = " + std::to_string(d) + ", tied) against sequence length",
      .x_label = "held-out tokens",
      .y_label = "embedding parameters, millions"};
  c.series = collect(tradeoff);
  add_plot(dir, "sweep-embedding-tradeoff", c, html, bundle);
  write_html_file(dir, html, bundle);
  return bundle;
}

}  // namespace tokenlab
