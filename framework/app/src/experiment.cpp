// resolve_experiment: what a compare or sweep request names, turned into the
// study's CompareOptions before any training.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "tokenlab/app/any_model.hpp"
#include "tokenlab/app/pretrained_inference.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/corpus_spec.hpp"
#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"

namespace tokenlab::app {

namespace {

// --inference and --morph-gold, before the tokenizers are read (their
// vocabularies are prepared for the methods only when methods are asked for).
void resolve_studies(ExperimentRequest& request) {
  try {
    request.options.inference_methods = parse_inference_methods(request.inference);
  } catch (const Error& e) {
    throw UsageError(std::string("--inference: ") + e.what());
  }
  for (const auto& spec : request.morph_gold)
    request.options.morph_gold.push_back(read_gold_segmentations(spec));
}

void resolve_protocol_and_algorithms(ExperimentRequest& request) {
  CompareOptions& options = request.options;
  try {
    options.protocol.unit = parse_evaluation_unit(request.unit);
    options.protocol.words = parse_word_definition(request.words);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  // "none": evaluate only the --tokenizer files. An empty list is a mistake, not
  // "every plugin" (which is what leaving --algorithms out means).
  if (request.algorithms && *request.algorithms == std::vector<std::string>{"none"}) {
    options.evaluate_only = true;
  } else if (request.algorithms) {
    if (request.algorithms->empty())
      throw UsageError("--algorithms is empty: give plugin names, or none to train nothing");
    options.algorithms = *request.algorithms;
  }
  request.pipeline.resolve();
  options.jobs = capped_threads(options.jobs);
  options.training.threads = request.pipeline.threads;
  options.normalizer = request.pipeline.normalizer();
  options.pre_tokenizer = request.pipeline.pre_tokenizer_options();
  options.invalid_utf8 = request.pipeline.invalid_utf8_policy();
}

// Every ALGO in --option ALGO:key=value must name a plugin that was found.
void check_plugin_options(const ExperimentRequest& request, const PluginRegistry& registry) {
  for (const auto& [plugin, values] : request.options.plugin_options)
    if (!registry.has(plugin))
      throw UsageError("--option " + plugin + ":...: no plugin named '" + plugin +
                       "' (available: " + registry.available_names() + ")");
}

// --model NAME=FILE: a model tokenlab trained, as its .tkl or its exported tokenizer.json.
void load_models(ExperimentRequest& request, const PluginRegistry& registry) {
  CompareOptions& options = request.options;
  for (const auto& [name, file] : request.models) {
    for (const auto& entry : options.models)
      if (entry.name == name) throw UsageError("--model " + name + " is given twice");
    const AnyModel loaded = load_any_model(file, registry);
    std::shared_ptr<const Tokenizer> trained = loaded.trained;
    if (!trained && loaded.kind == "tokenizer.json") {
      // A trained model's exported tokenizer.json is that model: evaluated word by
      // word as its .tkl would be. Any other tokenizer.json runs its own pipeline
      // on whole lines, as --tokenizer does.
      try {
        trained = load_exported_tokenizer_json(file);
      } catch (const Error& e) {
        throw UsageError("--model " + name + ": " + e.what() + "; pass it with --tokenizer " +
                         name + "=" + file + " instead");
      }
    }
    if (!trained)
      throw UsageError("--model " + name + ": " + file +
                       " is a real model's tokenizer, not a model tokenlab trained: give it with "
                       "--tokenizer");
    options.models.push_back({name, file, trained});
  }
}

// --tokenizer NAME=FILE: a real model's tokenizer, read before any counting so
// that a bad file fails first.
void load_tokenizers(ExperimentRequest& request, const PluginRegistry& registry) {
  CompareOptions& options = request.options;
  for (const auto& [name, file] : request.tokenizers) {
    for (const auto& entry : options.pretrained)
      if (entry.name == name) throw UsageError("--tokenizer " + name + " is given twice");
    for (const auto& entry : options.models)
      if (entry.name == name) throw UsageError("--tokenizer " + name + " is also a --model");
    for (const auto& algorithm : options.algorithms)
      if (algorithm == name)
        throw UsageError("--tokenizer " + name + " has the name of a trained algorithm");
    const AnyModel any = load_any_model(file, registry);
    std::shared_ptr<const InferenceSubject> subject;
    if (!options.inference_methods.empty() && any.pretrained)
      subject = make_pretrained_inference_subject(any.pretrained);
    std::shared_ptr<const InferenceSubject> allocation;
    if (options.allocation && any.pretrained)
      allocation = make_pretrained_inference_subject(any.pretrained, true);
    options.pretrained.push_back({name, file, any.encoder, subject, allocation});
  }
}

void load_training_counts(ExperimentRequest& request, const NoteFn& note) {
  auto counts = std::make_shared<WordCounts>();
  std::string source = "the counts";
  if (request.given_counts) {
    *counts = *request.given_counts;
  } else {
    for (const auto& file : request.counts_files)
      counts->merge(WordCounts::load_tsv(std::filesystem::path(file)), file);
    source = request.counts_files.front();
  }
  if (counts->empty())
    throw Error(request.given_counts ? "the counts hold no words"
                                     : "the counts files hold no words");
  check_counts_settings(*counts, source, request.pipeline, note);
  request.options.training_counts = std::move(counts);
  request.options.training_counts_files = request.counts_files;
}

bool has_counts(const ExperimentRequest& request) {
  return !request.counts_files.empty() || request.given_counts != nullptr;
}

// Train on one text, evaluate on another: the most common study design (train
// on Wikipedia, measure premiums on NTREX or FLORES).
void resolve_separate_evaluation(ExperimentRequest& request, const NoteFn& note) {
  CompareOptions& options = request.options;
  if (!request.eval.empty() && !request.eval_parallel.empty())
    throw UsageError("give --eval or --eval-parallel, not both");
  if (!request.parallel_dir.empty())
    throw UsageError(
        "with --eval or --eval-parallel, --parallel has no role: the training text is "
        "--corpus FILE... (or --counts), the evaluation text --eval/--eval-parallel");
  options.evaluate_every_line = true;
  if (options.evaluate_only && (!request.corpus.empty() || has_counts(request)))
    throw UsageError(
        "--algorithms none trains nothing: give only the evaluation text (--eval or "
        "--eval-parallel), not --corpus or --counts");
  if (!options.evaluate_only && request.corpus.empty() == !has_counts(request))
    throw UsageError(
        "--eval and --eval-parallel need the training text: --corpus FILE... or --counts "
        "COUNTS..., one of them");
  if (has_counts(request)) {
    load_training_counts(request, note);
  } else if (!options.evaluate_only) {
    // LANG=FILE entries are allowed: one tokenizer is trained on all of them.
    std::vector<std::string> files;
    for (const auto& entry : request.corpus) files.push_back(entry.file);
    auto counts = std::make_shared<WordCounts>(count_corpus_files(files, request.pipeline, {}));
    if (counts->empty()) throw Error("the training text holds no words");
    options.training_counts = std::move(counts);
    options.training_counts_files = files;
  }
  resolve_corpora({.corpus = request.eval,
                   .parallel_dir = request.eval_parallel,
                   .languages = request.languages.value_or(std::vector<std::string>{})},
                  options);
}

// The report files (CSV, JSON, Markdown, HTML, SVG) must not replace an input.
void check_inputs_outside_report(const ExperimentRequest& request) {
  const std::string& report_dir = request.report_dir;
  if (report_dir.empty()) return;
  std::error_code ec;
  const auto dir = std::filesystem::weakly_canonical(report_dir, ec);
  if (ec) return;
  std::vector<std::string> inputs = request.options.corpus_files;
  for (const auto& l : request.options.languages)
    inputs.insert(inputs.end(), l.files.begin(), l.files.end());
  static const std::set<std::string> kReportExtensions = {".csv", ".json", ".md", ".html", ".svg"};
  for (const auto& input : inputs) {
    const auto file = std::filesystem::weakly_canonical(input, ec);
    if (ec || !kReportExtensions.count(file.extension().string())) continue;
    const auto relative = file.lexically_relative(dir);
    if (!relative.empty() && *relative.begin() != "..")
      throw Error(input + ": is inside --report-dir " + report_dir +
                  ", where report files could replace it; choose another report directory");
  }
}

// Before any training: the models this study trains that `tokenlab export
// --format tokenizer.json` would refuse, named now rather than found out when
// the study is done. The check is export's own (tokenizer_json_refusal); of
// the plugin options, only bpe's units=bytes changes what a model exports as.
void warn_unexportable(const ExperimentRequest& request, const PluginRegistry& registry,
                       const NoteFn& note) {
  const CompareOptions& options = request.options;
  if (options.evaluate_only) return;
  std::vector<std::string> algorithms = options.algorithms;
  if (algorithms.empty())
    for (const PluginInfo& plugin : registry.plugins()) algorithms.push_back(plugin.name);
  // Each reason once, with the algorithms it holds for, in the order given.
  std::vector<std::pair<std::string, std::string>> refused;
  for (const std::string& algorithm : algorithms) {
    const auto found = options.plugin_options.find(algorithm);
    const bool byte_level = algorithm == "bpe" && found != options.plugin_options.end() &&
                            found->second.count("units") != 0 &&
                            found->second.at("units") == "bytes";
    const auto why = tokenizer_json_refusal(options.normalizer, options.pre_tokenizer, byte_level);
    if (!why) continue;
    const auto same = std::find_if(refused.begin(), refused.end(),
                                   [&](const auto& entry) { return entry.first == *why; });
    if (same == refused.end())
      refused.emplace_back(*why, algorithm);
    else
      same->second += ", " + algorithm;
  }
  for (const auto& [why, names] : refused)
    note("warning: " + names + ": the trained model cannot be exported as tokenizer.json: " + why);
}

}  // namespace

void make_report_dir(const std::string& report_dir) {
  std::error_code ec;
  std::filesystem::create_directories(report_dir, ec);
  if (ec || !std::filesystem::is_directory(report_dir))
    throw Error(report_dir + ": cannot create report directory" +
                (ec ? ": " + ec.message() : std::string()));
  // Before any training: an unwritable directory would otherwise fail at the end.
  if (::access(report_dir.c_str(), W_OK) != 0)
    throw Error(report_dir + ": report directory is not writable");
  check_writable(std::filesystem::path(report_dir) / "report.html");
}

void resolve_experiment(ExperimentRequest& request, const PluginRegistry& registry,
                        const NoteFn& note) {
  CompareOptions& options = request.options;
  resolve_protocol_and_algorithms(request);
  resolve_studies(request);
  check_plugin_options(request, registry);
  load_models(request, registry);
  load_tokenizers(request, registry);
  if (!request.parallel_dir.empty() && !request.corpus.empty())
    throw UsageError("give --corpus or --parallel, not both");
  const bool separate_eval = !request.eval.empty() || !request.eval_parallel.empty();
  if (separate_eval) {
    resolve_separate_evaluation(request, note);
  } else {
    resolve_corpora({.corpus = request.corpus,
                     .parallel_dir = request.parallel_dir,
                     .languages = request.languages.value_or(std::vector<std::string>{})},
                    options);
  }
  if (options.per_language && options.languages.size() < 2)
    throw UsageError("--per-language needs several languages (LANG=FILE or --parallel)");
  if (has_counts(request) && !separate_eval) {
    // The counts are the training text; --corpus or --parallel is only evaluated,
    // so one must be given: the bundled corpus would be another text than the counts'.
    if (request.corpus.empty() && request.parallel_dir.empty())
      throw UsageError(
          "--counts needs the text to evaluate the tokenizers on: --corpus FILE... (or "
          "LANG=FILE...), --parallel DIR, or --eval/--eval-parallel");
    load_training_counts(request, note);
  }
  if (!request.report_dir.empty()) make_report_dir(request.report_dir);
  if (const auto path = use_default_corpus(options))
    note(
        "no --corpus given: using the bundled default corpus, the World English Bible "
        "(public domain), " +
        path->string());
  check_inputs_outside_report(request);
  warn_unexportable(request, registry, note);
}

}  // namespace tokenlab::app
