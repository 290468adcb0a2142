#include "workflows.hpp"

#include <unistd.h>

#include <charconv>
#include <iostream>
#include <set>
#include <sstream>

#include "any_model.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/corpus_spec.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/pretrained/rank_merges.hpp"
#include "tokenlab/pretrained/sentencepiece_writer.hpp"
#include "tokenlab/pretrained/tiktoken_writer.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::cli {

void note_to_stderr(const std::string& note) {
  std::cerr << note << '\n';
}

WordCounts count_corpus_files(const std::vector<std::string>& files,
                              const PipelineOptions& pipeline,
                              const std::function<void(std::uint64_t)>& on_bytes) {
  CorpusReader reader(files, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
  CountOptions options;
  options.threads = pipeline.threads;
  options.on_progress = on_bytes;
  WordCounts counts = count_words(reader, Normalizer(pipeline.normalizer()),
                                  PreTokenizer(pipeline.pre_tokenizer_options()), options);
  counts.set_settings(pipeline.counts_settings());
  return counts;
}

// Counts made with another normalizer or pre-tokenizer would train a tokenizer
// for words encode never produces: refuse them, naming both settings.
void check_counts_settings(const WordCounts& counts, const std::string& source,
                           const PipelineOptions& pipeline, const NoteFn& note) {
  const std::string expected = pipeline.counts_settings();
  if (counts.settings().empty()) {
    note("note: " + source +
         " records no settings (an older tokenlab wrote it); training as if it was counted with " +
         expected);
    return;
  }
  if (counts.settings() != expected)
    throw Error(source + ": counted with " + counts.settings() + ", and train was given " +
                expected +
                ": give train the --normalization, --lowercase, --pre-tokenizer and --marker "
                "the counts were made with, or count again");
}

void TrainArgs::add_to(po::options_description& desc) {
  desc.add_options()("algorithm,a", po::value(&algorithm)->required(),
                     "plugin name (see 'tokenlab plugins')")(
      "vocab-size,v", ranged(&vocab_size, std::size_t{1}, kMaxVocabSize)->required(),
      "vocabulary size, special tokens included")("corpus", po::value(&corpus)->multitoken(),
                                                  "corpus files (.gz, .xz, - for stdin)")(
      "counts", po::value(&counts_files)->multitoken(),
      "word counts from 'tokenlab count' (merged if several)")(
      "option", po::value(&raw_options), "algorithm option key=value (repeatable)")(
      "min-frequency", ranged(&train_options.min_frequency, std::uint64_t{0})->default_value(0),
      "minimum count")(
      "character-coverage",
      ranged(&train_options.character_coverage, 0.0, 1.0)->default_value(0.9995, "0.9995"),
      "share of character occurrences the base alphabet covers")(
      "seed", ranged(&train_options.seed, std::uint64_t{0})->default_value(0), "random seed")(
      "special-tokens", po::value(&specials),
      "comma-separated special tokens (default: the algorithm's)")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  pipeline.add_to(desc);
}

void TrainArgs::finish(const po::variables_map& vm) {
  has_specials = vm.count("special-tokens") > 0;
}

std::shared_ptr<Segmenter> prepare_training(const PluginRegistry& registry, TrainArgs& args,
                                            bool counts_given) {
  const std::size_t sources =
      std::size_t{!args.corpus.empty()} + !args.counts_files.empty() + counts_given;
  if (sources != 1) throw UsageError("give exactly one of --corpus and --counts");
  std::shared_ptr<Segmenter> segmenter = registry.create(args.algorithm);
  args.train_options.vocab_size = args.vocab_size;
  args.train_options.threads = args.pipeline.threads;
  if (args.has_specials) args.train_options.special_tokens = split_list(args.specials);
  args.train_options.extra.clear();
  for (const auto& kv : args.raw_options) add_key_value(args.train_options.extra, kv, "option");
  return segmenter;
}

WordCounts training_counts(const TrainArgs& args,
                           const std::function<void(std::uint64_t)>& on_bytes, const NoteFn& note) {
  if (!args.corpus.empty()) return count_corpus_files(args.corpus, args.pipeline, on_bytes);
  WordCounts counts;
  for (const auto& f : args.counts_files)
    counts.merge(WordCounts::load_tsv(std::filesystem::path(f)), f);
  if (counts.empty()) throw Error("the counts files hold no words");
  check_counts_settings(counts, args.counts_files.front(), args.pipeline, note);
  return counts;
}

Tokenizer train_tokenizer(const std::shared_ptr<Segmenter>& segmenter, const TrainArgs& args,
                          WordCounts& counts, TrainingObserver* observer, const NoteFn& note) {
  validate(args.train_options);
  if (const std::string text = describe(leave_out_long_words(counts)); !text.empty()) note(text);
  segmenter->train(counts, args.train_options, observer);
  return Tokenizer(args.pipeline.normalizer(), args.pipeline.pre_tokenizer_options(), segmenter);
}

void check_export_arguments(const std::string& format, bool verify, bool dropout) {
  const std::set<std::string> formats = {"tokenizer.json", "tiktoken", "tiktoken-json",
                                         "sentencepiece", "vocab.txt"};
  if (!formats.contains(format))
    throw UsageError(
        "--format must be tokenizer.json, tiktoken, tiktoken-json, sentencepiece or vocab.txt, "
        "got '" +
        format + "'");
  if (verify && format == "vocab.txt")
    throw UsageError(
        "--verify needs --format tokenizer.json, tiktoken, tiktoken-json or "
        "sentencepiece");
  if (dropout && format != "tokenizer.json")
    throw UsageError("--dropout needs --format tokenizer.json (the other formats hold none)");
  if (dropout && verify)
    throw UsageError("--dropout with --verify: with dropout every encode is a sample");
}

namespace {

// tiktoken and SentencePiece merge any two adjacent parts that make a token; the model
// merges only its trained pairs. Where that can give other ids, say so.
void check_rank_merges(const ModelDescription& description, RankRule rule, bool approximate,
                       const NoteFn& note) {
  if (description.kind != ModelKind::bpe) return;
  const std::string format = rule == RankRule::tiktoken ? "tiktoken" : "sentencepiece";
  const RankMergeConflicts conflicts = rank_merge_conflicts(description, rule);
  if (conflicts.count == 0) return;
  const std::string& example = description.pieces[conflicts.example];
  const std::string message =
      std::to_string(conflicts.count) + " tokens are reached by " + format +
      "'s merge rule (any adjacent parts that make a token) other than by their trained merges, "
      "so " +
      format + " would encode them, and text containing them, differently (the first: \"" +
      utf8::replace_invalid(example) + "\", id " + std::to_string(conflicts.example) + ")";
  if (!approximate)
    throw Error("cannot export to " + format + " exactly: " + message +
                "; --approximate writes it anyway, and --verify TEXT counts the lines that differ");
  note("warning: approximate " + format + " export: " + message);
}

// A rank file carries neither the pattern nor the special tokens: say them, in
// the form tiktoken's constructor takes.
std::string tiktoken_usage(const TiktokenExport& tiktoken, const std::string& output) {
  std::string specials;
  for (const auto& [content, id] : tiktoken.specials)
    specials += (specials.empty() ? "" : ", ") + ("\"" + content + "\": " + std::to_string(id));
  std::string text =
      output + ": tiktoken ranks; use them with the pattern " + tiktoken.pattern_name;
  if (tiktoken.pattern_name == "qwen2")
    text += " (no tiktoken encoding has it: pat_str=" + tiktoken.pattern + ")";
  else
    text += " (tiktoken.get_encoding(\"" + tiktoken.pattern_name + "\")._pat_str)";
  return text + " and special_tokens={" + specials + "}";
}

}  // namespace

ExportedModel export_tokenizer(const Tokenizer& tokenizer, const std::string& format,
                               bool approximate, bool dropout, const std::string& output,
                               const NoteFn& note) {
  ExportedModel exported;
  exported.read_back_format = format;
  if (format == "vocab.txt") {
    std::ostringstream out;
    tokenizer.segmenter().export_model(out, format);
    exported.written = std::move(out).str();
    return exported;
  }
  std::stringstream description_text;
  tokenizer.segmenter().export_model(description_text, kModelDescriptionFormat);
  const ModelDescription description = read_model_description(description_text);
  const NormalizerOptions& normalizer = tokenizer.normalizer().options();
  const PreTokenizerOptions& pre_tokenizer = tokenizer.pre_tokenizer().options();
  if (format == "tokenizer.json") {
    exported.written =
        write_tokenizer_json(description, normalizer, pre_tokenizer, {.dropout = dropout});
    exported.read_back = exported.written;
  } else if (format == "sentencepiece") {
    exported.written = write_sentencepiece(description, normalizer, pre_tokenizer);
    check_rank_merges(description, RankRule::sentencepiece, approximate, note);
    exported.read_back = exported.written;
  } else {
    const TiktokenExport tiktoken = write_tiktoken(description, normalizer, pre_tokenizer);
    check_rank_merges(description, RankRule::tiktoken, approximate, note);
    exported.read_back = tiktoken.encoder_json();
    exported.read_back_format = "tiktoken";
    exported.written = format == "tiktoken" ? tiktoken.ranks : exported.read_back;
    if (format == "tiktoken") note(tiktoken_usage(tiktoken, output));
  }
  return exported;
}

void ExperimentArgs::add_to(po::options_description& desc) {
  desc.add_options()("corpus", po::value(&corpus)->multitoken(),
                     "corpus files, or LANG=FILE for several languages (default: the bundled "
                     "World English Bible)")(
      "parallel", po::value(&parallel_dir),
      "directory of line-aligned files LANG.txt (parallel text: parity)")(
      "languages", po::value(&languages),
      "with --parallel: comma-separated languages to use (default all)")(
      "per-language", po::bool_switch(&options.per_language),
      "train one tokenizer per language (default: jointly)")(
      "reference", po::value(&options.reference_language),
      "parity reference language (default en, else the first)")(
      "algorithms",
      po::value(&algorithms)->notifier([this](const std::string&) { algorithms_default = false; }),
      "comma-separated plugin names (default: every plugin found)")(
      "held-out", ranged(&options.held_out, 0.0, 0.99)->default_value(0.1, "0.1"),
      "fraction of lines held out for evaluation")(
      "d-model", ranged_list(&d_models, std::size_t{1}, std::size_t{1} << 20)->multitoken(),
      "model widths for embedding cost (default 768 4096)")(
      "context",
      ranged(&options.context_tokens, std::uint64_t{1}, std::uint64_t{1} << 40)
          ->default_value(128000),
      "context window in tokens")(
      "jobs",
      ranged(&options.jobs, 1U, kMaxThreadsOption)->default_value(1)->notifier([this](unsigned n) {
        options.jobs = capped_threads(n);
      }),
      "trainings at once (peak memory needs 1)")("option", po::value(&raw_options),
                                                 "algorithm option ALGO:key=value (repeatable)")(
      "seed", ranged(&options.seed, std::uint64_t{0})->default_value(0), "random seed")(
      "min-frequency", ranged(&options.min_frequency, std::uint64_t{0})->default_value(0),
      "minimum count, the same for every algorithm (0 = each algorithm's default)")(
      "character-coverage",
      ranged(&options.character_coverage, 0.0, 1.0)->default_value(0.9995, "0.9995"),
      "share of character occurrences every algorithm's base alphabet covers")(
      "report-dir", po::value(&report_dir),
      "write CSV, JSON, Markdown, SVG plots and report.html here")(
      "counts", po::value(&counts_files)->multitoken(),
      "train from word counts made by 'tokenlab count' (merged if several; counted on one "
      "machine or across MPI ranks); without --eval, every line of --corpus is then "
      "evaluation text")(
      "eval", po::value(&eval)->multitoken(),
      "evaluation text apart from the training text: FILE..., or LANG=FILE for several "
      "languages; every line is evaluated, and --corpus (or --counts) is only trained on")(
      "eval-parallel", po::value(&eval_parallel),
      "evaluation text apart from the training text: a directory of line-aligned LANG.txt "
      "(premiums over the whole files; --languages filters, --reference names the "
      "denominator)")(
      "model", po::value(&models),
      "NAME=FILE: also evaluate a model tokenlab trained before (its .tkl, or the "
      "tokenizer.json tokenlab export wrote of it), as the models trained in the run are (every "
      "column, the same held-out words; it must use the run's normalizer "
      "and pre-tokenizer) (repeatable)")(
      "tokenizer", po::value(&tokenizers),
      "NAME=FILE: also evaluate a real model's tokenizer (tokenizer.json, tiktoken, "
      "SentencePiece .model, or an imported .tkl) on the same held-out text (repeatable)")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)")(
      "unit", po::value(&unit)->default_value("auto"),
      "what one call of a real model's tokenizer sees: auto (each line; trained models: "
      "pre-tokenized words), word (each whitespace word alone), line, or document (each "
      "evaluation file, lines joined by one space, as Petrov et al. 2023)")(
      "words", po::value(&words)->default_value("pretokenizer"),
      "the words of tok/word: pretokenizer (the run's pre-tokenizer) or whitespace "
      "(str.split(), as most papers count)")(
      "squeeze-spaces", po::bool_switch(&options.protocol.squeeze_spaces),
      "collapse runs of spaces and trim each evaluation line first, as "
      "swiss-ai/tokenizer-intrinsic-evals's loader does")(
      "baseline", po::value(&options.baseline),
      "NSL baseline: a row label (algorithm, --model or --tokenizer name) whose tokens every "
      "row's are divided by, per language")(
      "bootstrap",
      ranged(&options.bootstrap_samples, std::size_t{0}, kMaxBootstrapSamples)->default_value(1000),
      "paired bootstrap resamples of the evaluation lines for the intervals of premium, NSL "
      "and premium differences (0: none)");
  pipeline.add_to(desc);
}

void ExperimentArgs::load_tokenizers(const PluginRegistry& registry) {
  for (const auto& spec : models) {
    const auto [name, file] = parse_key_value(spec, "model");
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
  for (const auto& spec : tokenizers) {
    const auto [name, file] = parse_key_value(spec, "tokenizer");
    for (const auto& entry : options.pretrained)
      if (entry.name == name) throw UsageError("--tokenizer " + name + " is given twice");
    for (const auto& entry : options.models)
      if (entry.name == name) throw UsageError("--tokenizer " + name + " is also a --model");
    for (const auto& algorithm : options.algorithms)
      if (algorithm == name)
        throw UsageError("--tokenizer " + name + " has the name of a trained algorithm");
    options.pretrained.push_back({name, file, load_any_model(file, registry).encoder});
  }
}

void ExperimentArgs::resolve(const NoteFn& note) {
  if (!d_models.empty()) options.d_models = d_models;
  try {
    options.protocol.unit = parse_evaluation_unit(unit);
    options.protocol.words = parse_word_definition(words);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  // "none": evaluate only the --tokenizer files. An empty list is a mistake, not
  // "every plugin" (which is what leaving --algorithms out means).
  if (algorithms == "none") {
    options.evaluate_only = true;
  } else {
    options.algorithms = split_list(algorithms);
    if (!algorithms_default && options.algorithms.empty())
      throw UsageError("--algorithms is empty: give plugin names, or none to train nothing");
  }
  options.threads = pipeline.threads;
  options.normalizer = pipeline.normalizer();
  options.pre_tokenizer = pipeline.pre_tokenizer_options();
  options.invalid_utf8 = pipeline.invalid_utf8_policy();
  for (const auto& raw : raw_options) {
    const auto colon = raw.find(':');
    if (colon == std::string::npos || colon == 0)
      throw UsageError("--option expects ALGO:key=value, got '" + raw + "'");
    add_key_value(options.plugin_options[raw.substr(0, colon)], raw.substr(colon + 1), "option");
  }
  if (!parallel_dir.empty() && !corpus.empty())
    throw UsageError("give --corpus or --parallel, not both");
  const bool separate_eval = !eval.empty() || !eval_parallel.empty();
  if (separate_eval) {
    // Train on one text, evaluate on another: the most common study design
    // (train on Wikipedia, measure premiums on NTREX or FLORES).
    if (!eval.empty() && !eval_parallel.empty())
      throw UsageError("give --eval or --eval-parallel, not both");
    if (!parallel_dir.empty())
      throw UsageError(
          "with --eval or --eval-parallel, --parallel has no role: the training text is "
          "--corpus FILE... (or --counts), the evaluation text --eval/--eval-parallel");
    options.evaluate_every_line = true;
    if (options.evaluate_only && (!corpus.empty() || !counts_files.empty()))
      throw UsageError(
          "--algorithms none trains nothing: give only the evaluation text (--eval or "
          "--eval-parallel), not --corpus or --counts");
    if (!options.evaluate_only && corpus.empty() == counts_files.empty())
      throw UsageError(
          "--eval and --eval-parallel need the training text: --corpus FILE... or --counts "
          "COUNTS..., one of them");
    if (!counts_files.empty()) {
      load_training_counts(note);
    } else if (!options.evaluate_only) {
      // LANG=FILE entries are allowed: one tokenizer is trained on all of them.
      std::vector<std::string> files;
      for (const auto& entry : corpus) {
        const auto eq = entry.find('=');
        files.push_back(eq != std::string::npos && entry.find('/') > eq ? entry.substr(eq + 1)
                                                                        : entry);
      }
      auto counts = std::make_shared<WordCounts>(count_corpus_files(files, pipeline, {}));
      if (counts->empty()) throw Error("the training text holds no words");
      options.training_counts = std::move(counts);
      options.training_counts_files = files;
    }
    resolve_corpora(
        {.corpus = eval, .parallel_dir = eval_parallel, .languages = split_list(languages)},
        options);
  } else {
    resolve_corpora(
        {.corpus = corpus, .parallel_dir = parallel_dir, .languages = split_list(languages)},
        options);
  }
  if (options.per_language && options.languages.size() < 2)
    throw UsageError("--per-language needs several languages (LANG=FILE or --parallel)");
  if (!counts_files.empty() && !separate_eval) {
    // The counts are the training text; --corpus or --parallel is only evaluated,
    // so one must be given: the bundled corpus would be another text than the counts'.
    if (corpus.empty() && parallel_dir.empty())
      throw UsageError(
          "--counts needs the text to evaluate the tokenizers on: --corpus FILE... (or "
          "LANG=FILE...), --parallel DIR, or --eval/--eval-parallel");
    load_training_counts(note);
  }
  if (!report_dir.empty()) {
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
  if (const auto path = use_default_corpus(options))
    note(
        "no --corpus given: using the bundled default corpus, the World English Bible "
        "(public domain), " +
        path->string());
  check_inputs_outside_report();
}

void ExperimentArgs::load_training_counts(const NoteFn& note) {
  auto counts = std::make_shared<WordCounts>();
  for (const auto& file : counts_files)
    counts->merge(WordCounts::load_tsv(std::filesystem::path(file)), file);
  if (counts->empty()) throw Error("the counts files hold no words");
  check_counts_settings(*counts, counts_files.front(), pipeline, note);
  options.training_counts = std::move(counts);
  options.training_counts_files = counts_files;
}

void ExperimentArgs::check_inputs_outside_report() const {
  if (report_dir.empty()) return;
  std::error_code ec;
  const auto dir = std::filesystem::weakly_canonical(report_dir, ec);
  if (ec) return;
  std::vector<std::string> inputs = options.corpus_files;
  for (const auto& l : options.languages)
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

void ExperimentArgs::check_plugin_options(const PluginRegistry& registry) const {
  for (const auto& [plugin, values] : options.plugin_options)
    if (!registry.has(plugin))
      throw UsageError("--option " + plugin + ":...: no plugin named '" + plugin +
                       "' (available: " + registry.available_names() + ")");
}

std::vector<std::size_t> parse_vocab_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  for (const auto& item : split_list(text)) {
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), size);
    if (ec != std::errc() || ptr != item.data() + item.size() || size == 0)
      throw UsageError("--vocab-sizes: '" + item + "' is not a positive integer");
    sizes.push_back(size);
  }
  return sizes;
}

}  // namespace tokenlab::cli
