// The comparison experiment (compare.hpp): the options resolved, every corpus
// read once (compare_preparation.cpp), each label trained or loaded and
// evaluated (compare_training.cpp, compare_evaluation.cpp), then the figures
// that compare rows with each other: premium, Gini, NSL and their intervals
// (bootstrap.cpp).
#include "tokenlab/compare.hpp"

#include <algorithm>
#include <ctime>
#include <mutex>

#include "compare_internal.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/types.hpp"

#ifndef TOKENLAB_VERSION
#define TOKENLAB_VERSION "unknown"
#endif

namespace tokenlab {

namespace {

using compare_detail::LabelEvaluation;
using compare_detail::LineTokens;
using compare_detail::Prepared;
using compare_detail::Task;

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

CompareOptions resolve(const PluginRegistry& registry, const CompareOptions& in) {
  CompareOptions o = in;
  {  // what every training will be told, checked before any counting
    validate(o.training);
  }
  if (o.languages.empty()) {
    if (o.corpus_files.empty()) throw Error("no corpus files given");
    o.languages.push_back({"", o.corpus_files});
  }
  for (std::size_t i = 0; i < o.languages.size(); ++i)
    for (std::size_t j = i + 1; j < o.languages.size(); ++j)
      if (o.languages[i].language == o.languages[j].language)
        throw Error("language '" + o.languages[i].language + "' given twice");
  if (o.evaluate_only) {
    if (!o.algorithms.empty())
      throw Error("evaluate_only trains nothing: give no algorithms with it");
    if (o.pretrained.empty() && o.models.empty())
      throw Error(
          "nothing to compare: no algorithm is trained (--algorithms none) and no model or "
          "tokenizer is given (--model NAME=FILE, --tokenizer NAME=FILE)");
  } else if (o.algorithms.empty()) {
    for (const auto& p : registry.plugins()) o.algorithms.push_back(p.name);
    if (o.algorithms.empty()) throw Error("no plugins found (see 'tokenlab plugins')");
  }
  for (const auto& name : o.algorithms)
    (void)registry.info(name);  // unknown -> Error listing plugins
  if (o.languages.size() > 1 && o.reference_language.empty()) {
    o.reference_language = o.languages.front().language;
    for (const auto& l : o.languages)
      if (l.language == "en" || l.language == "eng" || l.language == "eng_Latn")
        o.reference_language = l.language;
  }
  if (!o.reference_language.empty()) {
    bool found = false;
    for (const auto& l : o.languages) found = found || l.language == o.reference_language;
    if (!found)
      throw Error("reference language '" + o.reference_language + "' is not among the corpora");
  }
  if (o.training_counts) {
    // Trained on other text (counts, or a training corpus counted first), evaluated
    // on every line of each evaluation corpus: one tokenizer for all languages.
    if (o.per_language)
      throw Error(
          "training on separate text makes one tokenizer for every evaluation language; "
          "--per-language needs each language's own training text (drop --eval, or compare "
          "each language on its own)");
    if (o.training_counts->empty()) throw Error("the training counts hold no words");
  }
  for (const auto& entry : o.models) {
    // The held-out words are cut by the run's normalizer and pre-tokenizer: a model
    // made with others would be measured on words it never sees in use.
    const auto normalizer = entry.tokenizer->normalizer().options().to_string();
    const auto pre_tokenizer = entry.tokenizer->pre_tokenizer().options().to_string();
    if (normalizer != o.normalizer.to_string() || pre_tokenizer != o.pre_tokenizer.to_string())
      throw Error(entry.source + ": the model was trained with normalizer " + normalizer +
                  " and pre-tokenizer " + pre_tokenizer + ", and this run uses " +
                  o.normalizer.to_string() + " and " + o.pre_tokenizer.to_string() +
                  ": give the run the model's --normalization, --lowercase, --pre-tokenizer and "
                  "--marker, or pass the model with --tokenizer (its own pipeline on whole lines)");
    for (const auto& name : o.algorithms)
      if (name == entry.name)
        throw Error("--model " + entry.name + " has the name of an algorithm trained in the run");
  }
  if (!o.baseline.empty()) {
    const auto labels = row_labels(o);
    if (std::find(labels.begin(), labels.end(), o.baseline) == labels.end()) {
      std::string known;
      for (const auto& l : labels) known += (known.empty() ? "" : ", ") + l;
      throw Error("the NSL baseline '" + o.baseline + "' is not a row of this run (rows: " + known +
                  ")");
    }
  }
  if (o.bootstrap_samples > kMaxBootstrapSamples)
    throw Error("bootstrap samples must be at most " + std::to_string(kMaxBootstrapSamples) +
                ", got " + std::to_string(o.bootstrap_samples));
  if (!o.audit_words.empty()) {
    if (!o.audit) throw Error("--audit-words is the audit's word list: give --audit with it");
    (void)read_word_list(o.audit_words);  // a missing file fails before any training
  }
  if (o.allocation_held_out && !o.allocation)
    throw Error(
        "--allocation-held-out chooses the allocation's pruning order on other lines: "
        "give --allocation with it");
  if (!o.allocation_sizes.empty() && !o.allocation)
    throw Error(
        "--allocation-sizes are the allocation's pruning checkpoints: give --allocation "
        "with them");
  for (const std::size_t size : o.allocation_sizes)
    if (size == 0) throw Error("--allocation-sizes: a vocabulary size must be at least 1");
  if (o.jobs == 0) o.jobs = 1;
  return o;
}

// ---- evaluating every label -------------------------------------------------------

// What the run read and counted, before any row.
CompareResult result_of_reading(const CompareOptions& options, const Prepared& prepared) {
  CompareResult result;
  result.options = options;
  result.started_at = now_utc();
  result.files = prepared.files;
  for (const auto& l : prepared.languages) result.languages.push_back(l.summary);
  result.distinct_words = prepared.joint.size();
  result.training_note = describe(prepared.long_words);
  result.count_seconds = prepared.count_seconds;
  return result;
}

// One training per algorithm, or per algorithm and language with per_language.
std::vector<Task> training_tasks(const CompareOptions& options, const Prepared& prepared) {
  std::vector<Task> tasks;
  for (const auto& algorithm : options.algorithms) {
    if (options.per_language) {
      for (std::size_t l = 0; l < prepared.languages.size(); ++l) tasks.push_back({algorithm, l});
    } else {
      tasks.push_back({algorithm, 0});
    }
  }
  return tasks;
}

// Trains and evaluates the algorithms, options.jobs at a time, in task order.
std::vector<LabelEvaluation> train_all(const PluginRegistry& registry,
                                       const CompareOptions& options, const Prepared& prepared,
                                       const ProgressFn& progress,
                                       std::vector<SampleSegmentation>& samples,
                                       std::mutex& samples_mutex) {
  const std::vector<Task> tasks = training_tasks(options, prepared);
  std::vector<LabelEvaluation> evaluations(tasks.size());
  std::mutex progress_mutex;
  std::size_t finished = 0;
  const bool measure_memory = options.jobs <= 1;
  parallel_for(tasks.size(), options.jobs, [&](std::size_t i) {
    if (progress) {
      std::lock_guard lock(progress_mutex);
      progress("training " + tasks[i].algorithm +
                   (options.per_language
                        ? " (" + prepared.languages[tasks[i].language].summary.language + ")"
                        : "") +
                   " at " + std::to_string(options.training.vocab_size),
               static_cast<double>(finished) / static_cast<double>(tasks.size()));
    }
    evaluations[i] = compare_detail::train_and_evaluate(registry, options, prepared, tasks[i],
                                                        measure_memory, samples, samples_mutex);
    std::lock_guard lock(progress_mutex);
    ++finished;
  });
  return evaluations;
}

// Every label's evaluation in row_labels order: the algorithms trained here,
// then the models trained before, then the real tokenizers.
std::vector<LabelEvaluation> evaluate_labels(const PluginRegistry& registry,
                                             const CompareOptions& options,
                                             const Prepared& prepared, const ProgressFn& progress,
                                             std::vector<SampleSegmentation>& samples) {
  std::mutex samples_mutex;
  std::vector<LabelEvaluation> evaluations =
      train_all(registry, options, prepared, progress, samples, samples_mutex);
  for (const auto& entry : options.models) {
    if (progress) progress("encoding with " + entry.name, 1.0);
    evaluations.push_back(
        compare_detail::evaluate_model(options, prepared, entry, samples, samples_mutex));
    evaluations.back().encoder = entry.tokenizer;
    if (options.allocation) {
      // The subject shares the tokenizer's segmenter, and keeps the tokenizer alive.
      evaluations.back().allocation = make_inference_subject(
          std::shared_ptr<const Segmenter>(entry.tokenizer, &entry.tokenizer->segmenter()));
      evaluations.back().allocation_on_words = true;
    }
  }
  for (const auto& entry : options.pretrained) {
    if (progress) progress("encoding with " + entry.name, 1.0);
    evaluations.push_back(compare_detail::evaluate_pretrained(options, prepared, entry, samples));
    compare_detail::add_pretrained_studies(options, prepared, entry, evaluations.back(), samples);
    evaluations.back().encoder = entry.encoder;
    evaluations.back().allocation = entry.allocation;
  }
  return evaluations;
}

// Moves the evaluations' rows into result; returns each row's tokens per line,
// parallel to result.rows.
std::vector<LineTokens> take_rows(std::vector<LabelEvaluation>& evaluations,
                                  CompareResult& result) {
  std::vector<LineTokens> line_tokens;
  for (auto& evaluation : evaluations) {
    for (std::size_t r = 0; r < evaluation.rows.size(); ++r) {
      result.rows.push_back(std::move(evaluation.rows[r]));
      line_tokens.push_back(std::move(evaluation.line_tokens[r]));
    }
    if (evaluation.pooled) result.pooled.push_back(std::move(*evaluation.pooled));
    for (auto& m : evaluation.morphology) result.morphology.push_back(std::move(m));
    for (auto& i : evaluation.inference) result.inference.push_back(std::move(i));
  }
  return line_tokens;
}

// Samples in a fixed order whatever the job scheduling.
void sort_samples(std::vector<SampleSegmentation>& samples,
                  const std::vector<std::string>& labels) {
  std::stable_sort(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
    const auto rank = [&](const std::string& algorithm) {
      return std::find(labels.begin(), labels.end(), algorithm) - labels.begin();
    };
    if (a.language != b.language) return a.language < b.language;
    if (a.text != b.text) return a.text < b.text;
    return rank(a.algorithm) < rank(b.algorithm);
  });
}

// Each row's tokens over those of the same label's row in the reference language.
void add_premiums(std::vector<CompareRow>& rows, const std::string& reference) {
  for (auto& row : rows) {
    if (!row.error.empty()) continue;
    for (const auto& ref : rows)
      if (ref.algorithm == row.algorithm && ref.language == reference && ref.error.empty() &&
          ref.metrics.tokens > 0)
        row.premium =
            static_cast<double>(row.metrics.tokens) / static_cast<double>(ref.metrics.tokens);
  }
}

// The Gini coefficient of each label's token counts over the languages.
void add_gini(CompareResult& result, const std::vector<std::string>& labels) {
  for (const auto& algorithm : labels) {
    std::vector<double> tokens;
    bool complete = true;
    for (const auto& row : result.rows)
      if (row.algorithm == algorithm) {
        complete = complete && row.error.empty();
        tokens.push_back(static_cast<double>(row.metrics.tokens));
      }
    // Every language's count, or none: a Gini over the languages that happened
    // to succeed would be a different quantity under the same name.
    if (complete && tokens.size() > 1) result.gini[algorithm] = gini_coefficient(tokens);
  }
}

// The premium and Gini compare what each language pays for the same content:
// defined on aligned text only. Tokens per byte is no substitute (scripts spend
// different bytes on a character): it made Llama 3 look fairest. Returns the
// reference language, or "" where they are not computed (and why is noted).
std::string add_fairness(CompareResult& result, const CompareOptions& options,
                         const Prepared& prepared, const std::vector<std::string>& labels) {
  if (prepared.languages.size() < 2) {
    result.premium_note = "premium and Gini: one language only";
    return "";
  }
  if (!options.aligned) {
    result.premium_note =
        "premium and Gini: not computed, the languages' texts are not line-aligned "
        "translations of each other (give --parallel DIR or --eval-parallel DIR for aligned text)";
    return "";
  }
  add_premiums(result.rows, options.reference_language);
  add_gini(result, labels);
  return options.reference_language;
}

// NSL: each row's tokens over the baseline row's in the same language.
void add_nsl(std::vector<CompareRow>& rows, const std::string& baseline) {
  for (auto& row : rows) {
    if (!row.error.empty()) continue;
    for (const auto& base : rows)
      if (base.algorithm == baseline && base.language == row.language && base.error.empty() &&
          base.metrics.tokens > 0)
        row.nsl =
            static_cast<double>(row.metrics.tokens) / static_cast<double>(base.metrics.tokens);
  }
}

CompareResult evaluate_all(const PluginRegistry& registry, const CompareOptions& options,
                           const Prepared& prepared, const ProgressFn& progress) {
  CompareResult result = result_of_reading(options, prepared);
  std::vector<SampleSegmentation> samples;
  std::vector<LabelEvaluation> evaluations =
      evaluate_labels(registry, options, prepared, progress, samples);
  if (options.audit || options.agreement || options.allocation) {
    if (progress) progress("vocabulary audit, agreement and allocation", 1.0);
    compare_detail::add_vocabulary_studies(result, options, prepared, evaluations);
  }
  const std::vector<LineTokens> line_tokens = take_rows(evaluations, result);
  const std::vector<std::string> labels = row_labels(options);
  sort_samples(samples, labels);
  result.samples = std::move(samples);
  const std::string reference = add_fairness(result, options, prepared, labels);
  if (!options.baseline.empty()) {
    add_nsl(result.rows, options.baseline);
    add_nsl(result.pooled, options.baseline);
  }
  if (options.bootstrap_samples > 0 && (!reference.empty() || !options.baseline.empty())) {
    compare_detail::add_bootstrap_intervals(result, line_tokens, reference, options.baseline);
    if (options.protocol.unit == EvaluationUnit::document && !options.pretrained.empty())
      result.bootstrap_note =
          "bootstrap intervals: none for real tokenizers under --unit document (one call per "
          "file gives no tokens per line to resample)";
  }
  return result;
}

}  // namespace

std::vector<std::string> row_labels(const CompareOptions& options) {
  std::vector<std::string> labels = options.algorithms;
  for (const auto& entry : options.models) labels.push_back(entry.name);
  for (const auto& entry : options.pretrained) labels.push_back(entry.name);
  return labels;
}

double gini_coefficient(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  double weighted = 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    weighted += static_cast<double>(i + 1) * values[i];
    sum += values[i];
  }
  if (sum <= 0.0) return 0.0;
  return (2.0 * weighted) / (n * sum) - (n + 1.0) / n;
}

CompareResult run_compare(const PluginRegistry& registry, const CompareOptions& options,
                          const ProgressFn& progress) {
  const CompareOptions resolved = resolve(registry, options);
  const Prepared prepared = compare_detail::prepare(resolved, progress);
  CompareResult result = evaluate_all(registry, resolved, prepared, progress);
  if (progress) progress("done", 1.0);
  return result;
}

SweepResult run_sweep(const PluginRegistry& registry, const CompareOptions& options,
                      const std::vector<std::size_t>& vocab_sizes, const ProgressFn& progress) {
  if (vocab_sizes.empty()) throw Error("no vocabulary sizes given");
  const CompareOptions resolved = resolve(registry, options);
  const Prepared prepared = compare_detail::prepare(resolved, progress);
  SweepResult sweep;
  sweep.vocab_sizes = vocab_sizes;
  for (const std::size_t size : vocab_sizes) {
    CompareOptions at = resolved;
    at.training.vocab_size = size;
    sweep.runs.push_back(evaluate_all(registry, at, prepared, progress));
  }
  if (progress) progress("done", 1.0);
  return sweep;
}

}  // namespace tokenlab
