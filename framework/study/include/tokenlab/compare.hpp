// File: compare.hpp
// The comparison experiment: one shared counting pass, every segmenter trained on
// the same training split and evaluated on the same held-out split, in one or
// several languages; and the vocabulary-size sweep built on it.
//
//   CompareOptions opts;
//   opts.corpus_files = {"bible.txt"};
//   opts.vocab_size = 8000;
//   CompareResult r = run_compare(registry, opts, progress);
//   write_terminal(std::cout, comparison_table(r));  // compare_tables.hpp
//
// Multilingual: opts.languages = {{"en", {"en.txt"}}, {"hi", {"hi.txt"}}}; with
// opts.aligned (parallel text, line i of every file is the same segment) the split
// is by line number, so every language holds out the same segments, and each row
// gets its parity against opts.reference_language. Training is joint (one
// tokenizer over all languages) unless opts.per_language.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/corpus.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/inference_encoders.hpp"
#include "tokenlab/metrics.hpp"
#include "tokenlab/morphology.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/tokenizer_agreement.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary_allocation.hpp"
#include "tokenlab/vocabulary_audit.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

class PluginRegistry;

/// A labelled corpus: one language (or any named part) of a multilingual run.
struct LanguageCorpus {
  std::string language;
  std::vector<std::string> files;
};

/// A tokenizer that compare evaluates beside the trained ones but does not
/// train: a real model's, read by tokenlab_pretrained (or any TextEncoder).
struct PretrainedEntry {
  std::string name;    // its row label, e.g. "gpt4o"
  std::string source;  // the file it was read from, for the provenance record
  std::shared_ptr<const TextEncoder> encoder;
  /// Its vocabulary for --inference (the front end builds it; null: no methods).
  std::shared_ptr<const InferenceSubject> inference;
  /// Its vocabulary with the model's rules (merges, ranks, scores) for
  /// --allocation (the front end builds it; null: no allocation for this row).
  std::shared_ptr<const InferenceSubject> allocation{};
};

/// A model tokenlab trained before (its .tkl, or its exported tokenizer.json read
/// back), evaluated as the models trained in
/// the run are: on the same held-out words, with every column (split% among
/// them), labelled as trained. Its normalizer and pre-tokenizer must be the run's,
/// since the held-out words are cut by the run's.
struct TrainedModelEntry {
  std::string name;    // its row label
  std::string source;  // the file, for the provenance record
  std::shared_ptr<const Tokenizer> tokenizer;
};

struct CompareOptions {
  /// A single unlabelled corpus. Ignored when languages is not empty.
  std::vector<std::string> corpus_files;
  /// Several labelled corpora (multilingual runs).
  std::vector<LanguageCorpus> languages;
  /// The languages are line-aligned parallel text: split by line number, report parity.
  bool aligned = false;
  /// Train one tokenizer per language instead of one over all of them.
  bool per_language = false;
  /// Parity reference; empty = "en" if present, else the first language.
  std::string reference_language;
  std::vector<std::string> algorithms;  // empty = every plugin in the registry
  /// What every algorithm is trained with: vocab_size, seed, min_frequency and
  /// character_coverage the same for all (so that they start from the same
  /// alphabet), threads also used for counting and evaluation. special_tokens
  /// and extra stay empty: each plugin's own are in plugin_options.
  TrainOptions training;
  double held_out = 0.1;
  /// Trainings run at once; peak memory per training is only measured with 1.
  unsigned jobs = 1;
  /// Context window (tokens) for the "what fits" figures.
  std::uint64_t context_tokens = 128000;
  std::vector<std::size_t> d_models = {768, 4096};
  NormalizerOptions normalizer;
  PreTokenizerOptions pre_tokenizer;
  InvalidUtf8Policy invalid_utf8 = InvalidUtf8Policy::error;
  /// Held-out lines per language rendered as token chips in the HTML report.
  std::size_t sample_lines = 3;
  /// Tokenizers evaluated on the same held-out text without training; each line
  /// is given to them raw, as their own libraries take it.
  std::vector<PretrainedEntry> pretrained;
  /// Models trained before (compare --model NAME=FILE), evaluated as trained rows.
  std::vector<TrainedModelEntry> models;
  /// Per-algorithm extra options ("bpe" -> {"units": "bytes"}).
  std::map<std::string, std::map<std::string, std::string>> plugin_options;
  /// Train on other text than the evaluation text: these counts (from tokenlab
  /// count, perhaps across MPI ranks, or a training corpus counted by the caller)
  /// train one tokenizer per algorithm, and every line of every corpus above
  /// (one corpus, several languages, or aligned parallel text) is evaluation
  /// text, so premiums compare the whole aligned files. Not with per_language.
  /// The caller checks that the counts were made with this normalizer and
  /// pre-tokenizer.
  std::shared_ptr<const WordCounts> training_counts;
  /// The files training_counts came from (counts or training text), recorded with
  /// the corpus files under the label "training".
  std::vector<std::string> training_counts_files;
  /// Train nothing: evaluate only the pretrained entries (--algorithms none).
  bool evaluate_only = false;
  /// Every line of every corpus above is evaluation text (no held-out split):
  /// the corpora are evaluation text only (compare --eval, --eval-parallel).
  /// Implied by training_counts.
  bool evaluate_every_line = false;
  /// How the evaluation text is fed to the tokenizers and what a word is.
  EvaluationProtocol protocol;
  /// NSL's denominator: the row label (algorithm, model or tokenizer name) whose
  /// tokens every other row's are divided by, language by language. Empty: no NSL.
  std::string baseline;
  /// Paired bootstrap resamples of the evaluation lines for the intervals of the
  /// premium, NSL and premium difference (0: none). Seeded by seed.
  std::size_t bootstrap_samples = 1000;
  /// Morphological alignment (morphology.hpp): every row scored on each gold set.
  std::vector<GoldSet> morph_gold;
  MorphologyOptions morphology;
  /// Inference methods (inference_methods.hpp): for each, a row per tokenizer
  /// ("bpe/longest-prefix") and its agreement with the model's own encoding.
  std::vector<InferenceMethod> inference_methods;
  /// Audit every row's vocabulary (vocabulary_audit.hpp) on its evaluation text.
  bool audit = false;
  /// A word list for the audit's single-token retention (one word per line).
  std::string audit_words;
  /// Every pair of rows against each other (tokenizer_agreement.hpp).
  bool agreement = false;
  /// What each language gets from every row's vocabulary (vocabulary_allocation.hpp).
  bool allocation = false;
  /// The allocation's pruning checkpoints (vocabulary sizes kept); empty: powers of two.
  std::vector<std::size_t> allocation_sizes;
  /// The removal order chosen on each language's even-numbered evaluation lines,
  /// the pruning curve read on the odd-numbered ones.
  bool allocation_held_out = false;
};

/// More resamples than this add nothing a study can read and cost minutes.
inline constexpr std::size_t kMaxBootstrapSamples = 100000;

/// A 95% percentile bootstrap interval.
struct Interval {
  double low = 0.0;
  double high = 0.0;
};

struct CompareRow {
  std::string algorithm;
  std::string language;  // empty for a single unlabelled corpus
  std::string plugin_version;
  std::string error;  // non-empty when training or evaluation failed
  std::size_t requested_vocab_size = 0;
  SegmentationMetrics metrics;
  double train_seconds = 0.0;  // negative: not trained in this run (a --model)
  double encode_seconds = 0.0;
  double encode_mb_per_second = 0.0;
  /// Peak resident memory of the process during the training (the shared word
  /// counts included), MiB; negative when not measured.
  double train_peak_mib = -1.0;
  /// The token premium: tokens(language) / tokens(reference) on the same aligned
  /// held-out segments (Petrov et al. 2023). Absent where it cannot be computed;
  /// CompareResult::premium_note says why.
  std::optional<double> premium;
  /// Normalized sequence length: tokens / tokens of the baseline row on the same
  /// text (CompareOptions::baseline).
  std::optional<double> nsl;
  /// Paired bootstrap intervals over the evaluation lines (CompareOptions::
  /// bootstrap_samples): of the premium, of NSL, and of this row's premium minus
  /// the baseline row's premium in the same language.
  std::optional<Interval> premium_interval;
  std::optional<Interval> nsl_interval;
  std::optional<Interval> premium_difference_interval;
  std::string note;  // e.g. "the corpus supports only 1234 pieces"
  /// A real model's tokenizer, evaluated but not trained here.
  bool pretrained = false;
};

/// One row's vocabulary audit (compare --audit).
struct LabelAudit {
  std::string label;
  std::string language;  // set with per-language training only
  VocabularyAudit audit;
  std::string error;     // the row failed: no audit
  double seconds = 0.0;  // wall time of the audit; not deterministic
};

/// One row's vocabulary allocation (compare --allocation).
struct LabelAllocation {
  std::string label;
  VocabularyAllocation allocation;
  std::string error;     // the row failed, or the allocation could not run
  double seconds = 0.0;  // wall time; not deterministic
};

/// The agreement matrix of the labels serving one language ("" = all the text).
struct LanguageAgreement {
  std::string language;
  TokenizerAgreement matrix;
};

/// A corpus file as read: path, size and SHA-1 for the provenance record.
struct CorpusFileInfo {
  std::string language;
  std::string path;
  std::uint64_t bytes = 0;
  std::string sha1;
};

struct LanguageSummary {
  std::string language;
  std::uint64_t lines = 0;
  std::uint64_t training_lines = 0;
  std::uint64_t held_out_lines = 0;
  std::uint64_t held_out_bytes = 0;
  std::uint64_t distinct_words = 0;  // in the training split
  std::uint64_t training_words = 0;  // occurrences in the training split
  /// Literal U+2581 in the held-out text: the boundary marker's own character, so
  /// every tokenizer decodes it as a space (as SentencePiece does). compare counts
  /// each as an unknown character.
  std::uint64_t held_out_literal_markers = 0;
  /// Held-out words as Python's str.split() counts them (WordDefinition::whitespace).
  std::uint64_t held_out_whitespace_words = 0;
  /// Held-out lines that are not empty (after squeeze_spaces): tokens per line's denominator.
  std::uint64_t held_out_nonempty_lines = 0;
};

/// One held-out line cut by one segmenter, for the HTML report.
struct SampleSegmentation {
  std::string language;
  std::string text;
  std::string algorithm;
  std::vector<std::pair<std::string, TokenId>> tokens;  // display piece, id
};

struct CompareResult {
  CompareOptions options;  // with algorithms and reference_language resolved
  std::vector<CorpusFileInfo> files;
  std::vector<LanguageSummary> languages;
  std::uint64_t distinct_words = 0;  // of the joint training split
  std::string training_note;         // words too long for training, or ""
  double count_seconds = 0.0;
  std::vector<CompareRow> rows;
  /// Per algorithm: Gini coefficient of its per-language token counts on aligned
  /// text, the same segments in every language (0 = every language pays the same;
  /// TokEval's definition, over tokens per line). Aligned multilingual runs only.
  std::map<std::string, double> gini;
  /// Multilingual runs with one tokenizer for every language: one row per label
  /// over the languages' evaluation text pooled (language "all"), the
  /// distribution panel of the pooled tokens among its columns (swiss-ai's
  /// global figures). Empty with per_language training.
  std::vector<CompareRow> pooled;
  /// Why bootstrap intervals are missing ("--unit document gives ..."), or empty.
  std::string bootstrap_note;
  /// Empty when premiums and Gini were computed; else why not ("the languages'
  /// texts are not aligned ..."), for the tables and the reports.
  std::string premium_note;
  std::vector<SampleSegmentation> samples;
  /// Per row label (methods included) and gold set, in row order.
  std::vector<MorphologyRow> morphology;
  /// Per tokenizer, method and language: how the method differs from the own encoding.
  std::vector<InferenceRow> inference;
  std::string started_at;  // UTC, ISO 8601
  /// CompareOptions::audit: one per label (per label and language with
  /// per_language), in row order; never_used counts the label's evaluation lines.
  std::vector<LabelAudit> audits;
  /// CompareOptions::agreement: the labels' matrix on every language's evaluation
  /// text together (language ""), or one per language with per_language.
  std::vector<LanguageAgreement> agreement;
  /// CompareOptions::allocation: one per label, in row order, over the languages
  /// its rows cover.
  std::vector<LabelAllocation> allocations;
};

/// Progress messages for a terminal (stage, fraction in [0,1]).
using ProgressFn = std::function<void(const std::string& stage, double fraction)>;

/// Runs the experiment. Throws Error for corpus problems; a failing plugin is
/// reported in its row and does not stop the others.
TOKENLAB_API CompareResult run_compare(const PluginRegistry& registry,
                                       const CompareOptions& options,
                                       const ProgressFn& progress = {});

struct SweepResult {
  std::vector<std::size_t> vocab_sizes;
  std::vector<CompareResult> runs;  // one per size, same order
};

/// Repeats the comparison at each vocabulary size, counting the corpus once.
TOKENLAB_API SweepResult run_sweep(const PluginRegistry& registry, const CompareOptions& options,
                                   const std::vector<std::size_t>& vocab_sizes,
                                   const ProgressFn& progress = {});

/// The row labels in table order: the trained algorithms, the models given
/// trained, then the pretrained tokenizers.
TOKENLAB_API std::vector<std::string> row_labels(const CompareOptions& options);

/// Gini coefficient of non-negative values (0 = all equal).
TOKENLAB_API double gini_coefficient(std::vector<double> values);

}  // namespace tokenlab
