// The tokenlab subcommands. Each parses its options into locals and hands the
// work to the framework; nothing here knows any particular algorithm.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "any_model.hpp"
#include "cli.hpp"
#include "count_mpi.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/corpus_spec.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/report_bundle.hpp"
#include "tokenlab/spilling_counter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_counts.hpp"
#include "workflows.hpp"

namespace tokenlab::cli {

namespace {

WordCounts count_corpus(const std::vector<std::string>& files, const PipelineOptions& pipeline) {
  CorpusReader reader(files, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
  Progress progress;
  CountOptions options;
  options.threads = pipeline.threads;
  options.on_progress = [&](std::uint64_t bytes) {
    progress.update("counting: " + std::to_string(bytes >> 20) + " MiB");
  };
  WordCounts counts = count_words(reader, Normalizer(pipeline.normalizer()),
                                  PreTokenizer(pipeline.pre_tokenizer_options()), options);
  counts.set_settings(pipeline.counts_settings());
  progress.done();
  return counts;
}

// Reads lines from --input or stdin.
class LineSource {
 public:
  explicit LineSource(const std::string& path) {
    if (path.empty() || path == "-") {
      in_ = &std::cin;
      name_ = "<stdin>";
      return;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
    file_.open(path, std::ios::binary);
    if (!file_) throw Error(path + ": cannot open");
    in_ = &file_;
    name_ = path;
  }
  bool next(std::string& line) {
    // Ends only at the end: a read error or an overlong line throws.
    if (!read_bounded_line(*in_, line, name_, number_ + 1)) return false;
    ++number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  [[nodiscard]] std::string where() const { return name_ + ":" + std::to_string(number_); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::uint64_t line_number() const noexcept { return number_; }

 private:
  std::ifstream file_;
  std::istream* in_ = nullptr;
  std::string name_;
  std::uint64_t number_ = 0;
};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

int cmd_plugins(const std::vector<std::string>& args) {
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("plugin-dir", po::value(&plugin_dirs),
                     "extra directory to search first (repeatable)");
  po::variables_map vm;
  if (!parse("plugins", "[--plugin-dir DIR]...", desc, {}, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  ReportTable table;
  table.columns = {{"name", ColumnKind::text},
                   {"version", ColumnKind::text},
                   {"capabilities", ColumnKind::text},
                   {"description", ColumnKind::text},
                   {"file", ColumnKind::text}};
  for (const auto& p : registry.plugins()) {
    std::string caps;
    if (p.capabilities & kCapabilitySampling) caps += "sampling ";
    if (p.capabilities & kCapabilityNBest) caps += "nbest ";
    if (p.capabilities & kCapabilityTrace) caps += "trace ";
    if (caps.empty())
      caps = "-";
    else
      caps.pop_back();
    table.rows.push_back({p.name, p.version, caps, p.description, p.file.string()});
  }
  write_terminal(std::cout, table);
  if (registry.plugins().empty()) {
    std::cerr << "error: no plugins found (searched --plugin-dir, $TOKENLAB_PLUGIN_PATH and "
                 "<exe>/../lib/tokenlab/plugins)\n";
    return kExitFailure;
  }
  return kExitOk;
}

int cmd_count(const std::vector<std::string>& args) {
  std::vector<std::string> corpus;
  std::vector<std::string> merge;
  std::string output;
  std::string max_memory;
  std::string spill_dir;
  PipelineOptions pipeline;
  po::options_description desc("options");
  desc.add_options()("corpus", po::value(&corpus)->multitoken(),
                     "corpus files (.gz, .xz, - for stdin)")(
      "merge", po::value(&merge)->multitoken(),
      "instead of a corpus: counts files to merge (shards counted on other machines)")(
      "output,o", po::value(&output)->required(),
      "counts file to write (TSV: word<TAB>count; - for stdout)")(
      "max-memory", po::value(&max_memory),
      "SIZE (as 512M, 2G): hold at most this much of the table in memory, spilling "
      "sorted runs to temporary files; the output is the same")(
      "spill-dir", po::value(&spill_dir),
      "with --max-memory: where the (unnamed) spill files go (default $TMPDIR, else /tmp)");
  pipeline.add_to(desc);
  po::positional_options_description positional;
  positional.add("corpus", -1);
  po::variables_map vm;
  if (!parse("count",
             "(--corpus FILE... | --merge COUNTS.tsv...) -o COUNTS.tsv [--max-memory SIZE] "
             "[options]",
             desc, positional, args, vm))
    return kExitOk;
  if (corpus.empty() == merge.empty()) throw UsageError("give exactly one of --corpus and --merge");
  if (!spill_dir.empty() && max_memory.empty()) throw UsageError("--spill-dir needs --max-memory");
  check_output_path(output);
  check_not_an_input(output, concat(corpus, merge));
  if (started_as_mpi_ranks()) {
    if (!merge.empty()) throw UsageError("count --merge runs as one process, not across MPI ranks");
    if (!max_memory.empty())
      throw UsageError(
          "--max-memory is for one process: across MPI ranks each rank holds only its share of "
          "the words; use more ranks");
    return count_across_ranks(corpus, pipeline, output);
  }
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t distinct = 0;
  std::uint64_t total = 0;
  std::string spilled;
  if (!max_memory.empty()) {
    // Bounded memory: blocks or shard entries stream through the spilling counter.
    std::uint64_t budget = 0;
    try {
      budget = parse_memory_size(max_memory);
    } catch (const Error& e) {
      throw UsageError(std::string("--max-memory: ") + e.what());
    }
    if (budget < (std::uint64_t{1} << 20))
      throw UsageError("--max-memory must be at least 1M, got '" + max_memory + "'");
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
    SpillingCounter::Summary summary;
    with_output(output, [&](std::ostream& out) { summary = counter.write_tsv(out); });
    distinct = summary.distinct;
    total = summary.total;
    spilled = ", " + std::to_string(summary.spilled_runs) + " runs spilled";
  } else {
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
    distinct = counts.size();
    total = counts.total();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << distinct << " distinct words, " << total << " occurrences" << spilled << ", "
            << seconds << " s -> " << output << '\n';
  return kExitOk;
}

int cmd_train(const std::vector<std::string>& args) {
  TrainArgs train;
  std::string output;
  po::options_description desc("options");
  train.add_to(desc);
  desc.add_options()("output,o", po::value(&output)->required(),
                     "model file to write (- for stdout when it is not a terminal)");
  po::variables_map vm;
  if (!parse("train",
             "--algorithm NAME --vocab-size N (--corpus FILE... | --counts COUNTS.tsv) -o MODEL",
             desc, {}, args, vm))
    return kExitOk;
  train.finish(vm);
  if (train.corpus.empty() == train.counts_files.empty())
    throw UsageError("give exactly one of --corpus and --counts");
  check_binary_output_path(output);
  check_not_an_input(output, concat(train.corpus, train.counts_files));
  PluginRegistry registry;
  load_plugins(registry, train.plugin_dirs);
  std::shared_ptr<Segmenter> segmenter = prepare_training(registry, train);
  WordCounts counts;
  {
    Progress progress;
    counts = training_counts(
        train,
        [&](std::uint64_t bytes) {
          progress.update("counting: " + std::to_string(bytes >> 20) + " MiB");
        },
        note_to_stderr);
  }
  struct Observer : TrainingObserver {
    Progress progress;
    void on_progress(std::string_view stage, double fraction) override {
      progress.update(std::string(stage) + ": " + std::to_string(static_cast<int>(fraction * 100)) +
                      "%");
    }
    void on_message(std::string_view message) override {
      progress.done();
      std::cerr << message << '\n';
    }
  } observer;
  const auto start = std::chrono::steady_clock::now();
  const Tokenizer tokenizer = train_tokenizer(segmenter, train, counts, &observer, note_to_stderr);
  observer.progress.done();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  with_binary_output(output, [&](const std::filesystem::path& path) { tokenizer.save(path); });
  std::cerr << train.algorithm << ": vocabulary " << segmenter->vocabulary().size()
            << ", trained in " << seconds << " s on " << counts.size() << " distinct words -> "
            << output << '\n';
  return kExitOk;
}

int cmd_encode(const std::vector<std::string>& args) {
  std::string model;
  std::string input;
  std::string output;
  std::string format;
  std::vector<std::string> plugin_dirs;
  bool pieces = false;
  double dropout = -1;
  double alpha = -1;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(), "model file")(
      "input,i", po::value(&input), "input file (default stdin)")("output,o", po::value(&output),
                                                                  "output file (default stdout)")(
      "pieces", po::bool_switch(&pieces), "print pieces instead of ids")(
      "dropout", ranged(&dropout, 0.0, 1.0),
      "sample with BPE-dropout probability p in [0, 1] (sampling plugins)")(
      "alpha", ranged(&alpha, 0.0, std::numeric_limits<double>::max()),
      "sample with unigram inverse temperature alpha >= 0 (sampling plugins; 0 = uniform)")(
      "seed", ranged(&seed, std::uint64_t{0})->default_value(0), "seed for sampling")(
      "threads",
      ranged(&threads, 0U, kMaxThreadsOption)->default_value(0)->notifier([&](unsigned n) {
        threads = capped_threads(n);
      }),
      "worker threads (0 = all cores; at most 4 per core are used)")(
      "format", po::value(&format)->default_value("auto"),
      "what -m is: auto (detect), tokenizer.json, tiktoken[:ENCODING], sentencepiece")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::variables_map vm;
  if (!parse("encode", "-m MODEL [--pieces] [--input FILE]", desc, {}, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  check_output_path(output);
  check_not_an_input(output, {model, input});
  const AnyModel loaded = load_any_model(model, registry, format);
  const TextEncoder& encoder = *loaded.encoder;
  const bool sampling = vm.count("dropout") > 0 || vm.count("alpha") > 0;
  if (sampling &&
      (!loaded.trained || !(loaded.trained->segmenter().capabilities() & kCapabilitySampling)))
    throw Error("'" + loaded.kind + "' does not support sampling");
  SamplingOptions sampling_options;
  if (vm.count("dropout") > 0) sampling_options.dropout = dropout;
  if (vm.count("alpha") > 0) sampling_options.alpha = alpha;
  std::uint64_t rng = seed;
  LineSource source(input);
  with_output(output, [&](std::ostream& out) {
    std::vector<std::string> batch;
    std::string line;
    std::string text;
    const auto flush = [&] {
      std::vector<std::vector<TokenId>> encoded;
      if (sampling) {
        for (const auto& l : batch) {
          encoded.emplace_back();
          loaded.trained->for_each_word(l, [&](std::string_view w) {
            loaded.trained->segmenter().encode_sampled(w, sampling_options, rng, encoded.back());
          });
        }
      } else {
        try {
          encoded = encoder.encode_batch(batch, threads);
        } catch (const Error&) {
          // A batch's error (a regex over its time limit, say) does not know its
          // line: find it by encoding the batch's lines one at a time.
          const std::uint64_t first = source.line_number() - batch.size() + 1;
          for (std::size_t i = 0; i < batch.size(); ++i) {
            try {
              (void)encoder.encode_batch(std::span<const std::string>(&batch[i], 1), 1);
            } catch (const Error& e) {
              throw Error(source.name() + ":" + std::to_string(first + i) + ": " + e.what());
            }
          }
          throw;
        }
      }
      const std::size_t vocabulary_size = encoder.vocabulary_size();
      for (const auto& ids : encoded) {
        check_ids(ids, vocabulary_size, loaded.kind);
        text.clear();
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (i) text += ' ';
          text += pieces ? encoder.display_piece(ids[i]) : std::to_string(ids[i]);
        }
        text += '\n';
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
      }
      batch.clear();
    };
    while (source.next(line)) {
      if (auto bad = utf8::find_invalid(line))
        throw Error(source.where() + ": invalid UTF-8 at byte offset " + std::to_string(*bad));
      batch.push_back(line);
      if (batch.size() == 8192) flush();
    }
    flush();
  });
  return kExitOk;
}

int cmd_decode(const std::vector<std::string>& args) {
  std::string model;
  std::string input;
  std::string output;
  std::string format;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(), "model file")(
      "input,i", po::value(&input), "input file of space-separated ids (default stdin)")(
      "output,o", po::value(&output), "output file (default stdout)")(
      "format", po::value(&format)->default_value("auto"),
      "what -m is: auto (detect), tokenizer.json, tiktoken[:ENCODING], sentencepiece")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::variables_map vm;
  if (!parse("decode", "-m MODEL [--input FILE]", desc, {}, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  check_output_path(output);
  check_not_an_input(output, {model, input});
  const AnyModel loaded = load_any_model(model, registry, format);
  const TextEncoder& encoder = *loaded.encoder;
  const std::size_t vocab = encoder.vocabulary_size();
  LineSource source(input);
  with_output(output, [&](std::ostream& out) {
    std::string line;
    std::vector<TokenId> ids;
    while (source.next(line)) {
      ids.clear();
      std::istringstream fields(line);
      std::string field;
      while (fields >> field) {
        std::uint64_t id = 0;
        auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), id);
        if (ec != std::errc() || ptr != field.data() + field.size())
          throw Error(source.where() + ": '" + field + "' is not a token id");
        if (id >= vocab)
          throw Error(source.where() + ": token id " + field + " is outside the vocabulary (size " +
                      std::to_string(vocab) + ")");
        ids.push_back(static_cast<TokenId>(id));
      }
      std::string text;
      try {
        text = encoder.decode(ids);
      } catch (const Error& e) {
        throw Error(source.where() + ": " + e.what());
      }
      out << text << '\n';
    }
  });
  return kExitOk;
}

namespace {

// The note column is file-only; on the terminal each row's note or error goes
// under the table, one line each.
void print_notes(const CompareResult& result) {
  bool first = true;
  for (const auto& row : result.rows) {
    const std::string& text = row.error.empty() ? row.note : "error: " + row.error;
    if (text.empty()) continue;
    if (first) std::cout << '\n';
    first = false;
    const std::string label =
        row.algorithm + (row.language.empty() ? "" : " (" + row.language + ")");
    // Plugins often start their messages with their own name already.
    const bool named = text.rfind(row.algorithm + ":", 0) == 0 && row.language.empty();
    std::cout << (named ? text : label + ": " + text) << '\n';
  }
  if (!result.training_note.empty())
    std::cout << (first ? "\n" : "") << result.training_note << '\n';
}

void report_bundle(const ReportBundle& bundle) {
  for (const auto& w : bundle.warnings) std::cerr << "warning: " << w << '\n';
  for (const auto& f : bundle.files)
    if (f.filename() == "report.html") std::cerr << "report: " << f.string() << '\n';
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args) {
  ExperimentArgs experiment;
  po::options_description desc("options");
  desc.add_options()(
      "vocab-size,v",
      ranged(&experiment.options.vocab_size, std::size_t{1}, kMaxVocabSize)->default_value(8000),
      "vocabulary size");
  experiment.add_to(desc);
  po::variables_map vm;
  if (!parse("compare", "[--corpus FILE... | --corpus LANG=FILE... | --parallel DIR] [options]",
             desc, {}, args, vm))
    return kExitOk;
  experiment.resolve();
  PluginRegistry registry;
  load_plugins(registry, experiment.plugin_dirs);
  experiment.check_plugin_options(registry);
  experiment.load_tokenizers(registry);
  Progress progress;
  const CompareResult result =
      run_compare(registry, experiment.options,
                  [&](const std::string& stage, double) { progress.update(stage); });
  progress.done();
  write_terminal(std::cout, comparison_table(result));
  print_notes(result);
  if (result.languages.size() > 1) {
    std::cout << '\n';
    write_terminal(std::cout, fairness_table(result));
    if (!result.premium_note.empty()) std::cout << '\n' << result.premium_note << '\n';
    if (!result.bootstrap_note.empty()) std::cout << result.bootstrap_note << '\n';
    if (!result.pooled.empty()) {
      std::cout << '\n';
      write_terminal(std::cout, pooled_table(result));
    }
  }
  bool failed = false;
  for (const auto& row : result.rows) failed = failed || !row.error.empty();
  if (!experiment.report_dir.empty())
    report_bundle(write_compare_reports(experiment.report_dir, result));
  return failed ? kExitFailure : kExitOk;
}

int cmd_sweep(const std::vector<std::string>& args) {
  ExperimentArgs experiment;
  std::string sizes_text;
  po::options_description desc("options");
  desc.add_options()("vocab-sizes",
                     po::value(&sizes_text)->default_value("500,1000,2000,4000,8000,16000,32000"),
                     "comma-separated vocabulary sizes");
  experiment.add_to(desc);
  po::variables_map vm;
  if (!parse("sweep", "[--vocab-sizes 500,1000,...] [--corpus ...] [options]", desc, {}, args, vm))
    return kExitOk;
  const std::vector<std::size_t> sizes = parse_vocab_sizes(sizes_text);
  experiment.resolve();
  PluginRegistry registry;
  load_plugins(registry, experiment.plugin_dirs);
  experiment.check_plugin_options(registry);
  experiment.load_tokenizers(registry);
  Progress progress;
  const SweepResult sweep =
      run_sweep(registry, experiment.options, sizes,
                [&](const std::string& stage, double) { progress.update(stage); });
  progress.done();
  write_terminal(std::cout, sweep_table(sweep));
  if (!experiment.report_dir.empty())
    report_bundle(write_sweep_reports(experiment.report_dir, sweep));
  // A row of '-' says only that something failed, and a size the corpus cannot
  // reach shows only in the vocab column: each is said in words under the table.
  bool failed = false;
  bool capped = false;
  for (std::size_t i = 0; i < sweep.runs.size(); ++i)
    for (const auto& row : sweep.runs[i].rows) {
      const std::string who =
          row.algorithm + (row.language.empty() ? "" : " (" + row.language + ")");
      if (!row.error.empty()) {
        failed = true;
        std::cerr << "error: " << who << " at vocabulary size " << sweep.vocab_sizes[i] << ": "
                  << row.error << '\n';
      } else if (!row.pretrained && row.train_seconds >= 0 &&
                 row.metrics.vocabulary_size < sweep.vocab_sizes[i]) {
        std::cout << (capped ? "" : "\n") << who << " at " << sweep.vocab_sizes[i]
                  << ": the corpus supports only " << row.metrics.vocabulary_size << " entries\n";
        capped = true;
      }
    }
  return failed ? kExitFailure : kExitOk;
}

int cmd_check_plugin(const std::vector<std::string>& args) {
  std::string path;
  po::options_description desc("options");
  desc.add_options()("plugin", po::value(&path)->required(), "plugin file (.so)");
  po::positional_options_description positional;
  positional.add("plugin", 1);
  po::variables_map vm;
  if (!parse("check-plugin", "PATH", desc, positional, args, vm)) return kExitOk;
  PluginRegistry registry;
  const PluginInfo info = registry.load_file(path);
  std::cout << "plugin " << info.name << " " << info.version << " (" << info.file.string() << ")\n";
  std::cout.flush();  // the suite runs in a child process; nothing buffered twice
  std::size_t failed = 0;
  std::size_t skipped = 0;
  const auto results = run_conformance_isolated(registry, info.name);
  for (const auto& r : results) {
    std::cout << (r.skipped ? "  SKIP  " : r.passed ? "  PASS  " : "  FAIL  ") << r.check;
    if (!r.detail.empty()) std::cout << "  (" << r.detail << ")";
    std::cout << '\n';
    failed += !r.passed && !r.skipped;
    skipped += r.skipped;
  }
  std::cout << results.size() - failed - skipped << " passed, " << failed << " failed";
  if (skipped > 0) std::cout << ", " << skipped << " skipped";
  std::cout << '\n';
  if (failed > 0) {
    std::cerr << "error: " << info.name << " failed " << failed << " conformance check(s)\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tokenlab::cli
