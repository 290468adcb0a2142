// File: workflows.hpp
// The work behind train, count, export, compare and sweep, for every front end:
// the CLI (tools/cli), the Python module (tools/python) and the lab fill a
// request (requests.hpp) their own way and hand it here, so all three check the
// same things and give the same messages.
//
//   TrainRequest request = ...;
//   std::shared_ptr<Segmenter> segmenter = prepare_training(registry, request);
//   WordCounts counts = training_counts(request, on_bytes, note);
//   Tokenizer tokenizer = train_tokenizer(segmenter, request, counts, observer, note);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tokenlab/app/requests.hpp"
#include "tokenlab/app/usage_error.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/retraining.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::app {

/// Receives a note for the user (the CLI prints it on stderr, Python on sys.stderr).
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

/// Checks what train can check before any work (one source of words, the
/// algorithm) and resolves the request (TrainRequest::resolve); returns the
/// untrained segmenter.
std::shared_ptr<Segmenter> prepare_training(const PluginRegistry& registry, TrainRequest& request);

/// The words to train on: the corpus counted, the counts files merged, or the
/// given counts, each checked against the pipeline.
WordCounts training_counts(const TrainRequest& request,
                           const std::function<void(std::uint64_t)>& on_bytes, const NoteFn& note);

/// Trains the segmenter on counts (options validated, words too long for
/// training left out of counts with a note) and returns the tokenizer of the
/// request's pipeline.
Tokenizer train_tokenizer(const std::shared_ptr<Segmenter>& segmenter, const TrainRequest& request,
                          WordCounts& counts, TrainingObserver* observer, const NoteFn& note);

/// train --like FILE: request.like's pipeline trained on request.corpus by its
/// own library's rules (retrain_like). UsageError for what the file decides and
/// the request also sets (--algorithm, --normalization, --seed...), for --counts,
/// and without --corpus; --min-frequency and --option go to the trainer.
RetrainedTokenizer retrain_like_request(TrainRequest& request, const NoteFn& note);

/// What tokenlab export writes for a format, built whole before anything is
/// written (a refusal leaves no file behind).
struct ExportedModel {
  std::string written;
  /// What --verify reads back: the same content, in a form that carries it all.
  std::string read_back;
  std::string read_back_format;
};

/// The model in the request's format; warnings (an approximate export) and the
/// tiktoken usage line (output names the file) go to note.
ExportedModel export_tokenizer(const Tokenizer& tokenizer, const ExportRequest& request,
                               const std::string& output, const NoteFn& note);

/// Creates a report directory (and its parents) and checks, before any long
/// work, that report files can be written there; Error naming it otherwise.
void make_report_dir(const std::string& report_dir);

/// Turns what the request names into request.options, before any training:
/// the protocol, the algorithms and their options (checked against registry),
/// the real tokenizers and earlier models read, the corpora found (the bundled
/// default corpus when none is named, said to note), training counts counted
/// or loaded, and the report directory made and checked. UsageError for
/// options that do not go together; Error for files that are wrong.
void resolve_experiment(ExperimentRequest& request, const PluginRegistry& registry,
                        const NoteFn& note);

}  // namespace tokenlab::app
