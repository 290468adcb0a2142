// File: compare_internal.hpp
// What the parts of the comparison share. compare.cpp runs the experiment:
// compare_preparation.cpp reads the corpora once (Prepared), compare_training.cpp
// trains each algorithm, compare_evaluation.cpp measures a tokenizer on the
// held-out text, bootstrap.cpp adds the paired intervals. Internal to
// tokenlab_study: nothing here is installed or exported.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/compare.hpp"
#include "tokenlab/metrics.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::compare_detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- the corpora, read once -------------------------------------------------------

// Held-out words of one language, stored flat: one buffer and end offsets.
struct WordList {
  std::string text;
  std::vector<std::size_t> ends;
  [[nodiscard]] std::size_t size() const { return ends.size(); }
  [[nodiscard]] std::string_view at(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(text).substr(begin, ends[i] - begin);
  }
};

struct PreparedLanguage {
  LanguageSummary summary;
  WordCounts counts;  // training split
  WordList held_out;
  std::vector<std::string> samples;  // a few held-out lines, normalized
  // After each held-out line, the number of held-out words so far (its words' end).
  std::vector<std::size_t> held_out_words_after_line;
  // For pretrained tokenizers, which take raw text: the held-out lines as read.
  WordList raw_held_out;
  std::vector<std::string> raw_samples;
};

struct Prepared {
  std::vector<PreparedLanguage> languages;
  WordCounts joint;
  LongWords long_words;  // left out of training, all languages
  std::vector<CorpusFileInfo> files;
  double count_seconds = 0.0;
};

// ---- the rows ---------------------------------------------------------------------

// One training: an algorithm, on every language or (per_language) on one.
struct Task {
  std::string algorithm;
  std::size_t language = 0;  // index into prepared.languages (per-language training)
};

// Tokens of each held-out line of one row, for the bootstrap; empty when the
// tokens cannot be attributed to lines (a real tokenizer given whole documents).
using LineTokens = std::vector<std::uint32_t>;

// One label's rows (one per language it was evaluated on), each row's tokens
// per line, and the row over all languages pooled.
struct LabelEvaluation {
  std::vector<CompareRow> rows;
  std::vector<LineTokens> line_tokens;  // parallel to rows
  std::optional<CompareRow> pooled;
  std::vector<MorphologyRow> morphology;  // compare_studies.cpp
  std::vector<InferenceRow> inference;
  /// The tokenizer behind the rows, kept for the audit and agreement (null when
  /// neither is asked for, or the training failed).
  std::shared_ptr<const TextEncoder> encoder;
  /// The vocabulary with its rules for --allocation (null when not asked for,
  /// or the training failed), and whether its texts are words (a tokenlab
  /// model) rather than raw lines (a real tokenizer).
  std::shared_ptr<const InferenceSubject> allocation;
  bool allocation_on_words = false;
};

// ---- compare_preparation.cpp ------------------------------------------------------

// Reads every language's corpus once: the training split's word counts, the
// held-out text, and each file's size and checksum.
Prepared prepare(const CompareOptions& options, const ProgressFn& progress);

// ---- compare_evaluation.cpp -------------------------------------------------------

// Pooled rows exist where one tokenizer serves several languages.
bool pools(const CompareOptions& options, const Prepared& prepared);

// The row of one label over every language pooled: the pooled counts' metrics,
// and the run's figures (version, training time and memory, note) from first.
CompareRow pooled_row(const CompareRow& first, const MetricsAccumulator& pooled);

// Evaluates a trained segmenter (trained here, or loaded from its .tkl) on one
// language's held-out words: every column as for every other trained row. Its
// pipeline cuts text into words before the segmenter sees it, so every
// EvaluationUnit gives it these tokens. pooled, if given, receives the counts.
LineTokens evaluate_segmenter(const Segmenter& segmenter, const CompareOptions& options,
                              const PreparedLanguage& lang, CompareRow& row,
                              std::vector<SampleSegmentation>& samples, std::mutex& samples_mutex,
                              MetricsAccumulator* pooled);

// Evaluates a model trained before (--model) on every language, as a trained row.
LabelEvaluation evaluate_model(const CompareOptions& options, const Prepared& prepared,
                               const TrainedModelEntry& entry,
                               std::vector<SampleSegmentation>& samples, std::mutex& samples_mutex);

// Evaluates a tokenizer that is not trained here on every language's raw
// held-out text, given as the protocol's unit says (whole lines by default);
// words, characters and bytes come from the same held-out words as the trained
// rows, so every per-word and per-character figure compares.
LabelEvaluation evaluate_pretrained(const CompareOptions& options, const Prepared& prepared,
                                    const PretrainedEntry& entry,
                                    std::vector<SampleSegmentation>& samples);

// ---- compare_training.cpp ---------------------------------------------------------

// Trains one segmenter and evaluates it on each language it serves.
LabelEvaluation train_and_evaluate(const PluginRegistry& registry, const CompareOptions& options,
                                   const Prepared& prepared, const Task& task, bool measure_memory,
                                   std::vector<SampleSegmentation>& samples,
                                   std::mutex& samples_mutex);

// ---- compare_studies.cpp -----------------------------------------------------------

// The inference-method rows and agreements and the morphology scores of a
// tokenlab segmenter (trained here, or a --model), appended to out; rows of
// methods the model cannot run are left out with their reason in out.inference.
void add_segmenter_studies(const CompareOptions& options, const Prepared& prepared,
                           const std::vector<std::size_t>& served, const std::string& label,
                           std::shared_ptr<Segmenter> segmenter, LabelEvaluation& out,
                           std::vector<SampleSegmentation>& samples, std::mutex& samples_mutex);

// The same for a real tokenizer.
void add_pretrained_studies(const CompareOptions& options, const Prepared& prepared,
                            const PretrainedEntry& entry, LabelEvaluation& out,
                            std::vector<SampleSegmentation>& samples);
// ---- compare_vocabulary.cpp -------------------------------------------------------

// The audit of each label's vocabulary, the agreement matrices and the
// allocations (CompareOptions::audit, agreement, allocation), from the
// evaluations' encoders and subjects.
void add_vocabulary_studies(CompareResult& result, const CompareOptions& options,
                            const Prepared& prepared,
                            const std::vector<LabelEvaluation>& evaluations);

// ---- bootstrap.cpp ----------------------------------------------------------------

// Paired bootstrap over evaluation lines: the intervals of each row's premium
// against reference, its NSL against baseline and the difference of the two
// premiums. line_tokens is parallel to result.rows.
void add_bootstrap_intervals(CompareResult& result, const std::vector<LineTokens>& line_tokens,
                             const std::string& reference, const std::string& baseline);

}  // namespace tokenlab::compare_detail
