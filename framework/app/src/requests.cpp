#include "tokenlab/app/requests.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "tokenlab/app/usage_error.hpp"
#include "tokenlab/counting.hpp"

namespace tokenlab::app {

TrainOptions TraceRequest::train_options() const {
  TrainOptions options;
  options.special_tokens = special_tokens;
  options.vocab_size = vocab_size > 0 ? vocab_size : std::size_t{1} << 30;
  options.max_steps = steps;
  options.min_frequency = min_frequency;
  options.character_coverage = 1.0;
  options.threads = threads;
  options.extra = extra;
  validate(options);
  return options;
}

void PipelineOptions::resolve() {
  threads = capped_threads(threads);
}

NormalizerOptions PipelineOptions::normalizer() const {
  NormalizerOptions o = NormalizerOptions::parse(normalization);
  o.lowercase = o.lowercase || lowercase;
  // The regex pre-tokenizers' pieces carry the text's own white space.
  o.keep_whitespace = o.keep_whitespace || is_regex_kind(pre_tokenizer_options().kind);
  return o;
}

PreTokenizerOptions PipelineOptions::pre_tokenizer_options() const {
  return PreTokenizerOptions::parse(pre_tokenizer + "/" + marker);
}

InvalidUtf8Policy PipelineOptions::invalid_utf8_policy() const {
  return parse_invalid_utf8_policy(invalid_utf8);
}

std::string PipelineOptions::counts_settings() const {
  return counts_settings_text(normalizer(), pre_tokenizer_options());
}

void TrainRequest::resolve() {
  const std::size_t sources =
      std::size_t{!corpus.empty()} + !counts_files.empty() + (given_counts != nullptr);
  if (sources != 1) throw UsageError("give exactly one of --corpus and --counts");
  if (algorithm.empty() && like.empty()) throw UsageError("give --algorithm NAME (or --like FILE)");
  pipeline.resolve();
  train.threads = pipeline.threads;
}

void ExportRequest::check(bool verify) const {
  const std::set<std::string> formats = {"tokenizer.json", "tiktoken", "tiktoken-json",
                                         "sentencepiece", "vocab.txt"};
  if (!formats.contains(format))
    throw UsageError(
        "--format must be tokenizer.json, tiktoken, tiktoken-json, sentencepiece or vocab.txt, "
        "got '" +
        format + "'");
  if (verify && format == "vocab.txt")
    throw UsageError(
        "--verify needs --format tokenizer.json, tiktoken, tiktoken-json or "
        "sentencepiece");
  if (dropout && format != "tokenizer.json")
    throw UsageError("--dropout needs --format tokenizer.json (the other formats hold none)");
  if (dropout && verify)
    throw UsageError("--dropout with --verify: with dropout every encode is a sample");
}

unsigned capped_threads(unsigned requested) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const unsigned cap = 4 * cores;
  if (requested <= cap) return requested;
  std::cerr << "note: --threads " << requested << " capped at " << cap << " (4 per core, " << cores
            << " cores)\n";
  return cap;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace tokenlab::app
