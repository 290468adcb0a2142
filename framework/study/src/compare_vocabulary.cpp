// compare --audit, --agreement and --allocation: every label's vocabulary
// audited on its evaluation text, the labels against each other, and what each
// language gets from each vocabulary, from the tokenizers the evaluation kept
// (compare.cpp collects them).
#include <string>
#include <vector>

#include "compare_internal.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/vocabulary_allocation.hpp"
#include "tokenlab/vocabulary_audit.hpp"

namespace tokenlab::compare_detail {

namespace {

// The raw evaluation lines of the languages a label's rows cover.
std::vector<std::string> lines_of(const Prepared& prepared, const std::vector<CompareRow>& rows) {
  std::vector<std::string> lines;
  for (const auto& lang : prepared.languages) {
    bool served = false;
    for (const auto& row : rows) served = served || row.language == lang.summary.language;
    if (!served) continue;
    for (std::size_t i = 0; i < lang.raw_held_out.size(); ++i)
      lines.emplace_back(lang.raw_held_out.at(i));
  }
  return lines;
}

void add_audits(CompareResult& result, const CompareOptions& options, const Prepared& prepared,
                const std::vector<LabelEvaluation>& evaluations) {
  std::vector<std::string> words;
  if (!options.audit_words.empty()) words = read_word_list(options.audit_words);
  for (const auto& evaluation : evaluations) {
    if (evaluation.rows.empty()) continue;
    LabelAudit audit;
    audit.label = evaluation.rows.front().algorithm;
    if (options.per_language && !evaluation.rows.front().pretrained && evaluation.rows.size() == 1)
      audit.language = evaluation.rows.front().language;
    audit.error = evaluation.rows.front().error;
    if (evaluation.encoder && audit.error.empty()) {
      const auto start = Clock::now();
      const std::vector<std::string> lines = lines_of(prepared, evaluation.rows);
      audit.audit = audit_vocabulary(
          *evaluation.encoder,
          {.evaluation_lines = lines, .word_list = words, .threads = options.training.threads});
      audit.seconds = seconds_since(start);
    } else if (audit.error.empty()) {
      audit.error = "no tokenizer to audit";
    }
    result.audits.push_back(std::move(audit));
  }
}

// The labels that serve language ("" = every label) and their encoders.
void add_matrix(CompareResult& result, const CompareOptions& options, const Prepared& prepared,
                const std::vector<LabelEvaluation>& evaluations, const std::string& language,
                bool one_language) {
  std::vector<std::string> labels;
  std::vector<const TextEncoder*> encoders;
  std::vector<std::string> lines;
  for (const auto& evaluation : evaluations) {
    if (!evaluation.encoder || evaluation.rows.empty() || !evaluation.rows.front().error.empty())
      continue;
    bool serves = !one_language;
    for (const auto& row : evaluation.rows) serves = serves || row.language == language;
    if (!serves) continue;
    labels.push_back(evaluation.rows.front().algorithm);
    encoders.push_back(evaluation.encoder.get());
  }
  for (const auto& lang : prepared.languages) {
    if (one_language && lang.summary.language != language) continue;
    for (std::size_t i = 0; i < lang.raw_held_out.size(); ++i)
      lines.emplace_back(lang.raw_held_out.at(i));
  }
  result.agreement.push_back(
      {one_language ? language : std::string(),
       compare_tokenizers(labels, encoders, lines, options.training.threads)});
}

// What a label's allocation reads: per language it serves, the held-out words
// (a tokenlab model) or the raw held-out lines (a real tokenizer).
AllocationInput allocation_input(const CompareOptions& options, const Prepared& prepared,
                                 const LabelEvaluation& evaluation) {
  AllocationInput input{.d_models = options.d_models,
                        .sizes = options.allocation_sizes,
                        .held_out_order = options.allocation_held_out,
                        .threads = options.training.threads};
  for (const auto& lang : prepared.languages) {
    bool served = false;
    for (const auto& row : evaluation.rows)
      served = served || row.language == lang.summary.language;
    if (!served) continue;
    input.languages.push_back(lang.summary.language);
    const WordList& list = evaluation.allocation_on_words ? lang.held_out : lang.raw_held_out;
    std::vector<std::string> texts;
    texts.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) texts.emplace_back(list.at(i));
    input.texts.push_back(std::move(texts));
    input.lines.emplace_back();
    if (!evaluation.allocation_on_words) continue;
    std::size_t line = 0;  // the words' lines, for --allocation-held-out
    for (std::size_t i = 0; i < list.size(); ++i) {
      while (line < lang.held_out_words_after_line.size() &&
             lang.held_out_words_after_line[line] <= i)
        ++line;
      input.lines.back().push_back(line);
    }
  }
  return input;
}

void add_allocations(CompareResult& result, const CompareOptions& options, const Prepared& prepared,
                     const std::vector<LabelEvaluation>& evaluations) {
  for (const auto& evaluation : evaluations) {
    if (evaluation.rows.empty()) continue;
    LabelAllocation allocation;
    allocation.label = evaluation.rows.front().algorithm;
    allocation.error = evaluation.rows.front().error;
    if (allocation.error.empty() && !evaluation.allocation)
      allocation.error = "no vocabulary to allocate (the tokenizer's file gives no pieces)";
    if (allocation.error.empty()) {
      const auto start = Clock::now();
      try {
        allocation.allocation = allocate_vocabulary(
            *evaluation.allocation, allocation_input(options, prepared, evaluation));
      } catch (const Error& e) {
        allocation.error = e.what();
      }
      allocation.seconds = seconds_since(start);
    }
    result.allocations.push_back(std::move(allocation));
  }
}

}  // namespace

void add_vocabulary_studies(CompareResult& result, const CompareOptions& options,
                            const Prepared& prepared,
                            const std::vector<LabelEvaluation>& evaluations) {
  if (options.audit) add_audits(result, options, prepared, evaluations);
  if (options.allocation) add_allocations(result, options, prepared, evaluations);
  if (!options.agreement) return;
  if (!options.per_language) {
    add_matrix(result, options, prepared, evaluations, "", false);
    return;
  }
  for (const auto& lang : prepared.languages)
    add_matrix(result, options, prepared, evaluations, lang.summary.language, true);
}

}  // namespace tokenlab::compare_detail
