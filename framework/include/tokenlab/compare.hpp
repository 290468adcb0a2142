// File: compare.hpp
// The comparison experiment: one shared counting pass, every segmenter trained on
// the same training split and evaluated on the same held-out split.
//
//   CompareOptions opts{.corpus_files = {"bible.txt"}, .vocab_size = 8000};
//   CompareResult r = run_compare(registry, opts, &progress);
//   write_terminal(std::cout, comparison_table(r));
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/corpus.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/metrics.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/report.hpp"

namespace tokenlab {

class PluginRegistry;

struct CompareOptions {
  std::vector<std::string> corpus_files;
  std::vector<std::string> algorithms;  // empty = every plugin in the registry
  std::size_t vocab_size = 8000;
  double held_out = 0.1;
  unsigned threads = 0;
  std::vector<std::size_t> d_models = {768, 4096};
  NormalizerOptions normalizer;
  PreTokenizerOptions pre_tokenizer;
  InvalidUtf8Policy invalid_utf8 = InvalidUtf8Policy::error;
  std::uint64_t seed = 0;
  /// Per-algorithm extra options ("bpe" -> {"units": "bytes"}).
  std::map<std::string, std::map<std::string, std::string>> plugin_options;
};

struct CompareRow {
  std::string algorithm;
  std::string plugin_version;
  std::string error;  // non-empty when training or evaluation failed
  SegmentationMetrics metrics;
  double train_seconds = 0.0;
  double encode_seconds = 0.0;
  double encode_mb_per_second = 0.0;
  std::string note;  // e.g. "vocabulary stopped at 1234"
};

struct CorpusSummary {
  std::vector<std::string> files;
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t training_lines = 0;
  std::uint64_t held_out_lines = 0;
  std::uint64_t distinct_words = 0;
  std::uint64_t training_words = 0;
  double count_seconds = 0.0;
};

struct CompareResult {
  CompareOptions options;
  CorpusSummary corpus;
  std::vector<CompareRow> rows;
};

/// Progress messages for a terminal (stage, fraction in [0,1]).
using ProgressFn = std::function<void(const std::string& stage, double fraction)>;

/// Runs the experiment. Throws Error for corpus problems; a failing plugin is
/// reported in its row and does not stop the others.
TOKENLAB_API CompareResult run_compare(const PluginRegistry& registry,
                                       const CompareOptions& options,
                                       const ProgressFn& progress = {});

/// The standard comparison table (one row per segmenter) with run metadata.
TOKENLAB_API ReportTable comparison_table(const CompareResult& result);

}  // namespace tokenlab
