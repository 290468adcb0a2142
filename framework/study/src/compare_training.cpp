// Training each algorithm of the comparison on the counted words, timed and
// with its peak memory, before its rows are evaluated (compare_evaluation.cpp).
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <fstream>
#include <memory>
#include <numeric>
#include <string>

#include "compare_internal.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"

namespace tokenlab::compare_detail {

namespace {

// Linux keeps a per-process peak resident size (VmHWM) that can be reset by
// writing 5 to /proc/self/clear_refs: that gives the peak of one training.
long read_status_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line))
    if (line.rfind(prefix, 0) == 0) return std::atol(line.c_str() + prefix.size());
  return -1;
}
bool reset_peak_memory() {
#if defined(__GLIBC__)
  // What earlier trainings freed goes back to the kernel first, or the
  // allocator's cache of it (the tokenlab program keeps its whole heap:
  // tools/cli/heap_pages.hpp) would count in this one's peak.
  malloc_trim(0);
#endif
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace

LabelEvaluation train_and_evaluate(const PluginRegistry& registry, const CompareOptions& options,
                                   const Prepared& prepared, const Task& task, bool measure_memory,
                                   std::vector<SampleSegmentation>& samples,
                                   std::mutex& samples_mutex) {
  std::vector<std::size_t> served;
  if (options.per_language) {
    served.push_back(task.language);
  } else {
    served.resize(prepared.languages.size());
    std::iota(served.begin(), served.end(), std::size_t{0});
  }
  LabelEvaluation out;
  auto& rows = out.rows;
  for (const std::size_t l : served) {
    CompareRow row;
    row.algorithm = task.algorithm;
    row.language = prepared.languages[l].summary.language;
    row.requested_vocab_size = options.training.vocab_size;
    rows.push_back(row);
  }
  out.line_tokens.resize(rows.size());
  try {
    const std::string version = registry.info(task.algorithm).version;
    for (auto& row : rows) row.plugin_version = version;
    auto segmenter = registry.create(task.algorithm);
    TrainOptions train_options = options.training;
    if (auto it = options.plugin_options.find(task.algorithm); it != options.plugin_options.end())
      train_options.extra = it->second;
    struct NoteObserver : TrainingObserver {
      std::string note;
      void on_message(std::string_view m) override { note = std::string(m); }
    } observer;
    const WordCounts& counts =
        options.per_language ? prepared.languages[task.language].counts : prepared.joint;
    const bool can_measure = measure_memory && reset_peak_memory();
    const auto train_start = Clock::now();
    segmenter->train(counts, train_options, &observer);
    check_vocabulary_size(*segmenter, options.training.vocab_size);  // the row's error if larger
    const double train_seconds = seconds_since(train_start);
    const long peak = can_measure ? read_status_kib("VmHWM") : -1;
    const std::size_t vocab = segmenter->vocabulary().size();
    std::string note;
    if (vocab < options.training.vocab_size)
      note = "the corpus supports only " + std::to_string(vocab) + " of " +
             std::to_string(options.training.vocab_size) + " entries";

    std::optional<MetricsAccumulator> pooled;
    if (pools(options, prepared))
      pooled.emplace(vocab, segmenter->vocabulary().unknown_id(),
                     byte_fallback_ids(segmenter->vocabulary()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      auto& row = rows[r];
      row.train_seconds = train_seconds;
      row.note = note.empty() ? observer.note : note;
      if (peak >= 0) row.train_peak_mib = static_cast<double>(peak) / 1024.0;
      out.line_tokens[r] =
          evaluate_segmenter(*segmenter, options, prepared.languages[served[r]], row, samples,
                             samples_mutex, pooled ? &*pooled : nullptr);
    }
    if (pooled) out.pooled = pooled_row(rows.front(), *pooled);
    // Not owned: the studies finish before the segmenter goes.
    add_segmenter_studies(options, prepared, served, task.algorithm,
                          std::shared_ptr<Segmenter>(segmenter.get(), [](Segmenter*) {}), out,
                          samples, samples_mutex);
    std::shared_ptr<Segmenter> kept(std::move(segmenter));
    if (options.allocation) {
      out.allocation = make_inference_subject(kept);
      out.allocation_on_words = true;
    }
    if (options.audit || options.agreement)
      out.encoder = std::make_shared<const Tokenizer>(options.normalizer, options.pre_tokenizer,
                                                      std::move(kept));
  } catch (const std::exception& e) {
    // An Error names what failed; anything else a plugin threw is named by its type.
    const std::string error =
        dynamic_cast<const Error*>(&e) != nullptr
            ? std::string(e.what())
            : "plugin '" + task.algorithm + "' threw " + describe_exception(e);
    for (auto& row : rows) row.error = error;
  } catch (...) {
    for (auto& row : rows) row.error = "the plugin threw an exception that is not a std::exception";
  }
  return out;
}

}  // namespace tokenlab::compare_detail
