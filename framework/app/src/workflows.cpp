#include "tokenlab/app/workflows.hpp"

#include <unistd.h>

#include <charconv>
#include <iostream>
#include <set>
#include <sstream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/corpus_spec.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/pretrained/rank_merges.hpp"
#include "tokenlab/pretrained/sentencepiece_writer.hpp"
#include "tokenlab/pretrained/tiktoken_writer.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::app {

void note_to_stderr(const std::string& note) {
  std::cerr << note << '\n';
}

WordCounts count_corpus_files(const std::vector<std::string>& files,
                              const PipelineOptions& pipeline,
                              const std::function<void(std::uint64_t)>& on_bytes) {
  CorpusReader reader(files, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
  CountOptions options;
  options.threads = pipeline.threads;
  options.on_progress = on_bytes;
  WordCounts counts = count_words(reader, Normalizer(pipeline.normalizer()),
                                  PreTokenizer(pipeline.pre_tokenizer_options()), options);
  counts.set_settings(pipeline.counts_settings());
  return counts;
}

// Counts made with another normalizer or pre-tokenizer would train a tokenizer
// for words encode never produces: refuse them, naming both settings.
void check_counts_settings(const WordCounts& counts, const std::string& source,
                           const PipelineOptions& pipeline, const NoteFn& note) {
  const std::string expected = pipeline.counts_settings();
  if (counts.settings().empty()) {
    note("note: " + source +
         " records no settings (an older tokenlab wrote it); training as if it was counted with " +
         expected);
    return;
  }
  if (counts.settings() != expected)
    throw Error(source + ": counted with " + counts.settings() + ", and train was given " +
                expected +
                ": give train the --normalization, --lowercase, --pre-tokenizer and --marker "
                "the counts were made with, or count again");
}

std::shared_ptr<Segmenter> prepare_training(const PluginRegistry& registry, TrainRequest& request) {
  if (!request.like.empty())
    throw UsageError(
        "like: training like a real tokenizer writes its own kind of file; run tokenlab train "
        "--like FILE -o OUT (Python: load OUT with tokenlab.load)");
  request.resolve();
  return registry.create(request.algorithm);
}

WordCounts training_counts(const TrainRequest& request,
                           const std::function<void(std::uint64_t)>& on_bytes, const NoteFn& note) {
  if (!request.corpus.empty())
    return count_corpus_files(request.corpus, request.pipeline, on_bytes);
  WordCounts counts;
  std::string source = "the counts";
  if (request.given_counts) {
    counts = *request.given_counts;
  } else {
    for (const auto& f : request.counts_files)
      counts.merge(WordCounts::load_tsv(std::filesystem::path(f)), f);
    source = request.counts_files.front();
  }
  if (counts.empty())
    throw Error(request.given_counts ? "the counts hold no words"
                                     : "the counts files hold no words");
  check_counts_settings(counts, source, request.pipeline, note);
  return counts;
}

Tokenizer train_tokenizer(const std::shared_ptr<Segmenter>& segmenter, const TrainRequest& request,
                          WordCounts& counts, TrainingObserver* observer, const NoteFn& note) {
  validate(request.train);
  if (const std::string text = describe(leave_out_long_words(counts)); !text.empty()) note(text);
  segmenter->train(counts, request.train, observer);
  // Whatever plugin made it: more entries than asked is refused (CLI and Python).
  check_vocabulary_size(*segmenter, request.train.vocab_size);
  return Tokenizer(request.pipeline.normalizer(), request.pipeline.pre_tokenizer_options(),
                   segmenter);
}

namespace {

// tiktoken and SentencePiece merge any two adjacent parts that make a token; the model
// merges only its trained pairs. Where that can give other ids, say so.
void check_rank_merges(const ModelDescription& description, RankRule rule, bool approximate,
                       const NoteFn& note) {
  if (description.kind != ModelKind::bpe) return;
  const std::string format = rule == RankRule::tiktoken ? "tiktoken" : "sentencepiece";
  const RankMergeConflicts conflicts = rank_merge_conflicts(description, rule);
  if (conflicts.count == 0) return;
  const std::string& example = description.pieces[conflicts.example];
  const std::string message =
      std::to_string(conflicts.count) + " tokens are reached by " + format +
      "'s merge rule (any adjacent parts that make a token) other than by their trained merges, "
      "so " +
      format + " would encode them, and text containing them, differently (the first: \"" +
      utf8::replace_invalid(example) + "\", id " + std::to_string(conflicts.example) + ")";
  if (!approximate)
    throw Error("cannot export to " + format + " exactly: " + message +
                "; --approximate writes it anyway, and --verify TEXT counts the lines that differ");
  note("warning: approximate " + format + " export: " + message);
}

// A rank file carries neither the pattern nor the special tokens: say them, in
// the form tiktoken's constructor takes.
std::string tiktoken_usage(const TiktokenExport& tiktoken, const std::string& output) {
  std::string specials;
  for (const auto& [content, id] : tiktoken.specials)
    specials += (specials.empty() ? "" : ", ") + ("\"" + content + "\": " + std::to_string(id));
  std::string text =
      output + ": tiktoken ranks; use them with the pattern " + tiktoken.pattern_name;
  if (tiktoken.pattern_name == "qwen2")
    text += " (no tiktoken encoding has it: pat_str=" + tiktoken.pattern + ")";
  else
    text += " (tiktoken.get_encoding(\"" + tiktoken.pattern_name + "\")._pat_str)";
  return text + " and special_tokens={" + specials + "}";
}

}  // namespace

ExportedModel export_tokenizer(const Tokenizer& tokenizer, const ExportRequest& request,
                               const std::string& output, const NoteFn& note) {
  const std::string& format = request.format;
  const bool approximate = request.approximate;
  ExportedModel exported;
  exported.read_back_format = format;
  if (format == "vocab.txt") {
    std::ostringstream out;
    tokenizer.segmenter().export_model(out, format);
    exported.written = std::move(out).str();
    return exported;
  }
  std::stringstream description_text;
  tokenizer.segmenter().export_model(description_text, kModelDescriptionFormat);
  const ModelDescription description = read_model_description(description_text);
  const NormalizerOptions& normalizer = tokenizer.normalizer().options();
  const PreTokenizerOptions& pre_tokenizer = tokenizer.pre_tokenizer().options();
  if (format == "tokenizer.json") {
    exported.written =
        write_tokenizer_json(description, normalizer, pre_tokenizer, {.dropout = request.dropout});
    exported.read_back = exported.written;
  } else if (format == "sentencepiece") {
    exported.written = write_sentencepiece(description, normalizer, pre_tokenizer);
    check_rank_merges(description, RankRule::sentencepiece, approximate, note);
    exported.read_back = exported.written;
  } else {
    const TiktokenExport tiktoken = write_tiktoken(description, normalizer, pre_tokenizer);
    check_rank_merges(description, RankRule::tiktoken, approximate, note);
    exported.read_back = tiktoken.encoder_json();
    exported.read_back_format = "tiktoken";
    exported.written = format == "tiktoken" ? tiktoken.ranks : exported.read_back;
    if (format == "tiktoken") note(tiktoken_usage(tiktoken, output));
  }
  return exported;
}

RetrainedTokenizer retrain_like_request(TrainRequest& request, const NoteFn& note) {
  if (!request.algorithm.empty())
    throw UsageError("--like FILE trains FILE's own kind of model: leave out --algorithm");
  if (request.corpus.empty())
    throw UsageError("--like needs --corpus: the file's pipeline counts the text itself");
  request.resolve();
  // What the file decides cannot also be given: say so rather than ignore it.
  const PipelineOptions defaults;
  const TrainOptions train_defaults;
  const std::vector<std::pair<bool, const char*>> decided = {
      {request.pipeline.normalization != defaults.normalization, "--normalization"},
      {request.pipeline.lowercase != defaults.lowercase, "--lowercase"},
      {request.pipeline.pre_tokenizer != defaults.pre_tokenizer, "--pre-tokenizer"},
      {request.pipeline.marker != defaults.marker, "--marker"},
      {request.pipeline.invalid_utf8 != defaults.invalid_utf8, "--invalid-utf8"},
      {request.train.character_coverage != train_defaults.character_coverage,
       "--character-coverage"},
      {request.train.seed != train_defaults.seed, "--seed"},
      {!request.plugin_dirs.empty(), "--plugin-dir"}};
  for (const auto& [given, name] : decided)
    if (given)
      throw UsageError(std::string(name) + " cannot be given with --like: " + request.like +
                       " decides it (its own pipeline is kept)");
  RetrainingRequest retraining;
  retraining.like = request.like;
  retraining.corpus = request.corpus;
  retraining.vocab_size = request.train.vocab_size;
  retraining.special_tokens = request.train.special_tokens;
  retraining.options = request.train.extra;
  if (request.train.min_frequency != 0 && !retraining.options.count("min_frequency"))
    retraining.options["min_frequency"] = std::to_string(request.train.min_frequency);
  retraining.threads = request.pipeline.threads;
  return retrain_like(retraining, note);
}

}  // namespace tokenlab::app
