// The comparison's report tables: columns, their help text and the cells, from
// a CompareResult. compare.cpp computes the results; this file only presents them.
#include "tokenlab/compare_tables.hpp"
#include "report_format.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "tokenlab/train_options.hpp"

namespace tokenlab {

namespace {

using report_format::fixed;

// A failed segmenter's row: its leading cells, "-" for every figure, and the error
// in the last column (the note).
void add_error_row(ReportTable& table, std::vector<std::string> cells, const std::string& error) {
  while (cells.size() + 1 < table.columns.size()) cells.push_back("-");
  cells.push_back("error: " + error);
  table.rows.push_back(std::move(cells));
}

std::string millions(std::uint64_t v) {
  return fixed(static_cast<double>(v) / 1e6, 1);
}

std::string interval(const std::optional<Interval>& i, int digits) {
  return i ? fixed(i->low, digits) + ".." + fixed(i->high, digits) : "-";
}

bool whitespace_words(const CompareResult& result) {
  return result.options.protocol.words == WordDefinition::whitespace;
}

// Tokens per word under the run's word definition.
double tokens_per_word(const CompareResult& result, const SegmentationMetrics& m) {
  return whitespace_words(result) ? m.whitespace_fertility() : m.fertility();
}

// What each tokenizer was given and what a word is, in words, for the metadata.
std::string describe_protocol(const EvaluationProtocol& p) {
  std::string unit;
  switch (p.unit) {
    case EvaluationUnit::automatic:
      unit = "trained models: pre-tokenized words; real tokenizers: each line whole";
      break;
    case EvaluationUnit::word:
      unit = "real tokenizers: each whitespace word alone";
      break;
    case EvaluationUnit::line:
      unit = "real tokenizers: each line whole";
      break;
    case EvaluationUnit::document:
      unit = "real tokenizers: each file whole, lines joined by one space";
      break;
  }
  return unit + "; tok/word counts " +
         (p.words == WordDefinition::whitespace ? "whitespace-separated words (str.split())"
                                                : "the run's pre-tokenized words") +
         (p.squeeze_spaces ? "; runs of spaces collapsed and lines trimmed" : "");
}

// Multilingual: the premium column is there, with '-' and premium_note's reason
// where it cannot be computed, rather than missing without a word.
bool has_premium(const CompareResult& result) {
  return result.languages.size() > 1;
}

bool has_nsl(const CompareResult& result) {
  return !result.options.baseline.empty();
}

// ---- the comparison table's columns, left to right --------------------------------

// What the text costs in tokens, and how much of it the vocabulary misses.
std::vector<ReportColumn> metric_columns(const CompareResult& result) {
  return {
      {"vocab", ColumnKind::integer, "vocabulary size reached, special tokens included"},
      {"tokens", ColumnKind::integer, "tokens produced on the held-out text"},
      {"tok/word", ColumnKind::real,
       whitespace_words(result)
           ? "fertility: tokens per whitespace-separated word (--words whitespace)"
           : "fertility: tokens per pre-tokenized word (--words pretokenizer)"},
      {"tok/line", ColumnKind::real, "tokens per non-empty evaluation line"},
      {"chars/tok", ColumnKind::real, "compression: characters per token"},
      {"bytes/tok", ColumnKind::real, "UTF-8 bytes per token"},
      {"split%", ColumnKind::real, "words split into 2+ tokens, percent"},
      {"unk tok%", ColumnKind::real, "unknown tokens / tokens, percent"},
      {"unk chr%", ColumnKind::real, "characters under unknown tokens / characters, percent"},
      {"unk word%", ColumnKind::real, "words containing an unknown token / words, percent"},
      {"byte fb%", ColumnKind::real,
       "byte-fallback tokens (<0xNN>, standing for characters outside the alphabet) / tokens, "
       "percent"},
      {"used%", ColumnKind::real,
       "vocabulary utilization: distinct tokens seen / vocabulary size, percent"},
      {"renyi", ColumnKind::real,
       "Renyi efficiency of the token distribution, alpha 2.5 (Zouhar et al. 2023)"},
  };
}

// The distribution panel (TokenDistribution), in the files: entropies in bits,
// efficiencies over log V ("eff") and over log(types seen) ("eff seen").
std::vector<ReportColumn> distribution_columns() {
  return {
      {"shannon bits", ColumnKind::real, "Shannon entropy of the token distribution, bits", false},
      {"shannon eff", ColumnKind::real, "Shannon entropy / log2 V", false},
      {"shannon eff seen", ColumnKind::real, "Shannon entropy / log2(types seen)", false},
      {"renyi2 eff", ColumnKind::real, "Renyi entropy, alpha 2, / log2 V", false},
      {"renyi2 eff seen", ColumnKind::real, "Renyi entropy, alpha 2, / log2(types seen)", false},
      {"renyi2.5 eff seen", ColumnKind::real,
       "Renyi entropy, alpha 2.5, / log2(types seen) (tokenization-scorer's normaliser)", false},
      {"renyi3 eff", ColumnKind::real, "Renyi entropy, alpha 3, / log2 V", false},
      {"renyi3 eff seen", ColumnKind::real, "Renyi entropy, alpha 3, / log2(types seen)", false},
      {"ttr", ColumnKind::real, "type-token ratio: types seen / tokens", false},
      {"avg rank", ColumnKind::real,
       "mean rank of the tokens in the text's own frequency order (1 = most frequent)", false},
      {"uniform bits/byte", ColumnKind::real,
       "bits per byte under a uniform code over the vocabulary: tokens x log2 V / bytes", false}};
}

// Each row's tokens against another row's on the same text: the premium
// against the reference language, the NSL against the baseline.
void add_ratio_columns(std::vector<ReportColumn>& columns, const CompareResult& result) {
  if (has_premium(result))
    columns.push_back({"premium", ColumnKind::real,
                       "the token premium: tokens / tokens of the reference language on the "
                       "same aligned segments; '-' on text that is not aligned"});
  if (has_nsl(result)) {
    columns.push_back({"nsl", ColumnKind::real,
                       "normalized sequence length: tokens / tokens of " + result.options.baseline +
                           " on the same text"});
    columns.push_back(
        {"nsl 95% CI", ColumnKind::text, "paired bootstrap interval of nsl over lines", false});
  }
}

// What the vocabulary means for a model: the text that fits in its context,
// and its embedding's size at each --d-model width.
void add_model_columns(std::vector<ReportColumn>& columns, const CompareResult& result) {
  const std::string context = std::to_string(result.options.context_tokens / 1000) + "k";
  columns.push_back({"ctx chars " + context, ColumnKind::integer,
                     "characters of this text that fit in a context of " +
                         std::to_string(result.options.context_tokens) + " tokens",
                     false});
  columns.push_back({"ctx words " + context, ColumnKind::integer,
                     "words of this text that fit in a context of " +
                         std::to_string(result.options.context_tokens) + " tokens"});
  for (const std::size_t d : result.options.d_models) {
    const std::string ds = std::to_string(d);
    columns.push_back({"emb" + ds + " M", ColumnKind::real,
                       "embedding parameters V x " + ds + " (tied), millions"});
    columns.push_back({"untied" + ds + " M", ColumnKind::real,
                       "input + output embeddings 2 x V x " + ds + " (untied), millions", false});
    columns.push_back({"bf16 " + ds + " MB", ColumnKind::real,
                       "tied embedding bytes at bf16 (untied: twice this), MB", false});
  }
}

// What the run itself cost (these vary from run to run), and the note.
void add_run_columns(std::vector<ReportColumn>& columns) {
  columns.push_back({"train s", ColumnKind::real, "training wall time, seconds"});
  columns.push_back({"peak MiB", ColumnKind::real,
                     "peak resident memory of the process during this training, shared word "
                     "counts included (measured with --jobs 1)"});
  columns.push_back({"enc MB/s", ColumnKind::real, "held-out encoding throughput, all threads"});
  // The note is long prose: files carry it, the terminal prints it under the table.
  columns.push_back({"note", ColumnKind::text, "error or remark", false});
}

std::vector<ReportColumn> comparison_columns(const CompareResult& result) {
  std::vector<ReportColumn> columns = {
      {"segmenter", ColumnKind::text,
       "plugin name, or NAME (pretrained) for a real model's tokenizer given with "
       "--tokenizer"}};
  if (result.languages.size() > 1)
    columns.push_back({"lang", ColumnKind::text, "language of the held-out text"});
  const std::vector<ReportColumn> metrics = metric_columns(result);
  columns.insert(columns.end(), metrics.begin(), metrics.end());
  const std::vector<ReportColumn> distribution = distribution_columns();
  columns.insert(columns.end(), distribution.begin(), distribution.end());
  add_ratio_columns(columns, result);
  add_model_columns(columns, result);
  add_run_columns(columns);
  return columns;
}

// ---- the comparison table's cells, in the columns' order --------------------------

void add_metric_cells(std::vector<std::string>& cells, const CompareResult& result,
                      const CompareRow& row) {
  const auto& m = row.metrics;
  cells.push_back(std::to_string(m.vocabulary_size));
  cells.push_back(std::to_string(m.tokens));
  cells.push_back(fixed(tokens_per_word(result, m), 3));
  cells.push_back(fixed(m.tokens_per_line(), 3));
  cells.push_back(fixed(m.characters_per_token(), 3));
  cells.push_back(fixed(m.bytes_per_token(), 3));
  // A pretrained tokenizer's tokens do not map onto tokenlab's words.
  cells.push_back(row.pretrained ? "-" : fixed(100 * m.continued_word_rate(), 2));
  cells.push_back(fixed(100 * m.unknown_token_rate(), 3));
  cells.push_back(fixed(100 * m.unknown_character_rate(), 3));
  cells.push_back(fixed(100 * m.unknown_word_rate(), 3));
  cells.push_back(fixed(100 * m.byte_fallback_rate(), 3));
  cells.push_back(fixed(100 * m.vocabulary_utilization(), 1));
  cells.push_back(fixed(m.renyi_efficiency_2_5, 3));
}

void add_distribution_cells(std::vector<std::string>& cells, const TokenDistribution& spread) {
  cells.push_back(fixed(spread.shannon_bits, 3));
  cells.push_back(fixed(spread.renyi_vocabulary[0], 4));
  cells.push_back(fixed(spread.renyi_seen[0], 4));
  cells.push_back(fixed(spread.renyi_vocabulary[1], 4));
  cells.push_back(fixed(spread.renyi_seen[1], 4));
  cells.push_back(fixed(spread.renyi_seen[2], 4));
  cells.push_back(fixed(spread.renyi_vocabulary[3], 4));
  cells.push_back(fixed(spread.renyi_seen[3], 4));
  cells.push_back(fixed(spread.type_token_ratio, 4));
  cells.push_back(fixed(spread.average_token_rank, 1));
  cells.push_back(fixed(spread.uniform_bits_per_byte, 3));
}

void add_ratio_cells(std::vector<std::string>& cells, const CompareResult& result,
                     const CompareRow& row) {
  if (has_premium(result)) cells.push_back(row.premium ? fixed(*row.premium, 3) : "-");
  if (has_nsl(result)) {
    cells.push_back(row.nsl ? fixed(*row.nsl, 3) : "-");
    cells.push_back(interval(row.nsl_interval, 3));
  }
}

void add_model_cells(std::vector<std::string>& cells, const CompareResult& result,
                     const SegmentationMetrics& m) {
  const double ctx = static_cast<double>(result.options.context_tokens);
  cells.push_back(
      m.tokens ? std::to_string(static_cast<std::uint64_t>(ctx * m.characters_per_token())) : "-");
  cells.push_back(m.tokens
                      ? std::to_string(static_cast<std::uint64_t>(ctx / tokens_per_word(result, m)))
                      : "-");
  for (const std::size_t d : result.options.d_models) {
    const EmbeddingCost cost = embedding_cost(m.vocabulary_size, d);
    cells.push_back(millions(cost.tied_parameters));
    cells.push_back(millions(cost.untied_parameters));
    cells.push_back(fixed(static_cast<double>(cost.tied_bf16_bytes()) / 1e6, 1));
  }
}

void add_run_cells(std::vector<std::string>& cells, const CompareRow& row) {
  cells.push_back(row.pretrained || row.train_seconds < 0 ? "-" : fixed(row.train_seconds, 2));
  cells.push_back(row.train_peak_mib >= 0 ? fixed(row.train_peak_mib, 1) : "-");
  cells.push_back(fixed(row.encode_mb_per_second, 1));
  cells.push_back(row.note);
}

void add_comparison_row(ReportTable& table, const CompareResult& result, const CompareRow& row) {
  std::vector<std::string> cells{row.pretrained ? row.algorithm + " (pretrained)" : row.algorithm};
  if (result.languages.size() > 1) cells.push_back(row.language);
  if (!row.error.empty()) {
    add_error_row(table, std::move(cells), row.error);
    return;
  }
  add_metric_cells(cells, result, row);
  add_distribution_cells(cells, row.metrics.distribution);
  add_ratio_cells(cells, result, row);
  add_model_cells(cells, result, row.metrics);
  add_run_cells(cells, row);
  table.rows.push_back(std::move(cells));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> run_metadata(const CompareResult& result) {
  std::vector<std::pair<std::string, std::string>> m;
  const auto& o = result.options;
  m.emplace_back("tokenlab version", TOKENLAB_VERSION);
  m.emplace_back("date", result.started_at);
  for (const auto& f : result.files)
    m.emplace_back("corpus" + (f.language.empty() ? std::string() : " " + f.language),
                   f.path + " (" + std::to_string(f.bytes) + " bytes, sha1 " + f.sha1 + ")");
  for (const auto& l : result.languages)
    m.emplace_back("lines" + (l.language.empty() ? std::string() : " " + l.language) +
                       " (training / held out)",
                   std::to_string(l.training_lines) + " / " + std::to_string(l.held_out_lines));
  m.emplace_back("distinct training words", std::to_string(result.distinct_words));
  if (!result.training_note.empty()) m.emplace_back("words left out", result.training_note);
  m.emplace_back("counting seconds", fixed(result.count_seconds, 2));
  m.emplace_back("vocab size requested", std::to_string(o.training.vocab_size));
  m.emplace_back("character coverage", fixed(o.training.character_coverage, 6));
  m.emplace_back("min frequency", std::to_string(o.training.min_frequency));
  if (o.training_counts)
    m.emplace_back("held-out fraction", "every line of the corpus (training from counts)");
  else
    m.emplace_back(
        "held-out fraction",
        fixed(o.held_out, 3) + (o.aligned ? " (aligned: by line number)" : " (by line hash)"));
  if (o.languages.size() > 1) {
    m.emplace_back("training", o.per_language ? "one tokenizer per language"
                                              : "joint (one tokenizer for all languages)");
    if (o.aligned) m.emplace_back("premium reference", o.reference_language);
    if (!result.premium_note.empty()) m.emplace_back("premium", result.premium_note);
  }
  m.emplace_back("protocol", o.protocol.to_string() + " (" + describe_protocol(o.protocol) + ")");
  if (!o.baseline.empty()) m.emplace_back("NSL baseline", o.baseline);
  if (o.bootstrap_samples > 0 && (o.aligned || !o.baseline.empty()))
    m.emplace_back("bootstrap", std::to_string(o.bootstrap_samples) +
                                    " paired resamples of the evaluation lines, 95% percentile "
                                    "intervals, seed " +
                                    std::to_string(o.training.seed));
  if (!result.bootstrap_note.empty()) m.emplace_back("bootstrap note", result.bootstrap_note);
  m.emplace_back("normalizer", o.normalizer.to_string());
  m.emplace_back("pre-tokenizer", o.pre_tokenizer.to_string());
  m.emplace_back("threads", std::to_string(resolve_threads(o.training.threads)));
  m.emplace_back("jobs", std::to_string(o.jobs));
  m.emplace_back("seed", std::to_string(o.training.seed));
  for (const auto& [algorithm, extra] : o.plugin_options)
    for (const auto& [key, value] : extra) m.emplace_back("option " + algorithm, key + "=" + value);
  std::vector<std::string> seen;
  for (const auto& row : result.rows)
    if (std::find(seen.begin(), seen.end(), row.algorithm) == seen.end()) {
      seen.push_back(row.algorithm);
      m.emplace_back("plugin " + row.algorithm,
                     row.plugin_version.empty() ? "-" : row.plugin_version);
    }
  return m;
}

ReportTable comparison_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab compare";
  t.columns = comparison_columns(result);
  for (const auto& row : result.rows) add_comparison_row(t, result, row);
  t.metadata = run_metadata(result);
  return t;
}

ReportTable fairness_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab fairness across languages";
  const std::string& baseline = result.options.baseline;
  t.columns = {
      {"segmenter", ColumnKind::text, "plugin name"},
      {"lang", ColumnKind::text, "language"},
      {"tok/byte", ColumnKind::real, "tokens per UTF-8 byte of held-out text"},
      {"tok/char", ColumnKind::real, "tokens per character"},
      {"premium", ColumnKind::real,
       "the token premium: tokens / reference-language tokens on the same aligned segments"},
      {"premium 95% CI", ColumnKind::text,
       "paired bootstrap interval of the premium over aligned lines"}};
  if (!baseline.empty())
    t.columns.push_back({"vs " + baseline + " 95% CI", ColumnKind::text,
                         "paired bootstrap interval of this premium minus " + baseline +
                             "'s premium in the same language (excludes 0: a difference)"});
  t.columns.push_back(
      {"gini", ColumnKind::real,
       "Gini coefficient of the languages' token counts on the same aligned segments (0 = "
       "every language pays the same)"});
  for (const auto& row : result.rows) {
    if (!row.error.empty()) continue;
    const auto& m = row.metrics;
    const auto gini = result.gini.find(row.algorithm);
    std::vector<std::string> cells{
        row.algorithm,
        row.language,
        fixed(m.bytes ? static_cast<double>(m.tokens) / static_cast<double>(m.bytes) : 0.0, 4),
        fixed(
            m.characters ? static_cast<double>(m.tokens) / static_cast<double>(m.characters) : 0.0,
            4),
        row.premium ? fixed(*row.premium, 3) : "-",
        interval(row.premium_interval, 3)};
    if (!baseline.empty()) cells.push_back(interval(row.premium_difference_interval, 3));
    cells.push_back(gini == result.gini.end() ? "-" : fixed(gini->second, 4));
    t.rows.push_back(std::move(cells));
  }
  t.metadata = run_metadata(result);
  return t;
}

ReportTable pooled_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab over all languages pooled";
  t.columns = {
      {"segmenter", ColumnKind::text, "row label"},
      {"vocab", ColumnKind::integer, "vocabulary size, special tokens included"},
      {"tokens", ColumnKind::integer, "tokens over every language's evaluation text"},
      {"lines", ColumnKind::integer, "non-empty evaluation lines, every language"},
      {"tok/line", ColumnKind::real, "mean tokens per line (swiss-ai's fertility over lines)"},
      {"used", ColumnKind::real, "vocabulary used: distinct tokens / vocabulary size"},
      {"used tokens", ColumnKind::integer, "distinct tokens seen", false},
      {"ttr", ColumnKind::real, "type-token ratio: distinct tokens / tokens"},
      {"shannon bits", ColumnKind::real, "Shannon entropy of the pooled token distribution"},
      {"avg rank", ColumnKind::real,
       "mean rank of the tokens in the pooled text's own frequency order"},
      {"renyi2.5 eff", ColumnKind::real, "Renyi efficiency, alpha 2.5, over log2 V"},
      {"gini", ColumnKind::real, "Gini coefficient of the languages' token counts (aligned text)"}};
  if (!result.options.baseline.empty())
    t.columns.push_back({"nsl", ColumnKind::real,
                         "tokens / tokens of " + result.options.baseline + " on the pooled text"});
  for (const auto& row : result.pooled) {
    const auto& m = row.metrics;
    const auto gini = result.gini.find(row.algorithm);
    std::vector<std::string> cells{row.pretrained ? row.algorithm + " (pretrained)" : row.algorithm,
                                   std::to_string(m.vocabulary_size),
                                   std::to_string(m.tokens),
                                   std::to_string(m.lines),
                                   fixed(m.tokens_per_line(), 3),
                                   fixed(m.vocabulary_utilization(), 3),
                                   std::to_string(m.distinct_tokens),
                                   fixed(m.distribution.type_token_ratio, 4),
                                   fixed(m.distribution.shannon_bits, 2),
                                   fixed(m.distribution.average_token_rank, 1),
                                   fixed(m.renyi_efficiency_2_5, 3),
                                   gini == result.gini.end() ? "-" : fixed(gini->second, 3)};
    if (!result.options.baseline.empty()) cells.push_back(row.nsl ? fixed(*row.nsl, 3) : "-");
    t.rows.push_back(std::move(cells));
  }
  t.metadata = run_metadata(result);
  return t;
}

ReportTable sweep_table(const SweepResult& sweep) {
  ReportTable t;
  t.title = "tokenlab sweep";
  const bool multilingual = !sweep.runs.empty() && sweep.runs.front().languages.size() > 1;
  t.columns = {{"size", ColumnKind::integer, "vocabulary size requested"},
               {"segmenter", ColumnKind::text, "plugin name"}};
  if (multilingual) t.columns.push_back({"lang", ColumnKind::text, "language"});
  const std::vector<std::size_t> widths =
      sweep.runs.empty() ? std::vector<std::size_t>{768} : sweep.runs.front().options.d_models;
  const std::vector<ReportColumn> rest = {
      {"vocab", ColumnKind::integer, "vocabulary size reached"},
      {"tokens", ColumnKind::integer, "held-out tokens (sequence length)"},
      {"tok/char", ColumnKind::real, "tokens per character"},
      {"tok/word", ColumnKind::real, "fertility"},
      {"unk tok%", ColumnKind::real, "unknown tokens / tokens, percent"},
      {"unk word%", ColumnKind::real, "words with an unknown token, percent"},
      {"byte fb%", ColumnKind::real, "byte-fallback tokens / tokens, percent"},
  };
  t.columns.insert(t.columns.end(), rest.begin(), rest.end());
  // One column per --d-model width, as compare has (only the first was shown).
  for (const std::size_t width : widths)
    t.columns.push_back(
        {"emb" + std::to_string(width) + " M", ColumnKind::real,
         "tied embedding parameters at d_model " + std::to_string(width) + ", millions"});
  t.columns.push_back({"train s", ColumnKind::real, "training seconds"});
  // Files only; the terminal prints the sizes the corpus cannot reach under the table.
  t.columns.push_back(
      {"note", ColumnKind::text, "remark (sizes the corpus cannot reach) or error", false});
  for (std::size_t i = 0; i < sweep.runs.size(); ++i) {
    for (const auto& row : sweep.runs[i].rows) {
      std::vector<std::string> cells{std::to_string(sweep.vocab_sizes[i]), row.algorithm};
      if (multilingual) cells.push_back(row.language);
      if (!row.error.empty()) {
        add_error_row(t, std::move(cells), row.error);
        continue;
      }
      const auto& m = row.metrics;
      cells.push_back(std::to_string(m.vocabulary_size));
      cells.push_back(std::to_string(m.tokens));
      cells.push_back(fixed(
          m.characters ? static_cast<double>(m.tokens) / static_cast<double>(m.characters) : 0.0,
          4));
      cells.push_back(fixed(m.fertility(), 3));
      cells.push_back(fixed(100 * m.unknown_token_rate(), 3));
      cells.push_back(fixed(100 * m.unknown_word_rate(), 3));
      cells.push_back(fixed(100 * m.byte_fallback_rate(), 3));
      for (const std::size_t width : widths)
        cells.push_back(millions(embedding_cost(m.vocabulary_size, width).tied_parameters));
      cells.push_back(row.pretrained || row.train_seconds < 0 ? "-" : fixed(row.train_seconds, 2));
      cells.push_back(row.note);
      t.rows.push_back(std::move(cells));
    }
  }
  if (!sweep.runs.empty()) t.metadata = run_metadata(sweep.runs.front());
  t.metadata.erase(
      std::remove_if(t.metadata.begin(), t.metadata.end(),
                     [](const auto& kv) { return kv.first == "vocab size requested"; }),
      t.metadata.end());
  std::string sizes;
  for (const auto s : sweep.vocab_sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  t.metadata.emplace_back("vocab sizes", sizes);
  return t;
}

}  // namespace tokenlab
