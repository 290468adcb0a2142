// File: workflows.hpp
// The work behind tokenlab train, export, compare and sweep, shared by the CLI
// and the Python module (tools/python): both parse the same option descriptions
// (the module turns keyword arguments into the same option list), so both accept
// the same arguments and give the same messages.
//
//   TrainArgs train;
//   po::options_description desc("options");
//   train.add_to(desc);
//   ... parse ...
//   std::shared_ptr<Segmenter> segmenter = prepare_training(registry, train);
//   WordCounts counts = training_counts(train, on_bytes, note);
//   Tokenizer tokenizer = train_tokenizer(segmenter, train, counts, observer, note);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli {

/// Receives a note for the user (the CLI prints it on stderr).
using NoteFn = std::function<void(const std::string&)>;

/// Prints a note on stderr, as the CLI does.
void note_to_stderr(const std::string& note);

/// Counts the words of corpus files with the pipeline's settings, which the
/// counts record. on_bytes (optional) gets the bytes read so far.
WordCounts count_corpus_files(const std::vector<std::string>& files,
                              const PipelineOptions& pipeline,
                              const std::function<void(std::uint64_t)>& on_bytes = {});

/// Counts made with another normalizer or pre-tokenizer than pipeline's are an
/// Error naming both (source names the counts); counts that record no settings
/// get a note.
void check_counts_settings(const WordCounts& counts, const std::string& source,
                           const PipelineOptions& pipeline, const NoteFn& note);

/// tokenlab train's options, but -o (the CLI adds it; the Python module returns
/// the tokenizer).
struct TrainArgs {
  std::string algorithm;
  std::size_t vocab_size = 0;
  std::vector<std::string> corpus;
  std::vector<std::string> counts_files;
  std::vector<std::string> raw_options;
  std::vector<std::string> plugin_dirs;
  std::string specials;
  bool has_specials = false;  // --special-tokens was given (set by finish)
  TrainOptions train_options;
  PipelineOptions pipeline;

  void add_to(po::options_description& desc);
  /// After parsing: what the variables map says beyond the values.
  void finish(const po::variables_map& vm);
};

/// Checks what train can check before any work (one of --corpus and --counts,
/// the algorithm, the --option syntax) and fills args.train_options; returns
/// the untrained segmenter. counts_given: counts come from elsewhere (Python).
std::shared_ptr<Segmenter> prepare_training(const PluginRegistry& registry, TrainArgs& args,
                                            bool counts_given = false);

/// The corpus counted, or the counts files merged and checked against the
/// pipeline.
WordCounts training_counts(const TrainArgs& args,
                           const std::function<void(std::uint64_t)>& on_bytes, const NoteFn& note);

/// Trains the segmenter on counts (options validated, words too long for
/// training left out of counts with a note) and returns the tokenizer of args' pipeline.
Tokenizer train_tokenizer(const std::shared_ptr<Segmenter>& segmenter, const TrainArgs& args,
                          WordCounts& counts, TrainingObserver* observer, const NoteFn& note);

/// What tokenlab export writes for a format, built whole before anything is
/// written (a refusal leaves no file behind).
struct ExportedModel {
  std::string written;
  std::string
      read_back;  // what --verify reads back: the same content, in a form that carries it all
  std::string read_back_format;
};

/// Throws UsageError for a --format, --verify and --dropout that do not go together.
void check_export_arguments(const std::string& format, bool verify, bool dropout);

/// The model in format; warnings (an approximate export) and the tiktoken usage
/// line (output names the file) go to note.
ExportedModel export_tokenizer(const Tokenizer& tokenizer, const std::string& format,
                               bool approximate, bool dropout, const std::string& output,
                               const NoteFn& note);

/// Options shared by compare and sweep.
struct ExperimentArgs {
  CompareOptions options;
  std::vector<std::string> corpus;
  std::string parallel_dir;
  std::string languages;
  std::string algorithms;
  std::string report_dir;
  std::vector<std::string> raw_options;
  std::vector<std::string> plugin_dirs;
  std::vector<std::size_t> d_models;
  std::vector<std::string> tokenizers;
  /// --model NAME=FILE.tkl: models tokenlab trained before, evaluated as trained rows.
  std::vector<std::string> models;
  /// --counts: train from these (merged) instead of counting the corpus.
  std::vector<std::string> counts_files;
  /// --eval FILE|LANG=FILE... and --eval-parallel DIR: evaluation text apart from
  /// the training text (--corpus or --counts), every line of it evaluated.
  std::vector<std::string> eval;
  std::string eval_parallel;
  /// --unit and --words, parsed into options.protocol by resolve().
  std::string unit = "auto";
  std::string words = "pretokenizer";
  PipelineOptions pipeline;

  void add_to(po::options_description& desc);
  /// Reads each --tokenizer NAME=FILE, so a bad file fails before any counting.
  void load_tokenizers(const PluginRegistry& registry);
  /// Turns the parsed strings into options; finds the default corpus if needed
  /// (saying so to note).
  void resolve(const NoteFn& note = note_to_stderr);
  /// --counts into options.training_counts (settings checked against the pipeline).
  void load_training_counts(const NoteFn& note);
  /// Whether --algorithms was left out (every plugin), as opposed to given empty.
  bool algorithms_default = true;
  /// The report files (CSV, JSON, Markdown, HTML, SVG) must not replace an input.
  void check_inputs_outside_report() const;
  /// Every ALGO in --option ALGO:key=value must name a plugin that was found.
  void check_plugin_options(const PluginRegistry& registry) const;
};

/// sweep's --vocab-sizes "500,1000": throws UsageError for an item that is not
/// a positive integer.
std::vector<std::size_t> parse_vocab_sizes(const std::string& text);

}  // namespace tokenlab::cli
