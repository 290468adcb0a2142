// tokenlab count: the words of a corpus, or counts files merged, into one TSV file.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands/input_lists.hpp"
#include "tokenlab/app/count_mpi.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/spilling_counter.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli {

namespace {

WordCounts count_corpus(const std::vector<std::string>& files, const PipelineOptions& pipeline) {
  Progress progress;
  WordCounts counts = app::count_corpus_files(files, pipeline, [&](std::uint64_t bytes) {
    progress.update("counting: " + std::to_string(bytes >> 20) + " MiB");
  });
  progress.done();
  return counts;
}

// What count printed about the table it wrote.
struct CountSummary {
  std::uint64_t distinct = 0;
  std::uint64_t total = 0;
  std::string spilled;  // ", N runs spilled", or ""
};

std::uint64_t parse_budget(const std::string& max_memory) {
  std::uint64_t budget = 0;
  try {
    budget = parse_memory_size(max_memory);
  } catch (const Error& e) {
    throw UsageError(std::string("--max-memory: ") + e.what());
  }
  if (budget < (std::uint64_t{1} << 20))
    throw UsageError("--max-memory must be at least 1M, got '" + max_memory + "'");
  return budget;
}

// Every entry of the counts files through counter, in the order given.
void add_counts_files(SpillingCounter& counter, const std::vector<std::string>& merge) {
  for (const auto& file : merge) {
    std::ifstream in = open_counts_file(file);
    TsvReader reader(in, file);
    std::string word;
    std::uint64_t count = 0;
    bool first = true;
    while (reader.next(word, count)) {
      if (first) {
        check_counts_settings_text(reader.settings(), file);
        counter.set_settings(reader.settings(), file);
      }
      first = false;
      try {
        counter.add_entry(word, count);
      } catch (const Error& e) {
        throw Error(file + ":" + std::to_string(reader.line_number()) + ": " + e.what());
      }
    }
  }
}

// Bounded memory: blocks or shard entries stream through the spilling counter.
CountSummary count_spilling(const std::vector<std::string>& corpus,
                            const std::vector<std::string>& merge, const PipelineOptions& pipeline,
                            const std::string& output, std::uint64_t budget,
                            const std::string& spill_dir) {
  SpillingCounter counter(budget, spill_dir);
  if (!corpus.empty()) {
    counter.set_settings(pipeline.counts_settings(), "the corpus");
    Progress progress;
    CorpusReader reader(corpus, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
    CountOptions options;
    options.threads = pipeline.threads;
    options.on_block_counts = [&](const WordCounts& block) { counter.add(block); };
    (void)count_words(reader, Normalizer(pipeline.normalizer()),
                      PreTokenizer(pipeline.pre_tokenizer_options()), options);
    progress.done();
  } else {
    add_counts_files(counter, merge);
  }
  SpillingCounter::Summary summary;
  with_output(output, [&](std::ostream& out) { summary = counter.write_tsv(out); });
  return {summary.distinct, summary.total,
          ", " + std::to_string(summary.spilled_runs) + " runs spilled"};
}

CountSummary count_in_memory(const std::vector<std::string>& corpus,
                             const std::vector<std::string>& merge, const PipelineOptions& pipeline,
                             const std::string& output) {
  WordCounts counts;
  if (!corpus.empty()) {
    counts = count_corpus(corpus, pipeline);
  } else {
    // Shards merge in the order given, so first-occurrence order is that of the
    // concatenated corpus when the shards are its consecutive parts.
    for (const auto& file : merge) {
      WordCounts shard = WordCounts::load_tsv(std::filesystem::path(file));
      check_counts_settings_text(shard.settings(), file);
      counts.merge(shard, file);
    }
  }
  with_output(output, [&](std::ostream& out) { counts.save_tsv(out); });
  return {counts.size(), counts.total(), ""};
}

}  // namespace

int cmd_count(const std::vector<std::string>& args) {
  app::CountRequest request;
  std::vector<std::string>& corpus = request.corpus;
  PipelineOptions& pipeline = request.pipeline;
  std::vector<std::string> merge;
  std::string output;
  std::string max_memory;
  std::string spill_dir;
  po::options_description desc("options");
  app::add_options(desc, app::count_table(), request);
  desc.add_options()(
      "merge", po::value(&merge)->multitoken(),
      "instead of a corpus: counts files to merge (shards counted on other machines)")(
      "output,o", po::value(&output)->required(),
      "counts file to write (TSV: word<TAB>count; - for stdout)")(
      "max-memory", po::value(&max_memory),
      "SIZE (as 512M, 2G): hold at most this much of the table in memory, spilling "
      "sorted runs to temporary files; the output is the same")(
      "spill-dir", po::value(&spill_dir),
      "with --max-memory: where the (unnamed) spill files go (default $TMPDIR, else /tmp)");
  po::positional_options_description positional;
  positional.add("corpus", -1);
  po::variables_map vm;
  if (!parse("count",
             "(--corpus FILE... | --merge COUNTS.tsv...) -o COUNTS.tsv [--max-memory SIZE] "
             "[options]",
             desc, positional, args, vm))
    return kExitOk;
  pipeline.resolve();
  if (corpus.empty() == merge.empty()) throw UsageError("give exactly one of --corpus and --merge");
  if (!spill_dir.empty() && max_memory.empty()) throw UsageError("--spill-dir needs --max-memory");
  check_output_path(output);
  check_not_an_input(output, concat(corpus, merge));
  if (app::started_as_mpi_ranks()) {
    if (!merge.empty()) throw UsageError("count --merge runs as one process, not across MPI ranks");
    if (!max_memory.empty())
      throw UsageError(
          "--max-memory is for one process: across MPI ranks each rank holds only its share of "
          "the words; use more ranks");
    return app::count_across_ranks(corpus, pipeline, output);
  }
  const auto start = std::chrono::steady_clock::now();
  const CountSummary summary =
      max_memory.empty()
          ? count_in_memory(corpus, merge, pipeline, output)
          : count_spilling(corpus, merge, pipeline, output, parse_budget(max_memory), spill_dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << summary.distinct << " distinct words, " << summary.total << " occurrences"
            << summary.spilled << ", " << seconds << " s -> " << output << '\n';
  return kExitOk;
}

}  // namespace tokenlab::cli
