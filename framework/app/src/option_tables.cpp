#include "tokenlab/app/option_tables.hpp"

#include <cstdint>

#include "tokenlab/compare.hpp"

namespace tokenlab::app {

namespace {

constexpr double kMaxCount = static_cast<double>(kMaxVocabSize);

OptionTable<PipelineOptions> make_pipeline_table() {
  OptionTable<PipelineOptions> t;
  using P = PipelineOptions;
  t.add({.name = "normalization",
         .help = "nfc | nfkc | none | bert (BERT's text cleaning, as HF's "
                 "BertNormalizer)"},
        &P::normalization);
  t.add({.name = "lowercase", .help = "lowercase after normalization"}, &P::lowercase);
  t.add({.name = "pre-tokenizer",
         .help = "unicode (whitespace, punctuation, script and digit boundaries) | whitespace | "
                 "icu-words | bert | gpt2 | cl100k (= llama3) | qwen2 | o200k (GPT-style regexes; "
                 "pieces keep their spaces)"},
        &P::pre_tokenizer);
  t.add({.name = "marker",
         .help = "boundary marker U+2581 as prefix | suffix | none; space: the "
                 "regex pre-tokenizers' own spaces; auto: space for them, else "
                 "prefix"},
        &P::marker);
  t.add({.name = "invalid-utf8", .help = "what to do with invalid UTF-8: error | replace | skip"},
        &P::invalid_utf8);
  t.add({.name = "threads", .help = "worker threads (0 = all cores; at most 4 per core are used)"},
        &P::threads)
      .range(0, kMaxThreadsOption);
  return t;
}

OptionTable<CountRequest> make_count_table() {
  OptionTable<CountRequest> t;
  using R = CountRequest;
  t.add({.name = "corpus", .help = "corpus files (.gz, .xz, - for stdin)", .multitoken = true},
        &R::corpus);
  t.include(pipeline_table(), &R::pipeline);
  return t;
}

OptionTable<TrainRequest> make_train_table() {
  OptionTable<TrainRequest> t;
  using R = TrainRequest;
  t.add({.name = "algorithm",
         .short_name = 'a',
         .help = "plugin name (see 'tokenlab plugins'); required unless --like"},
        &R::algorithm);
  t.add({.name = "like",
         .help = "a tokenizer.json or SentencePiece .model: keep its pipeline, train as its own "
                 "library's trainer does, write the same kind of file"},
        &R::like);
  t.add({.name = "vocab-size",
         .short_name = 'v',
         .help = "vocabulary size, special tokens included",
         .required = true},
        &R::train, &TrainOptions::vocab_size)
      .range(1, kMaxCount);
  t.add({.name = "corpus", .help = "corpus files (.gz, .xz, - for stdin)", .multitoken = true},
        &R::corpus);
  t.add({.name = "counts",
         .help = "word counts from 'tokenlab count' (merged if several)",
         .multitoken = true},
        &R::counts_files);
  t.add({.name = "option", .keyword = "options", .help = "algorithm option key=value (repeatable)"},
        &R::train, &TrainOptions::extra);
  t.add({.name = "min-frequency", .help = "minimum count"}, &R::train, &TrainOptions::min_frequency)
      .range(0);
  t.add({.name = "character-coverage",
         .help = "share of character occurrences the base alphabet covers"},
        &R::train, &TrainOptions::character_coverage)
      .range(0.0, 1.0);
  t.add({.name = "seed", .help = "random seed"}, &R::train, &TrainOptions::seed).range(0);
  t.add({.name = "special-tokens",
         .help = "comma-separated special tokens (default: the algorithm's)",
         .list_syntax = ListSyntax::comma_separated},
        &R::train, &TrainOptions::special_tokens);
  t.add({.name = "plugin-dir",
         .keyword = "plugin_dirs",
         .help = "extra plugin directory (repeatable)"},
        &R::plugin_dirs);
  t.include(pipeline_table(), &R::pipeline);
  return t;
}

// compare's and sweep's corpora, algorithms and cost figures, for either
// request (both derive from ExperimentRequest).
template <class Request>
void add_experiment_corpus_options(OptionTable<Request>& t) {
  using R = Request;
  t.add({.name = "corpus",
         .help = "corpus files, or LANG=FILE for several languages (default: the bundled World "
                 "English Bible)",
         .multitoken = true},
        &R::corpus);
  t.add({.name = "parallel",
         .help = "directory of line-aligned files LANG.txt (parallel text: parity)"},
        &R::parallel_dir);
  t.add({.name = "languages",
         .help = "with --parallel: comma-separated languages to use (default all)",
         .list_syntax = ListSyntax::comma_separated},
        &R::languages);
  t.add({.name = "per-language", .help = "train one tokenizer per language (default: jointly)"},
        &R::options, &CompareOptions::per_language);
  t.add({.name = "reference", .help = "parity reference language (default en, else the first)"},
        &R::options, &CompareOptions::reference_language);
  t.add({.name = "algorithms",
         .help = "comma-separated plugin names (default: every plugin found)",
         .list_syntax = ListSyntax::comma_separated},
        &R::algorithms);
  t.add({.name = "held-out", .help = "fraction of lines held out for evaluation"}, &R::options,
        &CompareOptions::held_out)
      .range(0.0, 0.99);
  t.add({.name = "d-model",
         .help = "model widths for embedding cost (default 768 4096)",
         .show_default = false,
         .multitoken = true},
        &R::options, &CompareOptions::d_models)
      .range(1, 1 << 20);
  t.add({.name = "context", .help = "context window in tokens"}, &R::options,
        &CompareOptions::context_tokens)
      .range(1, static_cast<double>(std::uint64_t{1} << 40));
  t.add({.name = "jobs", .help = "trainings at once (peak memory needs 1)"}, &R::options,
        &CompareOptions::jobs)
      .range(1, kMaxThreadsOption);
  t.add({.name = "option",
         .keyword = "options",
         .help = "algorithm option ALGO:key=value (repeatable)"},
        &R::options, &CompareOptions::plugin_options);
}

// compare's and sweep's training, report, evaluation-text and protocol options.
template <class Request>
void add_experiment_training_and_protocol_options(OptionTable<Request>& t) {
  using R = Request;
  t.add({.name = "seed", .help = "random seed"}, &R::options, &CompareOptions::training,
        &TrainOptions::seed)
      .range(0);
  t.add({.name = "min-frequency",
         .help = "minimum count, the same for every algorithm (0 = each algorithm's default)"},
        &R::options, &CompareOptions::training, &TrainOptions::min_frequency)
      .range(0);
  t.add({.name = "character-coverage",
         .help = "share of character occurrences every algorithm's base alphabet covers"},
        &R::options, &CompareOptions::training, &TrainOptions::character_coverage)
      .range(0.0, 1.0);
  t.add({.name = "report-dir", .help = "write CSV, JSON, Markdown, SVG plots and report.html here"},
        &R::report_dir);
  t.add({.name = "counts",
         .help = "train from word counts made by 'tokenlab count' (merged if several; counted on "
                 "one machine or across MPI ranks); without --eval, every line of --corpus is then "
                 "evaluation text",
         .multitoken = true},
        &R::counts_files);
  t.add(
      {.name = "eval",
       .help = "evaluation text apart from the training text: FILE..., or LANG=FILE for several "
               "languages; every line is evaluated, and --corpus (or --counts) is only trained on",
       .multitoken = true},
      &R::eval);
  t.add({.name = "eval-parallel",
         .help = "evaluation text apart from the training text: a directory of line-aligned "
                 "LANG.txt (premiums over the whole files; --languages filters, --reference names "
                 "the denominator)"},
        &R::eval_parallel);
  t.add(
      {.name = "model",
       .keyword = "models",
       .help = "NAME=FILE: also evaluate a model tokenlab trained before (its .tkl, or the "
               "tokenizer.json tokenlab export wrote of it), as the models trained in the run are "
               "(every column, the same held-out words; it must use the run's normalizer and "
               "pre-tokenizer) (repeatable)"},
      &R::models);
  t.add({.name = "tokenizer",
         .keyword = "tokenizers",
         .help = "NAME=FILE: also evaluate a real model's tokenizer (tokenizer.json, tiktoken, "
                 "SentencePiece .model, or an imported .tkl) on the same held-out text "
                 "(repeatable)"},
        &R::tokenizers);
  t.add({.name = "plugin-dir",
         .keyword = "plugin_dirs",
         .help = "extra plugin directory (repeatable)"},
        &R::plugin_dirs);
  t.add({.name = "unit",
         .help = "what one call of a real model's tokenizer sees: auto (each line; trained models: "
                 "pre-tokenized words), word (each whitespace word alone), line, or document (each "
                 "evaluation file, lines joined by one space, as Petrov et al. 2023)"},
        &R::unit);
  t.add({.name = "words",
         .help = "the words of tok/word: pretokenizer (the run's pre-tokenizer) or "
                 "whitespace (str.split(), as most papers count)"},
        &R::words);
  t.add({.name = "squeeze-spaces",
         .help = "collapse runs of spaces and trim each evaluation line first, as "
                 "swiss-ai/tokenizer-intrinsic-evals's loader does"},
        &R::options, &CompareOptions::protocol, &EvaluationProtocol::squeeze_spaces);
  t.add({.name = "baseline",
         .help = "NSL baseline: a row label (algorithm, --model or --tokenizer name) whose tokens "
                 "every row's are divided by, per language"},
        &R::options, &CompareOptions::baseline);
  t.add({.name = "bootstrap",
         .help = "paired bootstrap resamples of the evaluation lines for the "
                 "intervals of premium, NSL and premium differences (0: none)"},
        &R::options, &CompareOptions::bootstrap_samples)
      .range(0, static_cast<double>(kMaxBootstrapSamples));
  t.include(pipeline_table(), &R::pipeline);
}

// compare's studies beyond compression (docs/metrics.md#morphological-alignment,
// #inference-methods).
void add_study_options(OptionTable<CompareRequest>& t) {
  using R = CompareRequest;
  t.add({.name = "morph-gold",
         .help = "[LABEL=]FILE: gold morpheme segmentations (word<TAB>morph morph ..., or "
                 "MorphScore's CSV with full_word, pt1, rest); every row is scored on them "
                 "(repeatable)",
         .multitoken = true},
        &R::morph_gold);
  t.add({.name = "morph-space",
         .help = "encode each gold word after a space, as inside running text (default: the "
                 "word alone, as MorphScore does)"},
        &R::options, &CompareOptions::morphology, &MorphologyOptions::leading_space);
  t.add({.name = "inference",
         .help = "comma-separated inference methods to run on every vocabulary beside its own: "
                 "longest-prefix, longest-suffix, longest-token, fewest-tokens, merges, "
                 "likelihood, or all; one row per tokenizer and method"},
        &R::inference);
}

// compare's vocabulary studies (docs/metrics.md#vocabulary-audit).
void add_vocabulary_study_options(OptionTable<CompareRequest>& t) {
  using R = CompareRequest;
  t.add({.name = "audit",
         .help = "audit every row's vocabulary: single bytes, partial UTF-8, unreachable, "
                 "special and added entries, entries the evaluation text never uses"},
        &R::options, &CompareOptions::audit);
  t.add({.name = "audit-words",
         .help = "with --audit: a word list (one word per line) for the share of words kept as "
                 "one token (STRR), alone and after a space"},
        &R::options, &CompareOptions::audit_words);
  t.add({.name = "agreement",
         .help = "every pair of rows: vocabulary overlap (Jaccard), words cut alike and "
                 "boundary F1 on the evaluation text's words"},
        &R::options, &CompareOptions::agreement);
  t.add({.name = "allocation",
         .help = "what each language gets from every row's vocabulary: per entry its uses and "
                 "the tokens it saves each language, per language the share of the vocabulary "
                 "serving it, and the pruning curve (allocation-*.csv)"},
        &R::options, &CompareOptions::allocation);
  t.add({.name = "allocation-sizes",
         .help = "with --allocation: comma-separated vocabulary sizes for the pruning curve "
                 "(default: every power of two below the vocabulary's size)",
         .list_syntax = ListSyntax::comma_separated},
        &R::options, &CompareOptions::allocation_sizes)
      .range(1, kMaxCount);
  t.add({.name = "allocation-held-out",
         .help = "with --allocation: choose the pruning order on each language's even-numbered "
                 "lines and draw the curve on its odd-numbered ones, so that the curve does not "
                 "reward entries only for the text they were chosen on"},
        &R::options, &CompareOptions::allocation_held_out);
}

OptionTable<CompareRequest> make_compare_table() {
  OptionTable<CompareRequest> t;
  using R = CompareRequest;
  t.add({.name = "vocab-size", .short_name = 'v', .help = "vocabulary size"}, &R::options,
        &CompareOptions::training, &TrainOptions::vocab_size)
      .range(1, kMaxCount);
  add_experiment_corpus_options(t);
  add_experiment_training_and_protocol_options(t);
  add_study_options(t);
  add_vocabulary_study_options(t);
  return t;
}

OptionTable<SweepRequest> make_sweep_table() {
  OptionTable<SweepRequest> t;
  using R = SweepRequest;
  t.add({.name = "vocab-sizes",
         .help = "comma-separated vocabulary sizes",
         .list_syntax = ListSyntax::comma_separated},
        &R::vocab_sizes)
      .range(1, kMaxCount);
  add_experiment_corpus_options(t);
  add_experiment_training_and_protocol_options(t);
  return t;
}

OptionTable<ExportRequest> make_export_table() {
  OptionTable<ExportRequest> t;
  using R = ExportRequest;
  t.add({.name = "format",
         .help = "tokenizer.json (Hugging Face tokenizers), tiktoken (a rank file), "
                 "tiktoken-json (npm tiktoken's encoder JSON), sentencepiece (a "
                 ".model ModelProto) or vocab.txt (BERT, WordPiece)",
         .required = true},
        &R::format);
  t.add({.name = "approximate",
         .help = "write a BPE as tiktoken or sentencepiece even where their merge rule may "
                 "encode some text differently; --verify TEXT then counts the lines"},
        &R::approximate);
  t.add({.name = "dropout",
         .help = "tokenizer.json: write the BPE model's default dropout, so that HF samples "
                 "a segmentation on every encode (for training data)"},
        &R::dropout);
  return t;
}

template <class Request>
void collect_keywords(const OptionTable<Request>& table, std::map<std::string, std::string>& out) {
  for (const auto& spec : table.specs()) out.emplace(spec.info.name, spec.info.python_keyword());
}

}  // namespace

std::string OptionInfo::python_keyword() const {
  if (!keyword.empty()) return keyword;
  std::string spelled = name;
  for (char& c : spelled)
    if (c == '-') c = '_';
  return spelled;
}

const OptionTable<PipelineOptions>& pipeline_table() {
  static const auto table = make_pipeline_table();
  return table;
}
const OptionTable<CountRequest>& count_table() {
  static const auto table = make_count_table();
  return table;
}
const OptionTable<TrainRequest>& train_table() {
  static const auto table = make_train_table();
  return table;
}
const OptionTable<CompareRequest>& compare_table() {
  static const auto table = make_compare_table();
  return table;
}
const OptionTable<SweepRequest>& sweep_table() {
  static const auto table = make_sweep_table();
  return table;
}
const OptionTable<ExportRequest>& export_table() {
  static const auto table = make_export_table();
  return table;
}

std::map<std::string, std::string> python_keywords() {
  std::map<std::string, std::string> keywords;
  collect_keywords(train_table(), keywords);
  collect_keywords(compare_table(), keywords);
  collect_keywords(sweep_table(), keywords);
  collect_keywords(count_table(), keywords);
  collect_keywords(export_table(), keywords);
  return keywords;
}

}  // namespace tokenlab::app
