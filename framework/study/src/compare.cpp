#include "tokenlab/compare.hpp"

#include <algorithm>
#include <boost/uuid/detail/sha1.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <numeric>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/types.hpp"

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

// A failed segmenter's row: its leading cells, "-" for every figure, and the error
// in the last column (the note).
void add_error_row(ReportTable& table, std::vector<std::string> cells, const std::string& error) {
  while (cells.size() + 1 < table.columns.size()) cells.push_back("-");
  cells.push_back("error: " + error);
  table.rows.push_back(std::move(cells));
}

std::string millions(std::uint64_t v) {
  return fixed(static_cast<double>(v) / 1e6, 1);
}

std::string sha1_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "-";
  boost::uuids::detail::sha1 hash;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.process_bytes(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  unsigned int digest[5];
  hash.get_digest(digest);
  char hex[41];
  for (int i = 0; i < 5; ++i) std::snprintf(hex + 8 * i, 9, "%08x", digest[i]);
  return hex;
}

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
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

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
  // For pretrained tokenizers, which take raw lines: the held-out lines as read,
  // and after each the number of held-out words so far (its words' end).
  WordList raw_held_out;
  std::vector<std::size_t> held_out_words_after_line;
  std::vector<std::string> raw_samples;
};

struct Prepared {
  std::vector<PreparedLanguage> languages;
  WordCounts joint;
  LongWords long_words;  // left out of training, all languages
  std::vector<CorpusFileInfo> files;
  double count_seconds = 0.0;
};

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

CompareOptions resolve(const PluginRegistry& registry, const CompareOptions& in) {
  CompareOptions o = in;
  {  // what every training will be told, checked before any counting
    TrainOptions check;
    check.vocab_size = o.vocab_size;
    check.character_coverage = o.character_coverage;
    validate(check);
  }
  if (o.languages.empty()) {
    if (o.corpus_files.empty()) throw Error("no corpus files given");
    o.languages.push_back({"", o.corpus_files});
  }
  for (std::size_t i = 0; i < o.languages.size(); ++i)
    for (std::size_t j = i + 1; j < o.languages.size(); ++j)
      if (o.languages[i].language == o.languages[j].language)
        throw Error("language '" + o.languages[i].language + "' given twice");
  if (o.algorithms.empty())
    for (const auto& p : registry.plugins()) o.algorithms.push_back(p.name);
  if (o.algorithms.empty()) throw Error("no plugins found (see 'tokenlab plugins')");
  for (const auto& name : o.algorithms)
    (void)registry.info(name);  // unknown -> Error listing plugins
  if (o.languages.size() > 1 && o.reference_language.empty()) {
    o.reference_language = o.languages.front().language;
    for (const auto& l : o.languages)
      if (l.language == "en" || l.language == "eng" || l.language == "eng_Latn")
        o.reference_language = l.language;
  }
  if (!o.reference_language.empty()) {
    bool found = false;
    for (const auto& l : o.languages) found = found || l.language == o.reference_language;
    if (!found)
      throw Error("reference language '" + o.reference_language + "' is not among the corpora");
  }
  if (o.jobs == 0) o.jobs = 1;
  return o;
}

Prepared prepare(const CompareOptions& options, const ProgressFn& progress) {
  Prepared prepared;
  const HeldOutSplit split(options.held_out);
  const Normalizer normalizer(options.normalizer);
  const PreTokenizer pre_tokenizer(options.pre_tokenizer);
  const auto start = Clock::now();
  for (const auto& language : options.languages) {
    PreparedLanguage lang;
    lang.summary.language = language.language;
    CorpusReader reader(language.files, CorpusOptions{.invalid_utf8 = options.invalid_utf8});
    std::string scratch;
    // Records one normalized held-out line: its words for evaluation, a few whole
    // lines for the HTML samples.
    const bool keep_raw = !options.pretrained.empty();
    const auto hold_out = [&](std::string_view raw, std::string_view line) {
      ++lang.summary.held_out_lines;
      lang.summary.held_out_bytes += line.size();
      for (std::size_t at = line.find(kBoundaryMarker); at != std::string_view::npos;
           at = line.find(kBoundaryMarker, at + 1))
        ++lang.summary.held_out_literal_markers;
      if (lang.samples.size() < options.sample_lines && !line.empty()) {
        lang.samples.emplace_back(line);
        lang.raw_samples.emplace_back(raw);
      }
      pre_tokenizer.split(line, scratch, [&](std::string_view w) {
        lang.held_out.text.append(w);
        lang.held_out.ends.push_back(lang.held_out.text.size());
      });
      if (keep_raw) {
        lang.raw_held_out.text.append(raw);
        lang.raw_held_out.ends.push_back(lang.raw_held_out.text.size());
        lang.held_out_words_after_line.push_back(lang.held_out.size());
      }
    };
    CountOptions count;
    count.threads = options.threads;
    if (options.aligned) {
      // Parallel text is split by line number, so every language holds out the
      // same segments. count_words decides per line on worker threads, where line
      // numbers are unknown; parallel test sets are small, so read them here.
      std::uint64_t line_index = 0;
      CorpusBlock block;
      std::string normalized;
      while (reader.next_block(block)) {
        for (const auto& line : block.lines) {
          ++line_index;
          normalizer.normalize(line, normalized);
          if (split.is_held_out(std::to_string(line_index)))
            hold_out(line, normalized);
          else
            pre_tokenizer.split(normalized, scratch,
                                [&](std::string_view w) { lang.counts.add(w); });
        }
      }
    } else {
      // Otherwise by content, so duplicated lines never straddle the split.
      count.keep_line = [&](std::string_view line) { return !split.is_held_out(line); };
      count.on_skipped_line = hold_out;
      count.on_progress = [&](std::uint64_t bytes) {
        if (progress)
          progress("counting " +
                       (language.language.empty() ? std::string() : language.language + " ") + "(" +
                       std::to_string(bytes >> 20) + " MiB)",
                   0.0);
      };
      lang.counts = count_words(reader, normalizer, pre_tokenizer, count);
    }
    const LongWords cut = leave_out_long_words(lang.counts);
    prepared.long_words.distinct += cut.distinct;
    prepared.long_words.occurrences += cut.occurrences;
    lang.summary.lines = reader.lines_read();
    lang.summary.training_lines = lang.summary.lines - lang.summary.held_out_lines;
    lang.summary.distinct_words = lang.counts.size();
    lang.summary.training_words = lang.counts.total();
    if (lang.counts.empty())
      throw Error("the training split of " +
                  (language.language.empty() ? std::string("the corpus") : language.language) +
                  " is empty: lower --held-out or add text");
    for (const auto& f : language.files) {
      std::error_code ec;
      const auto size = f == "-" ? 0 : std::filesystem::file_size(f, ec);
      prepared.files.push_back(
          {language.language, f, ec ? 0 : size, f == "-" ? "-" : sha1_of_file(f)});
    }
    prepared.joint.merge(lang.counts);
    prepared.languages.push_back(std::move(lang));
  }
  prepared.count_seconds = seconds_since(start);
  return prepared;
}

struct Task {
  std::string algorithm;
  std::size_t language = 0;  // index into prepared.languages (per-language training)
};

// Trains one segmenter and evaluates it on each language it serves.
std::vector<CompareRow> train_and_evaluate(const PluginRegistry& registry,
                                           const CompareOptions& options, const Prepared& prepared,
                                           const Task& task, bool measure_memory,
                                           std::vector<SampleSegmentation>& samples,
                                           std::mutex& samples_mutex) {
  std::vector<std::size_t> served;
  if (options.per_language) {
    served.push_back(task.language);
  } else {
    served.resize(prepared.languages.size());
    std::iota(served.begin(), served.end(), std::size_t{0});
  }
  std::vector<CompareRow> rows;
  for (const std::size_t l : served) {
    CompareRow row;
    row.algorithm = task.algorithm;
    row.language = prepared.languages[l].summary.language;
    row.requested_vocab_size = options.vocab_size;
    rows.push_back(row);
  }
  try {
    const std::string version = registry.info(task.algorithm).version;
    for (auto& row : rows) row.plugin_version = version;
    auto segmenter = registry.create(task.algorithm);
    TrainOptions train_options;
    train_options.vocab_size = options.vocab_size;
    train_options.threads = options.threads;
    train_options.seed = options.seed;
    train_options.min_frequency = options.min_frequency;
    train_options.character_coverage = options.character_coverage;
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
    const double train_seconds = seconds_since(train_start);
    const long peak = can_measure ? read_status_kib("VmHWM") : -1;
    const std::size_t vocab = segmenter->vocabulary().size();
    std::string note;
    if (vocab < options.vocab_size)
      note = "the corpus supports only " + std::to_string(vocab) + " of " +
             std::to_string(options.vocab_size) + " entries";

    const unsigned threads = resolve_threads(options.threads);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      auto& row = rows[r];
      const auto& lang = prepared.languages[served[r]];
      row.train_seconds = train_seconds;
      row.note = note.empty() ? observer.note : note;
      if (peak >= 0) row.train_peak_mib = static_cast<double>(peak) / 1024.0;
      // One accumulator per thread over a contiguous range: the metrics are integer
      // sums, so the result does not depend on how the words were divided.
      const std::vector<TokenId> byte_pieces = byte_fallback_ids(segmenter->vocabulary());
      std::vector<MetricsAccumulator> partial(
          threads, MetricsAccumulator(vocab, segmenter->vocabulary().unknown_id(), byte_pieces));
      const auto encode_start = Clock::now();
      parallel_for(threads, threads, [&](std::size_t t) {
        std::vector<TokenId> ids;
        const std::size_t begin = lang.held_out.size() * t / threads;
        const std::size_t end = lang.held_out.size() * (t + 1) / threads;
        for (std::size_t i = begin; i < end; ++i) {
          ids.clear();
          const auto word = lang.held_out.at(i);
          segmenter->encode(word, ids);
          partial[t].add_word(word, ids, *segmenter);
        }
      });
      row.encode_seconds = seconds_since(encode_start);
      MetricsAccumulator total(vocab, segmenter->vocabulary().unknown_id(), byte_pieces);
      for (const auto& p : partial) total.merge(p);
      row.metrics = total.finish();
      // A literal U+2581 reads as a boundary marker: lost to every tokenizer alike.
      row.metrics.characters += lang.summary.held_out_literal_markers;
      row.metrics.unknown_characters += lang.summary.held_out_literal_markers;
      if (row.encode_seconds > 0)
        row.encode_mb_per_second =
            static_cast<double>(lang.held_out.text.size()) / 1e6 / row.encode_seconds;
      const PreTokenizer pre_tokenizer(options.pre_tokenizer);
      std::vector<SampleSegmentation> mine;
      for (const auto& text : lang.samples) {
        SampleSegmentation sample{lang.summary.language, text, task.algorithm, {}};
        std::string scratch;
        std::vector<TokenId> ids;
        pre_tokenizer.split(text, scratch, [&](std::string_view w) { segmenter->encode(w, ids); });
        for (const TokenId id : ids) sample.tokens.emplace_back(segmenter->display_piece(id), id);
        mine.push_back(std::move(sample));
      }
      std::lock_guard lock(samples_mutex);
      for (auto& s : mine) samples.push_back(std::move(s));
    }
  } catch (const std::exception& e) {
    for (auto& row : rows) row.error = e.what();
  } catch (...) {
    for (auto& row : rows) row.error = "the plugin threw an exception that is not a std::exception";
  }
  return rows;
}

// Evaluates a tokenizer that is not trained here on every language's raw
// held-out lines; words, characters and bytes come from the same held-out words
// as the trained rows, so every per-word and per-character figure compares.
std::vector<CompareRow> evaluate_pretrained(const CompareOptions& options, const Prepared& prepared,
                                            const PretrainedEntry& entry,
                                            std::vector<SampleSegmentation>& samples) {
  std::vector<CompareRow> rows;
  const TextEncoder& encoder = *entry.encoder;
  const unsigned threads = resolve_threads(options.threads);
  for (const auto& lang : prepared.languages) {
    CompareRow row;
    row.algorithm = entry.name;
    row.language = lang.summary.language;
    row.plugin_version = "pretrained";
    row.pretrained = true;
    row.requested_vocab_size = encoder.vocabulary_size();
    try {
      const std::vector<TokenId> byte_pieces = encoder.byte_fallback_ids();
      std::vector<MetricsAccumulator> partial(
          threads,
          MetricsAccumulator(encoder.vocabulary_size(), encoder.unknown_id(), byte_pieces));
      const std::size_t lines = lang.raw_held_out.size();
      const auto encode_start = Clock::now();
      parallel_for(threads, threads, [&](std::size_t t) {
        std::vector<TokenId> ids;
        const std::size_t begin = lines * t / threads;
        const std::size_t end = lines * (t + 1) / threads;
        for (std::size_t i = begin; i < end; ++i) {
          ids.clear();
          encoder.encode(lang.raw_held_out.at(i), ids);
          const std::size_t first_word = i == 0 ? 0 : lang.held_out_words_after_line[i - 1];
          const std::size_t last_word = lang.held_out_words_after_line[i];
          std::uint64_t characters = 0;
          std::uint64_t bytes = 0;
          for (std::size_t w = first_word; w < last_word; ++w) {
            const std::string_view word = lang.held_out.at(w);
            characters += surface_characters(word);
            bytes += surface_bytes(word);
          }
          partial[t].add_line(
              ids, last_word - first_word, characters, bytes,
              [&](std::span<const TokenId> known) { return encoder.decode(known); });
        }
      });
      row.encode_seconds = seconds_since(encode_start);
      MetricsAccumulator total(encoder.vocabulary_size(), encoder.unknown_id(), byte_pieces);
      for (const auto& p : partial) total.merge(p);
      row.metrics = total.finish();
      if (row.encode_seconds > 0)
        row.encode_mb_per_second =
            static_cast<double>(lang.raw_held_out.text.size()) / 1e6 / row.encode_seconds;
      row.note = "pretrained: " + entry.source;
      for (std::size_t i = 0; i < lang.raw_samples.size(); ++i) {
        SampleSegmentation sample{lang.summary.language, lang.samples[i], entry.name, {}};
        std::vector<TokenId> ids;
        encoder.encode(lang.raw_samples[i], ids);
        for (const TokenId id : ids) sample.tokens.emplace_back(encoder.display_piece(id), id);
        samples.push_back(std::move(sample));
      }
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

CompareResult evaluate_all(const PluginRegistry& registry, const CompareOptions& options,
                           const Prepared& prepared, const ProgressFn& progress) {
  CompareResult result;
  result.options = options;
  result.started_at = now_utc();
  result.files = prepared.files;
  for (const auto& l : prepared.languages) result.languages.push_back(l.summary);
  result.distinct_words = prepared.joint.size();
  result.training_note = describe(prepared.long_words);
  result.count_seconds = prepared.count_seconds;

  std::vector<Task> tasks;
  for (const auto& algorithm : options.algorithms) {
    if (options.per_language) {
      for (std::size_t l = 0; l < prepared.languages.size(); ++l) tasks.push_back({algorithm, l});
    } else {
      tasks.push_back({algorithm, 0});
    }
  }
  std::vector<std::vector<CompareRow>> rows(tasks.size());
  std::vector<SampleSegmentation> samples;
  std::mutex samples_mutex;
  std::mutex progress_mutex;
  std::size_t finished = 0;
  const bool measure_memory = options.jobs <= 1;
  parallel_for(tasks.size(), options.jobs, [&](std::size_t i) {
    if (progress) {
      std::lock_guard lock(progress_mutex);
      progress("training " + tasks[i].algorithm +
                   (options.per_language
                        ? " (" + prepared.languages[tasks[i].language].summary.language + ")"
                        : "") +
                   " at " + std::to_string(options.vocab_size),
               static_cast<double>(finished) / static_cast<double>(tasks.size()));
    }
    rows[i] = train_and_evaluate(registry, options, prepared, tasks[i], measure_memory, samples,
                                 samples_mutex);
    std::lock_guard lock(progress_mutex);
    ++finished;
  });
  for (auto& r : rows)
    for (auto& row : r) result.rows.push_back(std::move(row));
  for (const auto& entry : options.pretrained) {
    if (progress) progress("encoding with " + entry.name, 1.0);
    for (auto& row : evaluate_pretrained(options, prepared, entry, samples))
      result.rows.push_back(std::move(row));
  }
  const std::vector<std::string> labels = row_labels(options);
  // Samples in a fixed order whatever the job scheduling.
  std::stable_sort(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
    const auto rank = [&](const std::string& algorithm) {
      return std::find(labels.begin(), labels.end(), algorithm) - labels.begin();
    };
    if (a.language != b.language) return a.language < b.language;
    if (a.text != b.text) return a.text < b.text;
    return rank(a.algorithm) < rank(b.algorithm);
  });
  result.samples = std::move(samples);

  // Parity and fairness: only meaningful across several languages.
  if (prepared.languages.size() > 1) {
    for (auto& row : result.rows) {
      if (!row.error.empty() || !options.aligned) continue;
      for (const auto& ref : result.rows)
        if (ref.algorithm == row.algorithm && ref.language == options.reference_language &&
            ref.error.empty() && ref.metrics.tokens > 0)
          row.parity =
              static_cast<double>(row.metrics.tokens) / static_cast<double>(ref.metrics.tokens);
    }
    for (const auto& algorithm : labels) {
      std::vector<double> tokens_per_byte;
      for (const auto& row : result.rows)
        if (row.algorithm == algorithm && row.error.empty() && row.metrics.bytes > 0)
          tokens_per_byte.push_back(static_cast<double>(row.metrics.tokens) /
                                    static_cast<double>(row.metrics.bytes));
      if (tokens_per_byte.size() > 1)
        result.gini_tokens_per_byte[algorithm] = gini_coefficient(tokens_per_byte);
    }
  }
  return result;
}

}  // namespace

std::vector<std::string> row_labels(const CompareOptions& options) {
  std::vector<std::string> labels = options.algorithms;
  for (const auto& entry : options.pretrained) labels.push_back(entry.name);
  return labels;
}

double gini_coefficient(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  double weighted = 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    weighted += static_cast<double>(i + 1) * values[i];
    sum += values[i];
  }
  if (sum <= 0.0) return 0.0;
  return (2.0 * weighted) / (n * sum) - (n + 1.0) / n;
}

CompareResult run_compare(const PluginRegistry& registry, const CompareOptions& options,
                          const ProgressFn& progress) {
  const CompareOptions resolved = resolve(registry, options);
  const Prepared prepared = prepare(resolved, progress);
  CompareResult result = evaluate_all(registry, resolved, prepared, progress);
  if (progress) progress("done", 1.0);
  return result;
}

SweepResult run_sweep(const PluginRegistry& registry, const CompareOptions& options,
                      const std::vector<std::size_t>& vocab_sizes, const ProgressFn& progress) {
  if (vocab_sizes.empty()) throw Error("no vocabulary sizes given");
  const CompareOptions resolved = resolve(registry, options);
  const Prepared prepared = prepare(resolved, progress);
  SweepResult sweep;
  sweep.vocab_sizes = vocab_sizes;
  for (const std::size_t size : vocab_sizes) {
    CompareOptions at = resolved;
    at.vocab_size = size;
    sweep.runs.push_back(evaluate_all(registry, at, prepared, progress));
  }
  if (progress) progress("done", 1.0);
  return sweep;
}

std::vector<std::pair<std::string, std::string>> run_metadata(const CompareResult& result) {
  std::vector<std::pair<std::string, std::string>> m;
  const auto& o = result.options;
  m.emplace_back("tokenlab version", TOKENLAB_VERSION);
  m.emplace_back("date", result.started_at);
  for (const auto& f : result.files)
    m.emplace_back("corpus" + (f.language.empty() ? std::string() : " " + f.language),
                   f.path + " (" + std::to_string(f.bytes) + " bytes, sha1 " + f.sha1 + ")");
  for (const auto& l : result.languages)
    m.emplace_back("lines" + (l.language.empty() ? std::string() : " " + l.language) +
                       " (training / held out)",
                   std::to_string(l.training_lines) + " / " + std::to_string(l.held_out_lines));
  m.emplace_back("distinct training words", std::to_string(result.distinct_words));
  if (!result.training_note.empty()) m.emplace_back("words left out", result.training_note);
  m.emplace_back("counting seconds", fixed(result.count_seconds, 2));
  m.emplace_back("vocab size requested", std::to_string(o.vocab_size));
  m.emplace_back("character coverage", fixed(o.character_coverage, 6));
  m.emplace_back("min frequency", std::to_string(o.min_frequency));
  m.emplace_back(
      "held-out fraction",
      fixed(o.held_out, 3) + (o.aligned ? " (aligned: by line number)" : " (by line hash)"));
  if (o.languages.size() > 1) {
    m.emplace_back("training", o.per_language ? "one tokenizer per language"
                                              : "joint (one tokenizer for all languages)");
    if (o.aligned) m.emplace_back("parity reference", o.reference_language);
  }
  m.emplace_back("normalizer", o.normalizer.to_string());
  m.emplace_back("pre-tokenizer", o.pre_tokenizer.to_string());
  m.emplace_back("threads", std::to_string(resolve_threads(o.threads)));
  m.emplace_back("jobs", std::to_string(o.jobs));
  m.emplace_back("seed", std::to_string(o.seed));
  for (const auto& [algorithm, extra] : o.plugin_options)
    for (const auto& [key, value] : extra) m.emplace_back("option " + algorithm, key + "=" + value);
  std::vector<std::string> seen;
  for (const auto& row : result.rows)
    if (std::find(seen.begin(), seen.end(), row.algorithm) == seen.end()) {
      seen.push_back(row.algorithm);
      m.emplace_back("plugin " + row.algorithm,
                     row.plugin_version.empty() ? "-" : row.plugin_version);
    }
  return m;
}

ReportTable comparison_table(const CompareResult& result) {
  const bool multilingual = result.languages.size() > 1;
  const bool parity = multilingual && result.options.aligned;
  const std::string context = std::to_string(result.options.context_tokens / 1000) + "k";
  ReportTable t;
  t.title = "tokenlab compare";
  t.columns = {{"segmenter", ColumnKind::text,
                "plugin name, or NAME (pretrained) for a real model's tokenizer given with "
                "--tokenizer"}};
  if (multilingual)
    t.columns.push_back({"lang", ColumnKind::text, "language of the held-out text"});
  const std::vector<ReportColumn> metrics = {
      {"vocab", ColumnKind::integer, "vocabulary size reached, special tokens included"},
      {"tokens", ColumnKind::integer, "tokens produced on the held-out text"},
      {"tok/word", ColumnKind::real, "fertility: tokens per pre-tokenized word"},
      {"chars/tok", ColumnKind::real, "compression: characters per token"},
      {"bytes/tok", ColumnKind::real, "UTF-8 bytes per token"},
      {"split%", ColumnKind::real, "words split into 2+ tokens, percent"},
      {"unk tok%", ColumnKind::real, "unknown tokens / tokens, percent"},
      {"unk chr%", ColumnKind::real, "characters under unknown tokens / characters, percent"},
      {"unk word%", ColumnKind::real, "words containing an unknown token / words, percent"},
      {"byte fb%", ColumnKind::real,
       "byte-fallback tokens (<0xNN>, standing for characters outside the alphabet) / tokens, "
       "percent"},
      {"used%", ColumnKind::real,
       "vocabulary utilization: distinct tokens seen / vocabulary size, percent"},
      {"renyi", ColumnKind::real,
       "Renyi efficiency of the token distribution, alpha 2.5 (Zouhar et al. 2023)"},
  };
  t.columns.insert(t.columns.end(), metrics.begin(), metrics.end());
  if (parity)
    t.columns.push_back(
        {"parity", ColumnKind::real,
         "tokens / tokens of the reference language on the same segments (the premium)"});
  t.columns.push_back({"ctx chars " + context, ColumnKind::integer,
                       "characters of this text that fit in a context of " +
                           std::to_string(result.options.context_tokens) + " tokens",
                       false});
  t.columns.push_back({"ctx words " + context, ColumnKind::integer,
                       "words of this text that fit in a context of " +
                           std::to_string(result.options.context_tokens) + " tokens"});
  for (const std::size_t d : result.options.d_models) {
    const std::string ds = std::to_string(d);
    t.columns.push_back({"emb" + ds + " M", ColumnKind::real,
                         "embedding parameters V x " + ds + " (tied), millions"});
    t.columns.push_back({"untied" + ds + " M", ColumnKind::real,
                         "input + output embeddings 2 x V x " + ds + " (untied), millions", false});
    t.columns.push_back({"bf16 " + ds + " MB", ColumnKind::real,
                         "tied embedding bytes at bf16 (untied: twice this), MB", false});
  }
  t.columns.push_back({"train s", ColumnKind::real, "training wall time, seconds"});
  t.columns.push_back({"peak MiB", ColumnKind::real,
                       "peak resident memory of the process during this training, shared word "
                       "counts included (measured with --jobs 1)"});
  t.columns.push_back({"enc MB/s", ColumnKind::real, "held-out encoding throughput, all threads"});
  // The note is long prose: files carry it, the terminal prints it under the table.
  t.columns.push_back({"note", ColumnKind::text, "error or remark", false});
  for (const auto& row : result.rows) {
    std::vector<std::string> cells{row.pretrained ? row.algorithm + " (pretrained)"
                                                  : row.algorithm};
    if (multilingual) cells.push_back(row.language);
    if (!row.error.empty()) {
      add_error_row(t, std::move(cells), row.error);
      continue;
    }
    const auto& m = row.metrics;
    cells.push_back(std::to_string(m.vocabulary_size));
    cells.push_back(std::to_string(m.tokens));
    cells.push_back(fixed(m.fertility(), 3));
    cells.push_back(fixed(m.characters_per_token(), 3));
    cells.push_back(fixed(m.bytes_per_token(), 3));
    // A pretrained tokenizer's tokens do not map onto tokenlab's words.
    cells.push_back(row.pretrained ? "-" : fixed(100 * m.continued_word_rate(), 2));
    cells.push_back(fixed(100 * m.unknown_token_rate(), 3));
    cells.push_back(fixed(100 * m.unknown_character_rate(), 3));
    cells.push_back(fixed(100 * m.unknown_word_rate(), 3));
    cells.push_back(fixed(100 * m.byte_fallback_rate(), 3));
    cells.push_back(fixed(100 * m.vocabulary_utilization(), 1));
    cells.push_back(fixed(m.renyi_efficiency_2_5, 3));
    if (parity) cells.push_back(row.parity ? fixed(*row.parity, 3) : "-");
    const double ctx = static_cast<double>(result.options.context_tokens);
    cells.push_back(m.tokens
                        ? std::to_string(static_cast<std::uint64_t>(ctx * m.characters_per_token()))
                        : "-");
    cells.push_back(m.tokens ? std::to_string(static_cast<std::uint64_t>(ctx / m.fertility()))
                             : "-");
    for (const std::size_t d : result.options.d_models) {
      const EmbeddingCost cost = embedding_cost(m.vocabulary_size, d);
      cells.push_back(millions(cost.tied_parameters));
      cells.push_back(millions(cost.untied_parameters));
      cells.push_back(fixed(static_cast<double>(cost.tied_bf16_bytes()) / 1e6, 1));
    }
    cells.push_back(row.pretrained ? "-" : fixed(row.train_seconds, 2));
    cells.push_back(row.train_peak_mib >= 0 ? fixed(row.train_peak_mib, 1) : "-");
    cells.push_back(fixed(row.encode_mb_per_second, 1));
    cells.push_back(row.note);
    t.rows.push_back(std::move(cells));
  }
  t.metadata = run_metadata(result);
  return t;
}

ReportTable fairness_table(const CompareResult& result) {
  ReportTable t;
  t.title = "tokenlab fairness across languages";
  t.columns = {
      {"segmenter", ColumnKind::text, "plugin name"},
      {"lang", ColumnKind::text, "language"},
      {"tok/byte", ColumnKind::real, "tokens per UTF-8 byte of held-out text"},
      {"tok/char", ColumnKind::real, "tokens per character"},
      {"premium", ColumnKind::real, "tokens / reference-language tokens on the same segments"},
      {"gini", ColumnKind::real,
       "Gini coefficient of tokens per byte across languages (0 = equal)"}};
  for (const auto& row : result.rows) {
    if (!row.error.empty()) continue;
    const auto& m = row.metrics;
    const auto gini = result.gini_tokens_per_byte.find(row.algorithm);
    t.rows.push_back(
        {row.algorithm, row.language,
         fixed(m.bytes ? static_cast<double>(m.tokens) / static_cast<double>(m.bytes) : 0.0, 4),
         fixed(
             m.characters ? static_cast<double>(m.tokens) / static_cast<double>(m.characters) : 0.0,
             4),
         row.parity ? fixed(*row.parity, 3) : "-",
         gini == result.gini_tokens_per_byte.end() ? "-" : fixed(gini->second, 4)});
  }
  t.metadata = run_metadata(result);
  return t;
}

ReportTable sweep_table(const SweepResult& sweep) {
  ReportTable t;
  t.title = "tokenlab sweep";
  const bool multilingual = !sweep.runs.empty() && sweep.runs.front().languages.size() > 1;
  t.columns = {{"size", ColumnKind::integer, "vocabulary size requested"},
               {"segmenter", ColumnKind::text, "plugin name"}};
  if (multilingual) t.columns.push_back({"lang", ColumnKind::text, "language"});
  const std::size_t d = sweep.runs.empty() || sweep.runs.front().options.d_models.empty()
                            ? 768
                            : sweep.runs.front().options.d_models.front();
  const std::vector<ReportColumn> rest = {
      {"vocab", ColumnKind::integer, "vocabulary size reached"},
      {"tokens", ColumnKind::integer, "held-out tokens (sequence length)"},
      {"tok/char", ColumnKind::real, "tokens per character"},
      {"tok/word", ColumnKind::real, "fertility"},
      {"unk tok%", ColumnKind::real, "unknown tokens / tokens, percent"},
      {"unk word%", ColumnKind::real, "words with an unknown token, percent"},
      {"byte fb%", ColumnKind::real, "byte-fallback tokens / tokens, percent"},
      {"emb" + std::to_string(d) + " M", ColumnKind::real, "tied embedding parameters, millions"},
      {"train s", ColumnKind::real, "training seconds"},
      {"note", ColumnKind::text, "remark (sizes the corpus cannot reach) or error", false}};
  t.columns.insert(t.columns.end(), rest.begin(), rest.end());
  for (std::size_t i = 0; i < sweep.runs.size(); ++i) {
    for (const auto& row : sweep.runs[i].rows) {
      std::vector<std::string> cells{std::to_string(sweep.vocab_sizes[i]), row.algorithm};
      if (multilingual) cells.push_back(row.language);
      if (!row.error.empty()) {
        add_error_row(t, std::move(cells), row.error);
        continue;
      }
      const auto& m = row.metrics;
      cells.push_back(std::to_string(m.vocabulary_size));
      cells.push_back(std::to_string(m.tokens));
      cells.push_back(fixed(
          m.characters ? static_cast<double>(m.tokens) / static_cast<double>(m.characters) : 0.0,
          4));
      cells.push_back(fixed(m.fertility(), 3));
      cells.push_back(fixed(100 * m.unknown_token_rate(), 3));
      cells.push_back(fixed(100 * m.unknown_word_rate(), 3));
      cells.push_back(fixed(100 * m.byte_fallback_rate(), 3));
      cells.push_back(millions(embedding_cost(m.vocabulary_size, d).tied_parameters));
      cells.push_back(fixed(row.train_seconds, 2));
      cells.push_back(row.note);
      t.rows.push_back(std::move(cells));
    }
  }
  if (!sweep.runs.empty()) t.metadata = run_metadata(sweep.runs.front());
  t.metadata.erase(
      std::remove_if(t.metadata.begin(), t.metadata.end(),
                     [](const auto& kv) { return kv.first == "vocab size requested"; }),
      t.metadata.end());
  std::string sizes;
  for (const auto s : sweep.vocab_sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  t.metadata.emplace_back("vocab sizes", sizes);
  return t;
}

}  // namespace tokenlab
