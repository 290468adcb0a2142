#include "tokenlab/compare.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"

#ifndef TOKENLAB_VERSION
#define TOKENLAB_VERSION "unknown"
#endif

namespace tokenlab {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string millions(std::uint64_t v) {
  return fixed(static_cast<double>(v) / 1e6, 1);
}

// Held-out words, stored flat: one buffer and end offsets.
struct WordList {
  std::string text;
  std::vector<std::size_t> ends;
  [[nodiscard]] std::size_t size() const { return ends.size(); }
  [[nodiscard]] std::string_view at(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(text).substr(begin, ends[i] - begin);
  }
};

CompareRow evaluate(const PluginRegistry& registry, const std::string& algorithm,
                    const WordCounts& counts, const WordList& held_out,
                    const CompareOptions& options) {
  CompareRow row;
  row.algorithm = algorithm;
  try {
    row.plugin_version = registry.info(algorithm).version;
    auto segmenter = registry.create(algorithm);
    TrainOptions train_options;
    train_options.vocab_size = options.vocab_size;
    train_options.threads = options.threads;
    train_options.seed = options.seed;
    if (auto it = options.plugin_options.find(algorithm); it != options.plugin_options.end())
      train_options.extra = it->second;
    struct NoteObserver : TrainingObserver {
      std::string note;
      void on_message(std::string_view m) override { note = std::string(m); }
    } observer;
    const auto train_start = Clock::now();
    segmenter->train(counts, train_options, &observer);
    row.train_seconds = seconds_since(train_start);
    row.note = observer.note;

    const std::size_t vocab = segmenter->vocabulary().size();
    const unsigned threads = resolve_threads(options.threads);
    // One accumulator per thread over a contiguous range: the metrics are integer
    // sums, so the result does not depend on how the words were divided.
    std::vector<MetricsAccumulator> partial(
        threads, MetricsAccumulator(vocab, segmenter->vocabulary().unknown_id()));
    const auto encode_start = Clock::now();
    parallel_for(threads, threads, [&](std::size_t t) {
      std::vector<TokenId> ids;
      const std::size_t begin = held_out.size() * t / threads;
      const std::size_t end = held_out.size() * (t + 1) / threads;
      for (std::size_t i = begin; i < end; ++i) {
        ids.clear();
        const auto word = held_out.at(i);
        segmenter->encode(word, ids);
        partial[t].add_word(word, ids, *segmenter);
      }
    });
    row.encode_seconds = seconds_since(encode_start);
    MetricsAccumulator total(vocab, segmenter->vocabulary().unknown_id());
    for (const auto& p : partial) total.merge(p);
    row.metrics = total.finish();
    if (row.encode_seconds > 0)
      row.encode_mb_per_second =
          static_cast<double>(held_out.text.size()) / 1e6 / row.encode_seconds;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

}  // namespace

CompareResult run_compare(const PluginRegistry& registry, const CompareOptions& options,
                          const ProgressFn& progress) {
  CompareResult result;
  result.options = options;
  if (result.options.algorithms.empty())
    for (const auto& p : registry.plugins()) result.options.algorithms.push_back(p.name);
  for (const auto& name : result.options.algorithms) (void)registry.info(name);  // unknown -> Error
  if (result.options.algorithms.empty()) throw Error("no plugins found (see 'tokenlab plugins')");

  const HeldOutSplit split(options.held_out);
  Normalizer normalizer(options.normalizer);
  PreTokenizer pre_tokenizer(options.pre_tokenizer);
  CorpusReader reader(options.corpus_files, CorpusOptions{.invalid_utf8 = options.invalid_utf8});
  WordList held_out;
  std::string scratch;
  std::uint64_t held_out_lines = 0;
  CountOptions count_options;
  count_options.threads = options.threads;
  count_options.keep_line = [&](std::string_view line) { return !split.is_held_out(line); };
  count_options.on_skipped_line = [&](std::string_view line) {
    ++held_out_lines;
    pre_tokenizer.split(line, scratch, [&](std::string_view w) {
      held_out.text.append(w);
      held_out.ends.push_back(held_out.text.size());
    });
  };
  count_options.on_progress = [&](std::uint64_t bytes) {
    if (progress) progress("counting (" + std::to_string(bytes >> 20) + " MiB)", 0.0);
  };
  const auto count_start = Clock::now();
  WordCounts counts = count_words(reader, normalizer, pre_tokenizer, count_options);
  result.corpus.count_seconds = seconds_since(count_start);
  result.corpus.files = options.corpus_files;
  result.corpus.bytes = reader.bytes_read();
  result.corpus.lines = reader.lines_read();
  result.corpus.held_out_lines = held_out_lines;
  result.corpus.training_lines = reader.lines_read() - held_out_lines;
  result.corpus.distinct_words = counts.size();
  result.corpus.training_words = counts.total();
  if (counts.empty()) throw Error("the training split is empty: lower --held-out or add text");

  const auto& algorithms = result.options.algorithms;
  for (std::size_t i = 0; i < algorithms.size(); ++i) {
    if (progress)
      progress("training " + algorithms[i],
               static_cast<double>(i) / static_cast<double>(algorithms.size()));
    result.rows.push_back(evaluate(registry, algorithms[i], counts, held_out, options));
  }
  if (progress) progress("done", 1.0);
  return result;
}

ReportTable comparison_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab compare";
  t.columns = {
      {"segmenter", ColumnKind::text, "plugin name"},
      {"vocab", ColumnKind::integer, "vocabulary size reached, special tokens included"},
      {"tokens", ColumnKind::integer, "tokens produced on the held-out text"},
      {"tok/word", ColumnKind::real, "fertility: tokens per pre-tokenized word"},
      {"chars/tok", ColumnKind::real, "compression: characters per token"},
      {"bytes/tok", ColumnKind::real, "UTF-8 bytes per token"},
      {"split%", ColumnKind::real, "words split into 2+ tokens, percent"},
      {"unk tok%", ColumnKind::real, "unknown tokens / tokens, percent"},
      {"unk chr%", ColumnKind::real, "characters under unknown tokens / characters, percent"},
      {"unk word%", ColumnKind::real, "words containing an unknown token / words, percent"},
      {"used%", ColumnKind::real,
       "vocabulary utilization: distinct tokens seen / vocabulary size, percent"},
      {"renyi2.5", ColumnKind::real, "Renyi efficiency, alpha 2.5 (Zouhar et al. 2023)"},
  };
  for (const std::size_t d : result.options.d_models) {
    t.columns.push_back({"emb" + std::to_string(d) + " M", ColumnKind::real,
                         "embedding parameters V x " + std::to_string(d) + ", tied, millions"});
    t.columns.push_back({"untied" + std::to_string(d) + " M", ColumnKind::real,
                         "input + output embeddings 2 x V x " + std::to_string(d) +
                             ", millions (bf16 bytes = 2 x this)"});
  }
  t.columns.push_back({"train s", ColumnKind::real, "training wall time, seconds"});
  t.columns.push_back({"enc MB/s", ColumnKind::real, "held-out encoding throughput"});
  t.columns.push_back({"note", ColumnKind::text, "error or remark"});
  for (const auto& row : result.rows) {
    std::vector<std::string> cells{row.algorithm};
    if (!row.error.empty()) {
      while (cells.size() + 1 < t.columns.size()) cells.push_back("-");
      cells.push_back("error: " + row.error);
      t.rows.push_back(std::move(cells));
      continue;
    }
    const auto& m = row.metrics;
    cells.push_back(std::to_string(m.vocabulary_size));
    cells.push_back(std::to_string(m.tokens));
    cells.push_back(fixed(m.fertility(), 3));
    cells.push_back(fixed(m.characters_per_token(), 3));
    cells.push_back(fixed(m.bytes_per_token(), 3));
    cells.push_back(fixed(100 * m.continued_word_rate(), 2));
    cells.push_back(fixed(100 * m.unknown_token_rate(), 3));
    cells.push_back(fixed(100 * m.unknown_character_rate(), 3));
    cells.push_back(fixed(100 * m.unknown_word_rate(), 3));
    cells.push_back(fixed(100 * m.vocabulary_utilization(), 1));
    cells.push_back(fixed(m.renyi_efficiency_2_5, 3));
    for (const std::size_t d : result.options.d_models) {
      const EmbeddingCost cost = embedding_cost(m.vocabulary_size, d);
      cells.push_back(millions(cost.tied_parameters));
      cells.push_back(millions(cost.untied_parameters));
    }
    cells.push_back(fixed(row.train_seconds, 2));
    cells.push_back(fixed(row.encode_mb_per_second, 1));
    cells.push_back(row.note);
    t.rows.push_back(std::move(cells));
  }
  const auto& c = result.corpus;
  std::string files;
  for (const auto& f : c.files) files += (files.empty() ? "" : ", ") + f;
  t.metadata = {
      {"tokenlab version", TOKENLAB_VERSION},
      {"corpus", files},
      {"corpus bytes", std::to_string(c.bytes)},
      {"lines (training / held out)",
       std::to_string(c.training_lines) + " / " + std::to_string(c.held_out_lines)},
      {"distinct training words", std::to_string(c.distinct_words)},
      {"training word occurrences", std::to_string(c.training_words)},
      {"counting seconds", fixed(c.count_seconds, 2)},
      {"vocab size requested", std::to_string(result.options.vocab_size)},
      {"held-out fraction", fixed(result.options.held_out, 3)},
      {"normalizer", result.options.normalizer.to_string()},
      {"pre-tokenizer", result.options.pre_tokenizer.to_string()},
      {"threads", std::to_string(resolve_threads(result.options.threads))},
  };
  for (const auto& row : result.rows)
    t.metadata.emplace_back("plugin " + row.algorithm, row.plugin_version);
  return t;
}

}  // namespace tokenlab
