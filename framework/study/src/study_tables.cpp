#include "tokenlab/study_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "report_format.hpp"
#include "tokenlab/compare_tables.hpp"

namespace tokenlab {

using report_format::fixed;

ReportTable morphology_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab morphological alignment";
  t.columns = {
      {"segmenter", ColumnKind::text, "row label (tokenizer, or tokenizer/inference method)"},
      {"gold", ColumnKind::text, "gold set"},
      {"words", ColumnKind::integer, "gold words scored"},
      {"b prec", ColumnKind::real, "boundary precision: correct / predicted boundaries"},
      {"b rec", ColumnKind::real, "boundary recall: correct / gold boundaries"},
      {"b F1", ColumnKind::real, "boundary F1 over all boundaries (micro)"},
      {"w prec", ColumnKind::real, "precision averaged over words with a predicted boundary",
       false},
      {"w rec", ColumnKind::real, "recall averaged over words with a gold boundary", false},
      {"w F1", ColumnKind::real, "boundary F1 averaged over words (macro)"},
      {"exact", ColumnKind::real, "share of words whose boundaries are exactly the gold ones"},
      {"morphscore", ColumnKind::real,
       "MorphScore: share of words with a token boundary at the gold split (Arnett & Bergen)"},
      {"ms words", ColumnKind::integer, "words MorphScore counts"},
      {"ms excluded", ColumnKind::integer, "words kept as one token: excluded from MorphScore"},
      {"tok/morph", ColumnKind::real, "over-segmentation: tokens per gold morpheme"},
      {"unaligned", ColumnKind::integer, "words left out: the tokens do not decode to the word",
       false},
      {"error", ColumnKind::text, "why the row failed", false}};
  for (const auto& row : result.morphology) {
    const auto& s = row.scores;
    const bool segmented = s.segmented_words > 0;
    const auto seg = [&](double v) { return segmented ? fixed(v, 3) : std::string("-"); };
    t.rows.push_back({row.algorithm, row.gold, std::to_string(s.words), seg(s.boundary_precision()),
                      seg(s.boundary_recall()), seg(s.boundary_f1()), seg(s.word_precision()),
                      seg(s.word_recall()), seg(s.word_f1()), seg(s.exact_share()),
                      s.morph_score_words > 0 ? fixed(s.morph_score(), 3) : "-",
                      std::to_string(s.morph_score_words), std::to_string(s.excluded_single_token),
                      seg(s.tokens_per_morpheme()), std::to_string(s.unaligned),
                      row.error.empty() ? "-" : row.error});
  }
  t.metadata = run_metadata(result);
  t.metadata.emplace_back("morph_leading_space",
                          result.options.morphology.leading_space ? "true" : "false");
  return t;
}

ReportTable inference_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab inference methods against each model's own";
  t.columns = {
      {"segmenter", ColumnKind::text, "the tokenizer whose vocabulary is used"},
      {"method", ColumnKind::text, "inference method"},
      {"language", ColumnKind::text, "evaluation language"},
      {"units", ColumnKind::integer, "words (units the model segments) compared"},
      {"own tokens", ColumnKind::integer, "tokens of the model's own encoding"},
      {"tokens", ColumnKind::integer, "tokens of the method"},
      {"vs own", ColumnKind::real, "tokens / own tokens"},
      {"differ%", ColumnKind::real, "share of words segmented differently from the own encoding"},
      {"b prec", ColumnKind::real, "boundaries shared / the method's boundaries", false},
      {"b rec", ColumnKind::real, "boundaries shared / the own encoding's boundaries", false},
      {"b F1", ColumnKind::real, "boundary F1 against the own encoding"},
      {"unresolved", ColumnKind::integer,
       "words left out: the own tokens' extent is unknown (2+ unknown tokens)", false},
      {"note", ColumnKind::text, "why the method is not available, or failed"}};
  for (const auto& row : result.inference) {
    const auto& a = row.agreement;
    const bool ok = row.error.empty();
    const auto cell = [&](double v, int digits) {
      return ok ? fixed(v, digits) : std::string("-");
    };
    t.rows.push_back(
        {row.algorithm, row.method, row.language.empty() ? "-" : row.language,
         std::to_string(a.units), std::to_string(a.own_tokens), std::to_string(a.method_tokens),
         cell(a.own_tokens == 0
                  ? 0.0
                  : static_cast<double>(a.method_tokens) / static_cast<double>(a.own_tokens),
              4),
         cell(100.0 * a.differing_share(), 2), cell(a.precision(), 3), cell(a.recall(), 3),
         cell(a.f1(), 3), std::to_string(a.unresolved_units), ok ? "-" : row.error});
  }
  t.metadata = run_metadata(result);
  return t;
}

namespace {

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

PlotSpec morphology_plot(const CompareResult& result) {
  PlotSpec spec{.title = "Token boundaries on morpheme boundaries (higher = closer to the gold)",
                .x_label = "segmenter",
                .y_label = "boundary F1 / MorphScore",
                .style = PlotStyle::bars};
  std::vector<std::string> golds;
  for (const auto& row : result.morphology) {
    add_unique(spec.categories, row.algorithm);
    add_unique(golds, row.gold);
  }
  for (const auto& gold : golds)
    for (const bool morph_score : {false, true}) {
      PlotSeries series{gold + (morph_score ? ": MorphScore" : ": boundary F1"), {}, {}};
      bool any = false;
      for (const auto& label : spec.categories) {
        double value = 0.0;
        for (const auto& row : result.morphology)
          if (row.algorithm == label && row.gold == gold && row.error.empty()) {
            const auto& s = row.scores;
            any = any || (morph_score ? s.morph_score_words : s.segmented_words) > 0;
            value = morph_score ? s.morph_score() : s.boundary_f1();
          }
        series.values.push_back(value);
      }
      if (any) spec.series.push_back(std::move(series));
    }
  return spec;
}

PlotSpec inference_plot(const CompareResult& result, bool f1) {
  // Tokens differ from the own encoding's by a percent or less: drawn as the
  // difference, since bars of 0.99 and 1.01 from zero would look the same.
  PlotSpec spec{.title = f1 ? "Boundary F1 of each inference method against the model's own"
                            : "Tokens of each inference method against the model's own",
                .x_label = "vocabulary of",
                .y_label = f1 ? "boundary F1 (1 = the same cuts)"
                              : "tokens - own tokens, % of own (below 0 = fewer)",
                .style = PlotStyle::bars};
  std::vector<std::string> methods;
  for (const auto& row : result.inference) {
    add_unique(spec.categories, row.algorithm);
    add_unique(methods, row.method);
  }
  for (const auto& method : methods) {
    PlotSeries series{method, {}, {}};
    for (const auto& label : spec.categories) {
      InferenceAgreement total;
      for (const auto& row : result.inference)
        if (row.algorithm == label && row.method == method && row.error.empty())
          total.merge(row.agreement);
      const double ratio = total.own_tokens == 0 ? 1.0
                                                 : static_cast<double>(total.method_tokens) /
                                                       static_cast<double>(total.own_tokens);
      series.values.push_back(f1 ? total.f1() : 100.0 * (ratio - 1.0));
    }
    spec.series.push_back(std::move(series));
  }
  return spec;
}

void write_study_tables(std::ostream& out, const CompareResult& result) {
  if (!result.morphology.empty()) {
    out << '\n';
    write_terminal(out, morphology_table(result));
  }
  if (!result.inference.empty()) {
    out << '\n';
    write_terminal(out, inference_table(result));
  }
}

}  // namespace tokenlab
