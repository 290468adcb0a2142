#include "tokenlab/app/option_tables.hpp"

#include <cstdint>

#include "tokenlab/compare.hpp"

namespace tokenlab::app {

namespace {

constexpr double kMaxCount = static_cast<double>(kMaxVocabSize);

OptionTable<PipelineOptions> make_pipeline_table() {
  OptionTable<PipelineOptions> t;
  using P = PipelineOptions;
  t.add<std::string>(
      {.name = "normalization",
       .help = "nfc | nfkc | none | bert (BERT's text cleaning, as HF's "
               "BertNormalizer)"},
      [](P & p) -> auto& { return p.normalization; });
  t.add<bool>(
      {.name = "lowercase", .help = "lowercase after normalization"},
      [](P & p) -> auto& { return p.lowercase; });
  t.add<std::string>(
      {.name = "pre-tokenizer",
       .help = "unicode (whitespace, punctuation, script and digit boundaries) | whitespace | "
               "icu-words | bert | gpt2 | cl100k (= llama3) | qwen2 | o200k (GPT-style regexes; "
               "pieces keep their spaces)"},
      [](P & p) -> auto& { return p.pre_tokenizer; });
  t.add<std::string>(
      {.name = "marker",
       .help = "boundary marker U+2581 as prefix | suffix | none; space: the "
               "regex pre-tokenizers' own spaces; auto: space for them, else "
               "prefix"},
      [](P & p) -> auto& { return p.marker; });
  t.add<std::string>(
      {.name = "invalid-utf8", .help = "what to do with invalid UTF-8: error | replace | skip"},
      [](P & p) -> auto& { return p.invalid_utf8; });
  t.add<unsigned>(
       {.name = "threads", .help = "worker threads (0 = all cores; at most 4 per core are used)"},
       [](P & p) -> auto& { return p.threads; })
      .range(0, kMaxThreadsOption);
  return t;
}

OptionTable<CountRequest> make_count_table() {
  OptionTable<CountRequest> t;
  t.add<std::vector<std::string>>(
      {.name = "corpus", .help = "corpus files (.gz, .xz, - for stdin)", .multitoken = true},
      [](CountRequest & r) -> auto& { return r.corpus; });
  t.include(
      pipeline_table(), [](CountRequest & r) -> auto& { return r.pipeline; });
  return t;
}

OptionTable<TrainRequest> make_train_table() {
  OptionTable<TrainRequest> t;
  using R = TrainRequest;
  t.add<std::string>(
      {.name = "algorithm",
       .short_name = 'a',
       .help = "plugin name (see 'tokenlab plugins')",
       .required = true},
      [](R & r) -> auto& { return r.algorithm; });
  t.add<std::size_t>(
       {.name = "vocab-size",
        .short_name = 'v',
        .help = "vocabulary size, special tokens included",
        .required = true},
       [](R & r) -> auto& { return r.train.vocab_size; })
      .range(1, kMaxCount);
  t.add<std::vector<std::string>>(
      {.name = "corpus", .help = "corpus files (.gz, .xz, - for stdin)", .multitoken = true},
      [](R & r) -> auto& { return r.corpus; });
  t.add<std::vector<std::string>>(
      {.name = "counts",
       .help = "word counts from 'tokenlab count' (merged if several)",
       .multitoken = true},
      [](R & r) -> auto& { return r.counts_files; });
  t.add<KeyValueMap>(
      {.name = "option", .keyword = "options", .help = "algorithm option key=value (repeatable)"},
      [](R & r) -> auto& { return r.train.extra; });
  t.add<std::size_t>(
       {.name = "min-frequency", .help = "minimum count"},
       [](R & r) -> auto& { return r.train.min_frequency; })
      .range(0);
  t.add<double>(
       {.name = "character-coverage",
        .help = "share of character occurrences the base alphabet covers"},
       [](R & r) -> auto& { return r.train.character_coverage; })
      .range(0.0, 1.0);
  t.add<std::size_t>(
       {.name = "seed", .help = "random seed"}, [](R & r) -> auto& { return r.train.seed; })
      .range(0);
  t.add<OptionalList>(
      {.name = "special-tokens",
       .help = "comma-separated special tokens (default: the algorithm's)",
       .list_syntax = ListSyntax::comma_separated},
      [](R & r) -> auto& { return r.train.special_tokens; });
  t.add<std::vector<std::string>>(
      {.name = "plugin-dir",
       .keyword = "plugin_dirs",
       .help = "extra plugin directory (repeatable)"},
      [](R & r) -> auto& { return r.plugin_dirs; });
  t.include(
      pipeline_table(), [](R & r) -> auto& { return r.pipeline; });
  return t;
}

// What compare and sweep share, for either request (both derive from ExperimentRequest).
template <class Request>
void add_experiment_options(OptionTable<Request>& t) {
  using R = Request;
  t.template add<std::vector<CorpusEntry>>(
      {.name = "corpus",
       .help = "corpus files, or LANG=FILE for several languages (default: the bundled World "
               "English Bible)",
       .multitoken = true},
      [](R & r) -> auto& { return r.corpus; });
  t.template add<std::string>(
      {.name = "parallel",
       .help = "directory of line-aligned files LANG.txt (parallel text: parity)"},
      [](R & r) -> auto& { return r.parallel_dir; });
  t.template add<OptionalList>(
      {.name = "languages",
       .help = "with --parallel: comma-separated languages to use (default all)",
       .list_syntax = ListSyntax::comma_separated},
      [](R & r) -> auto& { return r.languages; });
  t.template add<bool>(
      {.name = "per-language", .help = "train one tokenizer per language (default: jointly)"},
      [](R & r) -> auto& { return r.options.per_language; });
  t.template add<std::string>(
      {.name = "reference", .help = "parity reference language (default en, else the first)"},
      [](R & r) -> auto& { return r.options.reference_language; });
  t.template add<OptionalList>(
      {.name = "algorithms",
       .help = "comma-separated plugin names (default: every plugin found)",
       .list_syntax = ListSyntax::comma_separated},
      [](R & r) -> auto& { return r.algorithms; });
  t.template add<double>(
       {.name = "held-out", .help = "fraction of lines held out for evaluation"},
       [](R & r) -> auto& { return r.options.held_out; })
      .range(0.0, 0.99);
  t.template add<std::vector<std::size_t>>(
       {.name = "d-model",
        .help = "model widths for embedding cost (default 768 4096)",
        .show_default = false,
        .multitoken = true},
       [](R & r) -> auto& { return r.options.d_models; })
      .range(1, 1 << 20);
  t.template add<std::size_t>(
       {.name = "context", .help = "context window in tokens"},
       [](R & r) -> auto& { return r.options.context_tokens; })
      .range(1, static_cast<double>(std::uint64_t{1} << 40));
  t.template add<unsigned>(
       {.name = "jobs", .help = "trainings at once (peak memory needs 1)"},
       [](R & r) -> auto& { return r.options.jobs; })
      .range(1, kMaxThreadsOption);
  t.template add<PluginOptionMap>(
      {.name = "option",
       .keyword = "options",
       .help = "algorithm option ALGO:key=value (repeatable)"},
      [](R & r) -> auto& { return r.options.plugin_options; });
  t.template add<std::size_t>(
       {.name = "seed", .help = "random seed"},
       [](R & r) -> auto& { return r.options.training.seed; })
      .range(0);
  t.template add<std::size_t>(
       {.name = "min-frequency",
        .help = "minimum count, the same for every algorithm (0 = each algorithm's default)"},
       [](R & r) -> auto& { return r.options.training.min_frequency; })
      .range(0);
  t.template add<double>(
       {.name = "character-coverage",
        .help = "share of character occurrences every algorithm's base alphabet covers"},
       [](R & r) -> auto& { return r.options.training.character_coverage; })
      .range(0.0, 1.0);
  t.template add<std::string>(
      {.name = "report-dir", .help = "write CSV, JSON, Markdown, SVG plots and report.html here"},
      [](R & r) -> auto& { return r.report_dir; });
  t.template add<std::vector<std::string>>(
      {.name = "counts",
       .help = "train from word counts made by 'tokenlab count' (merged if several; counted on "
               "one machine or across MPI ranks); without --eval, every line of --corpus is then "
               "evaluation text",
       .multitoken = true},
      [](R & r) -> auto& { return r.counts_files; });
  t.template add<std::vector<CorpusEntry>>(
      {.name = "eval",
       .help = "evaluation text apart from the training text: FILE..., or LANG=FILE for several "
               "languages; every line is evaluated, and --corpus (or --counts) is only trained on",
       .multitoken = true},
      [](R & r) -> auto& { return r.eval; });
  t.template add<std::string>(
      {.name = "eval-parallel",
       .help = "evaluation text apart from the training text: a directory of line-aligned "
               "LANG.txt (premiums over the whole files; --languages filters, --reference names "
               "the denominator)"},
      [](R & r) -> auto& { return r.eval_parallel; });
  t.template add<std::vector<NamedPath>>(
      {.name = "model",
       .keyword = "models",
       .help = "NAME=FILE: also evaluate a model tokenlab trained before (its .tkl, or the "
               "tokenizer.json tokenlab export wrote of it), as the models trained in the run are "
               "(every column, the same held-out words; it must use the run's normalizer and "
               "pre-tokenizer) (repeatable)"},
      [](R & r) -> auto& { return r.models; });
  t.template add<std::vector<NamedPath>>(
      {.name = "tokenizer",
       .keyword = "tokenizers",
       .help = "NAME=FILE: also evaluate a real model's tokenizer (tokenizer.json, tiktoken, "
               "SentencePiece .model, or an imported .tkl) on the same held-out text "
               "(repeatable)"},
      [](R & r) -> auto& { return r.tokenizers; });
  t.template add<std::vector<std::string>>(
      {.name = "plugin-dir",
       .keyword = "plugin_dirs",
       .help = "extra plugin directory (repeatable)"},
      [](R & r) -> auto& { return r.plugin_dirs; });
  t.template add<std::string>(
      {.name = "unit",
       .help = "what one call of a real model's tokenizer sees: auto (each line; trained models: "
               "pre-tokenized words), word (each whitespace word alone), line, or document (each "
               "evaluation file, lines joined by one space, as Petrov et al. 2023)"},
      [](R & r) -> auto& { return r.unit; });
  t.template add<std::string>(
      {.name = "words",
       .help = "the words of tok/word: pretokenizer (the run's pre-tokenizer) or "
               "whitespace (str.split(), as most papers count)"},
      [](R & r) -> auto& { return r.words; });
  t.template add<bool>(
      {.name = "squeeze-spaces",
       .help = "collapse runs of spaces and trim each evaluation line first, as "
               "swiss-ai/tokenizer-intrinsic-evals's loader does"},
      [](R & r) -> auto& { return r.options.protocol.squeeze_spaces; });
  t.template add<std::string>(
      {.name = "baseline",
       .help = "NSL baseline: a row label (algorithm, --model or --tokenizer name) whose tokens "
               "every row's are divided by, per language"},
      [](R & r) -> auto& { return r.options.baseline; });
  t.template add<std::size_t>(
       {.name = "bootstrap",
        .help = "paired bootstrap resamples of the evaluation lines for the "
                "intervals of premium, NSL and premium differences (0: none)"},
       [](R & r) -> auto& { return r.options.bootstrap_samples; })
      .range(0, static_cast<double>(kMaxBootstrapSamples));
  t.include(
      pipeline_table(), [](R & r) -> auto& { return r.pipeline; });
}

OptionTable<CompareRequest> make_compare_table() {
  OptionTable<CompareRequest> t;
  t.add<std::size_t>(
       {.name = "vocab-size", .short_name = 'v', .help = "vocabulary size"},
       [](CompareRequest & r) -> auto& { return r.options.training.vocab_size; })
      .range(1, kMaxCount);
  add_experiment_options(t);
  return t;
}

OptionTable<SweepRequest> make_sweep_table() {
  OptionTable<SweepRequest> t;
  t.add<std::vector<std::size_t>>(
       {.name = "vocab-sizes",
        .help = "comma-separated vocabulary sizes",
        .list_syntax = ListSyntax::comma_separated},
       [](SweepRequest & r) -> auto& { return r.vocab_sizes; })
      .range(1, kMaxCount);
  add_experiment_options(t);
  return t;
}

OptionTable<ExportRequest> make_export_table() {
  OptionTable<ExportRequest> t;
  using R = ExportRequest;
  t.add<std::string>(
      {.name = "format",
       .help = "tokenizer.json (Hugging Face tokenizers), tiktoken (a rank file), "
               "tiktoken-json (npm tiktoken's encoder JSON), sentencepiece (a "
               ".model ModelProto) or vocab.txt (BERT, WordPiece)",
       .required = true},
      [](R & r) -> auto& { return r.format; });
  t.add<bool>(
      {.name = "approximate",
       .help = "write a BPE as tiktoken or sentencepiece even where their merge rule may "
               "encode some text differently; --verify TEXT then counts the lines"},
      [](R & r) -> auto& { return r.approximate; });
  t.add<bool>(
      {.name = "dropout",
       .help = "tokenizer.json: write the BPE model's default dropout, so that HF samples "
               "a segmentation on every encode (for training data)"},
      [](R & r) -> auto& { return r.dropout; });
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
