// File: requests.hpp
// What each front end (the CLI, the Python module, the lab) asks the
// application to do, as typed requests. Each request's options are declared
// once, in its table (option_tables.hpp); member initializers are the
// defaults every front end shows and uses.
//
//   TrainRequest request;                 // filled from argv, keyword arguments or JSON
//   request.algorithm = "bpe";
//   request.train.vocab_size = 8000;
//   request.corpus = {"bible.txt"};
//   Tokenizer tokenizer = run_training(registry, request, observer, note);  // workflows.hpp
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tokenlab/app/option_table.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::app {

/// The largest vocabulary size accepted (2^30; token ids are 32-bit).
inline constexpr std::size_t kMaxVocabSize = std::size_t{1} << 30;

/// The most worker threads an option accepts; more are capped (capped_threads).
inline constexpr unsigned kMaxThreadsOption = 4096;

/// The text pipeline: every request that reads text embeds one.
struct PipelineOptions {
  std::string normalization = "nfc";
  bool lowercase = false;
  std::string pre_tokenizer = "unicode";
  std::string marker = "auto";
  std::string invalid_utf8 = "error";
  /// Worker threads; 0 = all cores. Capped at 4 per core by resolve().
  unsigned threads = 0;

  /// Caps threads (capped_threads); call once after filling.
  void resolve();
  [[nodiscard]] NormalizerOptions normalizer() const;
  [[nodiscard]] PreTokenizerOptions pre_tokenizer_options() const;
  [[nodiscard]] InvalidUtf8Policy invalid_utf8_policy() const;
  /// What a counts file records of these settings: "normalizer=nfc
  /// pre-tokenizer=unicode/prefix" (WordCounts::settings).
  [[nodiscard]] std::string counts_settings() const;
};

/// tokenlab count, tokenlab.count(): the words of corpus files.
struct CountRequest {
  std::vector<std::string> corpus;
  PipelineOptions pipeline;
};

/// tokenlab train, tokenlab.train(): one segmenter trained on a corpus or counts.
struct TrainRequest {
  std::string algorithm;
  /// A real tokenizer's file whose pipeline to keep (train --like): trained by
  /// its own library's rules and written as the same kind of file
  /// (pretrained/retraining.hpp); algorithm and the pipeline options then stay unset.
  std::string like;
  /// Corpus files to count; exactly one of corpus, counts_files and given_counts.
  std::vector<std::string> corpus;
  /// Counts files from tokenlab count, merged.
  std::vector<std::string> counts_files;
  /// Counts the caller already holds (a Python WordCounts).
  std::shared_ptr<const WordCounts> given_counts;
  /// What the trainer is told. vocab_size, min_frequency, character_coverage,
  /// seed, special_tokens and extra (the algorithm's options) are filled by the
  /// front end; threads comes from the pipeline (resolve()).
  TrainOptions train;
  std::vector<std::string> plugin_dirs;
  PipelineOptions pipeline;

  /// Checks the sources (UsageError), caps threads and copies them into train.
  void resolve();
};

/// tokenlab trace and the lab's "BPE by hand": training as a textbook shows it,
/// step by step. One declaration of what that means, so that the page and the
/// command agree: no special tokens unless given (the layout rule may still add
/// the unknown token), every character kept (coverage 1), and with steps > 0 the
/// size limit lifted (vocab_size 0), so that steps counts steps beyond the base alphabet
/// (WordPiece starts with two forms of each character) and no byte pieces are
/// added.
struct TraceRequest {
  std::size_t steps = 0;       // --merges; 0: train up to vocab_size
  std::size_t vocab_size = 0;  // 0: no limit (with steps)
  std::uint64_t min_frequency = 0;
  std::vector<std::string> special_tokens{};
  std::map<std::string, std::string> extra{};  // the algorithm's options
  unsigned threads = 0;

  /// The trainer's options, validated (Error on bad values).
  [[nodiscard]] TrainOptions train_options() const;
};

/// What compare and sweep share. options holds the study's settings; the
/// other members are what a user names and resolve_experiment() turns into
/// options (corpora found, counts loaded, tokenizers read).
struct ExperimentRequest {
  CompareOptions options;
  /// FILE or LANG=FILE; none: the bundled default corpus.
  std::vector<CorpusEntry> corpus;
  std::string parallel_dir;
  OptionalList languages;
  /// nullopt: every plugin found; {"none"}: train nothing.
  OptionalList algorithms;
  std::string report_dir;
  std::vector<std::string> plugin_dirs;
  std::vector<NamedPath> tokenizers;
  std::vector<NamedPath> models;
  std::vector<std::string> counts_files;
  /// Counts the caller already holds (a Python WordCounts), as counts_files.
  std::shared_ptr<const WordCounts> given_counts;
  std::vector<CorpusEntry> eval;
  std::string eval_parallel;
  std::string unit = "auto";
  std::string words = "pretokenizer";
  PipelineOptions pipeline;
  /// Studies beyond compression (compare only): gold segmentations [LABEL=]FILE,
  /// and inference methods "longest-prefix,merges,..." (resolve_experiment reads them).
  std::vector<std::string> morph_gold;
  std::string inference;
};

/// tokenlab compare, tokenlab.compare().
struct CompareRequest : ExperimentRequest {};

/// tokenlab sweep, tokenlab.sweep(): compare at each vocabulary size.
struct SweepRequest : ExperimentRequest {
  std::vector<std::size_t> vocab_sizes = {500, 1000, 2000, 4000, 8000, 16000, 32000};
};

/// tokenlab export, Tokenizer.export(): the format and how strictly.
struct ExportRequest {
  std::string format = "tokenizer.json";
  bool approximate = false;
  bool dropout = false;

  /// UsageError for a format, verify and dropout that do not go together.
  void check(bool verify) const;
};

/// The thread count to use for --threads N: N, but at most 4 x the cores (more
/// only adds memory and contention; thousands could not even be started). Prints
/// a note on stderr when it caps. 0 stays 0 (all cores).
unsigned capped_threads(unsigned requested);

/// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> split_list(const std::string& text);

}  // namespace tokenlab::app
