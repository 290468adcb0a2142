// The studies beyond compression that compare adds per tokenizer (issue 32,
// parts 1 and 2): each --inference method as rows of its own plus its agreement
// with the model's own encoding, and the --morph-gold scores of every row.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compare_internal.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/tokenizer.hpp"

namespace tokenlab::compare_detail {

namespace {

// The methods to add as rows: every requested one but the own (the row exists).
std::vector<InferenceMethod> added_methods(const CompareOptions& options) {
  std::vector<InferenceMethod> methods;
  for (const InferenceMethod m : options.inference_methods)
    if (m != InferenceMethod::own) methods.push_back(m);
  return methods;
}

MorphologyRow morphology_row(const CompareOptions& options, const std::string& label,
                             const GoldSet& gold, const TextEncoder& encoder) {
  MorphologyRow row;
  row.algorithm = label;
  row.gold = gold.label;
  try {
    row.scores = score_morphology(encoder, gold, options.morphology, options.training.threads);
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

std::vector<std::string_view> words_of(const WordList& list) {
  std::vector<std::string_view> words;
  words.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) words.push_back(list.at(i));
  return words;
}

InferenceRow agreement_row(const std::string& label, InferenceMethod method,
                           const std::string& language, const InferenceSubject& subject,
                           const WordList& texts) {
  InferenceRow row{label, inference_method_name(method), language, {}, {}};
  try {
    const std::vector<std::string_view> units = words_of(texts);
    row.agreement = measure_agreement(subject, method, units);
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

// The reason a method cannot run on a model, as its agreement row.
InferenceRow unavailable(const std::string& label, InferenceMethod method,
                         const std::string& language) {
  return InferenceRow{
      label,
      inference_method_name(method),
      language,
      {},
      std::string(method == InferenceMethod::merges ? "no merges: not a BPE vocabulary"
                                                    : "no scores: not a unigram vocabulary")};
}

}  // namespace

void add_segmenter_studies(const CompareOptions& options, const Prepared& prepared,
                           const std::vector<std::size_t>& served, const std::string& label,
                           std::shared_ptr<Segmenter> segmenter, LabelEvaluation& out,
                           std::vector<SampleSegmentation>& samples, std::mutex& samples_mutex) {
  const Tokenizer own(options.normalizer, options.pre_tokenizer, segmenter);
  for (const auto& gold : options.morph_gold)
    out.morphology.push_back(morphology_row(options, label, gold, own));
  const std::vector<InferenceMethod> methods = added_methods(options);
  if (methods.empty()) return;
  std::shared_ptr<const InferenceSubject> subject;
  try {
    subject = make_inference_subject(segmenter);
  } catch (const std::exception& e) {
    for (const auto m : methods)
      out.inference.push_back(InferenceRow{label, inference_method_name(m), "", {}, e.what()});
    return;
  }
  for (const InferenceMethod method : methods) {
    if (!subject->can_run(method)) {
      for (const std::size_t l : served)
        out.inference.push_back(unavailable(label, method, prepared.languages[l].summary.language));
      continue;
    }
    auto by_method = std::make_shared<InferenceSegmenter>(segmenter, subject, method);
    const std::string method_label = inference_label(label, method);
    for (const std::size_t l : served) {
      const PreparedLanguage& lang = prepared.languages[l];
      CompareRow row;
      row.algorithm = method_label;
      row.language = lang.summary.language;
      row.plugin_version = segmenter->version();
      row.requested_vocab_size = segmenter->vocabulary().size();
      row.train_seconds = -1.0;  // nothing trained: the vocabulary is the model's
      row.note = std::string("inference: ") + inference_method_name(method) + " on " + label;
      LineTokens line_tokens;
      try {
        line_tokens =
            evaluate_segmenter(*by_method, options, lang, row, samples, samples_mutex, nullptr);
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      out.rows.push_back(std::move(row));
      out.line_tokens.push_back(std::move(line_tokens));
      out.inference.push_back(
          agreement_row(label, method, lang.summary.language, *subject, lang.held_out));
    }
    const Tokenizer method_tokenizer(options.normalizer, options.pre_tokenizer, by_method);
    for (const auto& gold : options.morph_gold)
      out.morphology.push_back(morphology_row(options, method_label, gold, method_tokenizer));
  }
}

void add_pretrained_studies(const CompareOptions& options, const Prepared& prepared,
                            const PretrainedEntry& entry, LabelEvaluation& out,
                            std::vector<SampleSegmentation>& samples) {
  for (const auto& gold : options.morph_gold)
    out.morphology.push_back(morphology_row(options, entry.name, gold, *entry.encoder));
  const std::vector<InferenceMethod> methods = added_methods(options);
  if (methods.empty()) return;
  for (const InferenceMethod method : methods) {
    if (!entry.inference || !entry.inference->can_run(method)) {
      for (const auto& lang : prepared.languages)
        out.inference.push_back(
            entry.inference ? unavailable(entry.name, method, lang.summary.language)
                            : InferenceRow{entry.name,
                                           inference_method_name(method),
                                           lang.summary.language,
                                           {},
                                           "its vocabulary is not readable for other methods"});
      continue;
    }
    PretrainedEntry by_method{
        inference_label(entry.name, method), entry.source,
        std::make_shared<MethodEncoder>(entry.encoder, entry.inference, method), nullptr};
    LabelEvaluation rows = evaluate_pretrained(options, prepared, by_method, samples);
    for (std::size_t r = 0; r < rows.rows.size(); ++r) {
      rows.rows[r].note =
          std::string("inference: ") + inference_method_name(method) + " on " + entry.name;
      out.rows.push_back(std::move(rows.rows[r]));
      out.line_tokens.push_back(std::move(rows.line_tokens[r]));
    }
    for (const auto& lang : prepared.languages)
      out.inference.push_back(agreement_row(entry.name, method, lang.summary.language,
                                            *entry.inference, lang.raw_held_out));
    for (const auto& gold : options.morph_gold)
      out.morphology.push_back(morphology_row(options, by_method.name, gold, *by_method.encoder));
  }
}

}  // namespace tokenlab::compare_detail
