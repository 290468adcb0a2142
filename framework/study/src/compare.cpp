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
#include <random>
#include <tuple>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/evaluation_protocol.hpp"
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
  // After each held-out line, the number of held-out words so far (its words' end).
  std::vector<std::size_t> held_out_words_after_line;
  // For pretrained tokenizers, which take raw text: the held-out lines as read.
  WordList raw_held_out;
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
    validate(o.training);
  }
  if (o.languages.empty()) {
    if (o.corpus_files.empty()) throw Error("no corpus files given");
    o.languages.push_back({"", o.corpus_files});
  }
  for (std::size_t i = 0; i < o.languages.size(); ++i)
    for (std::size_t j = i + 1; j < o.languages.size(); ++j)
      if (o.languages[i].language == o.languages[j].language)
        throw Error("language '" + o.languages[i].language + "' given twice");
  if (o.evaluate_only) {
    if (!o.algorithms.empty())
      throw Error("evaluate_only trains nothing: give no algorithms with it");
    if (o.pretrained.empty() && o.models.empty())
      throw Error(
          "nothing to compare: no algorithm is trained (--algorithms none) and no model or "
          "tokenizer is given (--model NAME=FILE, --tokenizer NAME=FILE)");
  } else if (o.algorithms.empty()) {
    for (const auto& p : registry.plugins()) o.algorithms.push_back(p.name);
    if (o.algorithms.empty()) throw Error("no plugins found (see 'tokenlab plugins')");
  }
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
  if (o.training_counts) {
    // Trained on other text (counts, or a training corpus counted first), evaluated
    // on every line of each evaluation corpus: one tokenizer for all languages.
    if (o.per_language)
      throw Error(
          "training on separate text makes one tokenizer for every evaluation language; "
          "--per-language needs each language's own training text (drop --eval, or compare "
          "each language on its own)");
    if (o.training_counts->empty()) throw Error("the training counts hold no words");
  }
  for (const auto& entry : o.models) {
    // The held-out words are cut by the run's normalizer and pre-tokenizer: a model
    // made with others would be measured on words it never sees in use.
    const auto normalizer = entry.tokenizer->normalizer().options().to_string();
    const auto pre_tokenizer = entry.tokenizer->pre_tokenizer().options().to_string();
    if (normalizer != o.normalizer.to_string() || pre_tokenizer != o.pre_tokenizer.to_string())
      throw Error(entry.source + ": the model was trained with normalizer " + normalizer +
                  " and pre-tokenizer " + pre_tokenizer + ", and this run uses " +
                  o.normalizer.to_string() + " and " + o.pre_tokenizer.to_string() +
                  ": give the run the model's --normalization, --lowercase, --pre-tokenizer and "
                  "--marker, or pass the model with --tokenizer (its own pipeline on whole lines)");
    for (const auto& name : o.algorithms)
      if (name == entry.name)
        throw Error("--model " + entry.name + " has the name of an algorithm trained in the run");
  }
  if (!o.baseline.empty()) {
    const auto labels = row_labels(o);
    if (std::find(labels.begin(), labels.end(), o.baseline) == labels.end()) {
      std::string known;
      for (const auto& l : labels) known += (known.empty() ? "" : ", ") + l;
      throw Error("the NSL baseline '" + o.baseline + "' is not a row of this run (rows: " + known +
                  ")");
    }
  }
  if (o.bootstrap_samples > kMaxBootstrapSamples)
    throw Error("bootstrap samples must be at most " + std::to_string(kMaxBootstrapSamples) +
                ", got " + std::to_string(o.bootstrap_samples));
  if (o.jobs == 0) o.jobs = 1;
  return o;
}

Prepared prepare(const CompareOptions& options, const ProgressFn& progress) {
  Prepared prepared;
  const HeldOutSplit split(options.held_out);
  const Normalizer normalizer(options.normalizer);
  const PreTokenizer pre_tokenizer(options.pre_tokenizer);
  const auto start = Clock::now();
  const bool every_line = options.evaluate_every_line || options.training_counts != nullptr;
  for (const auto& language : options.languages) {
    PreparedLanguage lang;
    lang.summary.language = language.language;
    CorpusReader reader(language.files, CorpusOptions{.invalid_utf8 = options.invalid_utf8});
    std::string scratch;
    std::string squeezed;
    std::string renormalized;
    const bool squeeze = options.protocol.squeeze_spaces;
    // Records one held-out line: its words for evaluation, the raw line for real
    // tokenizers, a few whole lines for the HTML samples. With squeeze_spaces the
    // line is cleaned as read, before the normalizer sees it.
    const bool keep_raw = !options.pretrained.empty();
    const auto hold_out = [&](std::string_view raw, std::string_view line) {
      if (squeeze) {
        squeezed = squeeze_spaces(raw);
        raw = squeezed;
        normalizer.normalize(raw, renormalized);
        line = renormalized;
      }
      ++lang.summary.held_out_lines;
      lang.summary.held_out_bytes += line.size();
      const std::uint64_t words = count_whitespace_words(raw);
      lang.summary.held_out_whitespace_words += words;
      if (words > 0) ++lang.summary.held_out_nonempty_lines;
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
      lang.held_out_words_after_line.push_back(lang.held_out.size());
      if (keep_raw) {
        lang.raw_held_out.text.append(raw);
        lang.raw_held_out.ends.push_back(lang.raw_held_out.text.size());
      }
    };
    CountOptions count;
    count.threads = options.training.threads;
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
          // Trained on other text: every aligned line is evaluation text.
          if (every_line || split.is_held_out(std::to_string(line_index)))
            hold_out(line, normalized);
          else
            pre_tokenizer.split(normalized, scratch,
                                [&](std::string_view w) { lang.counts.add(w); });
        }
      }
    } else if (every_line) {
      // Trained on other text, or not trained at all: every line is evaluated.
      count.keep_line = [](std::string_view) { return false; };
      count.on_skipped_line = hold_out;
      (void)count_words(reader, normalizer, pre_tokenizer, count);
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
    lang.summary.training_lines = every_line ? 0 : lang.summary.lines - lang.summary.held_out_lines;
    lang.summary.distinct_words = lang.counts.size();
    lang.summary.training_words = lang.counts.total();
    if (lang.counts.empty() && !every_line)
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
  if (options.aligned) {
    // Aligned means the same segments in every language: files of different
    // lengths would give premiums over different content.
    for (std::size_t i = 1; i < prepared.languages.size(); ++i) {
      const auto& first = prepared.languages.front().summary;
      const auto& other = prepared.languages[i].summary;
      if (other.lines != first.lines)
        throw Error("parallel text must align line by line, and " + first.language + " has " +
                    std::to_string(first.lines) + " lines and " + other.language + " has " +
                    std::to_string(other.lines) + " lines (" +
                    options.languages.front().files.front() + ", " +
                    options.languages[i].files.front() + ")");
    }
  }
  if (options.training_counts) {
    // Once, however many evaluation languages: the training text is one text.
    prepared.joint = *options.training_counts;
    const LongWords cut = leave_out_long_words(prepared.joint);
    prepared.long_words.distinct += cut.distinct;
    prepared.long_words.occurrences += cut.occurrences;
    for (auto& lang : prepared.languages) {
      lang.summary.distinct_words = prepared.joint.size();
      lang.summary.training_words = prepared.joint.total();
    }
    for (const auto& f : options.training_counts_files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      prepared.files.push_back({"training", f, ec ? 0 : size, sha1_of_file(f)});
    }
  }
  prepared.count_seconds = seconds_since(start);
  return prepared;
}

struct Task {
  std::string algorithm;
  std::size_t language = 0;  // index into prepared.languages (per-language training)
};

// Tokens of each held-out line of one row, for the bootstrap; empty when the
// tokens cannot be attributed to lines (a real tokenizer given whole documents).
using LineTokens = std::vector<std::uint32_t>;

// The counts every row adds once per language, whatever the tokenizer: lines,
// whitespace words and the characters nobody can give back.
void add_language_counts(MetricsAccumulator& total, const PreparedLanguage& lang) {
  total.add_text(lang.summary.held_out_nonempty_lines, lang.summary.held_out_whitespace_words);
}

// Evaluates a trained segmenter (trained here, or loaded from its .tkl) on one
// language's held-out words: every column as for every other trained row. Its
// pipeline cuts text into words before the segmenter sees it, so every
// EvaluationUnit gives it these tokens. pooled, if given, receives the counts.
LineTokens evaluate_segmenter(const Segmenter& segmenter, const CompareOptions& options,
                              const PreparedLanguage& lang, CompareRow& row,
                              std::vector<SampleSegmentation>& samples, std::mutex& samples_mutex,
                              MetricsAccumulator* pooled) {
  const unsigned threads = resolve_threads(options.training.threads);
  const std::size_t vocab = segmenter.vocabulary().size();
  // One accumulator per thread over a contiguous range of lines: the metrics are
  // integer sums, so the result does not depend on how the lines were divided.
  const std::vector<TokenId> byte_pieces = byte_fallback_ids(segmenter.vocabulary());
  std::vector<MetricsAccumulator> partial(
      threads, MetricsAccumulator(vocab, segmenter.vocabulary().unknown_id(), byte_pieces));
  const std::size_t lines = lang.held_out_words_after_line.size();
  LineTokens line_tokens(lines, 0);
  const auto encode_start = Clock::now();
  parallel_for(threads, threads, [&](std::size_t t) {
    std::vector<TokenId> ids;
    const std::size_t begin = lines * t / threads;
    const std::size_t end = lines * (t + 1) / threads;
    for (std::size_t line = begin; line < end; ++line) {
      const std::size_t first_word = line == 0 ? 0 : lang.held_out_words_after_line[line - 1];
      std::uint64_t tokens = 0;
      for (std::size_t i = first_word; i < lang.held_out_words_after_line[line]; ++i) {
        ids.clear();
        const auto word = lang.held_out.at(i);
        segmenter.encode(word, ids);
        partial[t].add_word(word, ids, segmenter);
        tokens += ids.size();
      }
      line_tokens[line] = static_cast<std::uint32_t>(std::min<std::uint64_t>(tokens, UINT32_MAX));
    }
  });
  row.encode_seconds = seconds_since(encode_start);
  MetricsAccumulator total(vocab, segmenter.vocabulary().unknown_id(), byte_pieces);
  for (const auto& p : partial) total.merge(p);
  add_language_counts(total, lang);
  // A literal U+2581 reads as a boundary marker: lost to every tokenizer alike.
  total.add_lost_characters(lang.summary.held_out_literal_markers);
  row.metrics = total.finish();
  if (pooled) pooled->merge(total);
  if (row.encode_seconds > 0)
    row.encode_mb_per_second =
        static_cast<double>(lang.held_out.text.size()) / 1e6 / row.encode_seconds;
  const PreTokenizer pre_tokenizer(options.pre_tokenizer);
  std::vector<SampleSegmentation> mine;
  for (const auto& text : lang.samples) {
    SampleSegmentation sample{lang.summary.language, text, row.algorithm, {}};
    std::string scratch;
    std::vector<TokenId> ids;
    pre_tokenizer.split(text, scratch, [&](std::string_view w) { segmenter.encode(w, ids); });
    for (const TokenId id : ids) sample.tokens.emplace_back(segmenter.display_piece(id), id);
    mine.push_back(std::move(sample));
  }
  std::lock_guard lock(samples_mutex);
  for (auto& s : mine) samples.push_back(std::move(s));
  return line_tokens;
}

// One label's rows (one per language it was evaluated on), each row's tokens
// per line, and the row over all languages pooled.
struct LabelEvaluation {
  std::vector<CompareRow> rows;
  std::vector<LineTokens> line_tokens;  // parallel to rows
  std::optional<CompareRow> pooled;
};

// Pooled rows exist where one tokenizer serves several languages.
bool pools(const CompareOptions& options, const Prepared& prepared) {
  return prepared.languages.size() > 1 && !options.per_language;
}

CompareRow pooled_row(const CompareRow& first, const MetricsAccumulator& pooled) {
  CompareRow row;
  row.algorithm = first.algorithm;
  row.language = "all";
  row.plugin_version = first.plugin_version;
  row.requested_vocab_size = first.requested_vocab_size;
  row.pretrained = first.pretrained;
  row.train_seconds = first.train_seconds;
  row.train_peak_mib = first.train_peak_mib;
  row.note = first.note;
  row.metrics = pooled.finish();
  return row;
}

// Trains one segmenter and evaluates it on each language it serves.
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
  } catch (const std::exception& e) {
    for (auto& row : rows) row.error = e.what();
  } catch (...) {
    for (auto& row : rows) row.error = "the plugin threw an exception that is not a std::exception";
  }
  return out;
}

// Evaluates a model trained before (--model) on every language, as a trained row.
LabelEvaluation evaluate_model(const CompareOptions& options, const Prepared& prepared,
                               const TrainedModelEntry& entry,
                               std::vector<SampleSegmentation>& samples,
                               std::mutex& samples_mutex) {
  LabelEvaluation out;
  const Segmenter& segmenter = entry.tokenizer->segmenter();
  std::optional<MetricsAccumulator> pooled;
  if (pools(options, prepared))
    pooled.emplace(segmenter.vocabulary().size(), segmenter.vocabulary().unknown_id(),
                   byte_fallback_ids(segmenter.vocabulary()));
  bool failed = false;
  for (const auto& lang : prepared.languages) {
    CompareRow row;
    row.algorithm = entry.name;
    row.language = lang.summary.language;
    row.plugin_version = segmenter.version();
    row.requested_vocab_size = segmenter.vocabulary().size();
    row.note = "model: " + entry.source + " (" + segmenter.name() + ")";
    row.train_seconds = -1.0;  // trained before: "-"
    LineTokens line_tokens;
    try {
      line_tokens = evaluate_segmenter(segmenter, options, lang, row, samples, samples_mutex,
                                       pooled ? &*pooled : nullptr);
    } catch (const std::exception& e) {
      row.error = e.what();
      failed = true;
    }
    out.rows.push_back(std::move(row));
    out.line_tokens.push_back(std::move(line_tokens));
  }
  if (pooled && !failed) out.pooled = pooled_row(out.rows.front(), *pooled);
  return out;
}

// The text one call of a real tokenizer is given, by unit: each line, each
// whitespace word of each line, or the lines joined by one space.
void encode_line_by_unit(const TextEncoder& encoder, EvaluationUnit unit, std::string_view line,
                         std::vector<TokenId>& ids) {
  if (unit != EvaluationUnit::word) {
    encoder.encode(line, ids);
    return;
  }
  std::vector<TokenId> word_ids;
  for_each_whitespace_word(line, [&](std::string_view word) {
    word_ids.clear();
    encoder.encode(word, word_ids);
    ids.insert(ids.end(), word_ids.begin(), word_ids.end());
  });
}

// Evaluates a tokenizer that is not trained here on every language's raw
// held-out text, given as the protocol's unit says (whole lines by default);
// words, characters and bytes come from the same held-out words as the trained
// rows, so every per-word and per-character figure compares.
LabelEvaluation evaluate_pretrained(const CompareOptions& options, const Prepared& prepared,
                                    const PretrainedEntry& entry,
                                    std::vector<SampleSegmentation>& samples) {
  LabelEvaluation out;
  const TextEncoder& encoder = *entry.encoder;
  const unsigned threads = resolve_threads(options.training.threads);
  const EvaluationUnit unit = options.protocol.unit;
  const std::vector<TokenId> byte_pieces = encoder.byte_fallback_ids();
  std::optional<MetricsAccumulator> pooled;
  if (pools(options, prepared))
    pooled.emplace(encoder.vocabulary_size(), encoder.unknown_id(), byte_pieces);
  bool failed = false;
  const auto decode = [&](std::span<const TokenId> known) { return encoder.decode(known); };
  for (const auto& lang : prepared.languages) {
    CompareRow row;
    row.algorithm = entry.name;
    row.language = lang.summary.language;
    row.plugin_version = "pretrained";
    row.pretrained = true;
    row.requested_vocab_size = encoder.vocabulary_size();
    LineTokens line_tokens;
    try {
      std::vector<MetricsAccumulator> partial(
          threads,
          MetricsAccumulator(encoder.vocabulary_size(), encoder.unknown_id(), byte_pieces));
      const std::size_t lines = lang.raw_held_out.size();
      // The characters and bytes of lines [first, last) under tokenlab's words.
      const auto line_counts = [&](std::size_t first, std::size_t last) {
        const std::size_t first_word = first == 0 ? 0 : lang.held_out_words_after_line[first - 1];
        const std::size_t last_word = last == 0 ? 0 : lang.held_out_words_after_line[last - 1];
        std::uint64_t characters = 0;
        std::uint64_t bytes = 0;
        for (std::size_t w = first_word; w < last_word; ++w) {
          const std::string_view word = lang.held_out.at(w);
          characters += surface_characters(word);
          bytes += surface_bytes(word);
        }
        return std::tuple{last_word - first_word, characters, bytes};
      };
      const auto encode_start = Clock::now();
      if (unit == EvaluationUnit::document) {
        // One string: the file's lines joined by one space (no final newline).
        std::string document;
        document.reserve(lang.raw_held_out.text.size() + lines);
        for (std::size_t i = 0; i < lines; ++i) {
          if (i > 0) document.push_back(' ');
          document.append(lang.raw_held_out.at(i));
        }
        std::vector<TokenId> ids;
        encoder.encode(document, ids);
        const auto [words, characters, bytes] = line_counts(0, lines);
        partial[0].add_line(ids, words, characters, bytes, decode);
      } else {
        line_tokens.assign(lines, 0);
        parallel_for(threads, threads, [&](std::size_t t) {
          std::vector<TokenId> ids;
          const std::size_t begin = lines * t / threads;
          const std::size_t end = lines * (t + 1) / threads;
          for (std::size_t i = begin; i < end; ++i) {
            ids.clear();
            encode_line_by_unit(encoder, unit, lang.raw_held_out.at(i), ids);
            const auto [words, characters, bytes] = line_counts(i, i + 1);
            partial[t].add_line(ids, words, characters, bytes, decode);
            line_tokens[i] =
                static_cast<std::uint32_t>(std::min<std::size_t>(ids.size(), UINT32_MAX));
          }
        });
      }
      row.encode_seconds = seconds_since(encode_start);
      MetricsAccumulator total(encoder.vocabulary_size(), encoder.unknown_id(), byte_pieces);
      for (const auto& p : partial) total.merge(p);
      add_language_counts(total, lang);
      row.metrics = total.finish();
      if (pooled) pooled->merge(total);
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
      failed = true;
    }
    out.rows.push_back(std::move(row));
    out.line_tokens.push_back(std::move(line_tokens));
  }
  if (pooled && !failed) out.pooled = pooled_row(out.rows.front(), *pooled);
  return out;
}

// 95% percentile interval of values (sorted here), interpolated as numpy does.
Interval percentile_interval(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return values[below] + (values[above] - values[below]) * fraction;
  };
  return {at(0.025), at(0.975)};
}

// Paired bootstrap over evaluation lines. Replicate b draws n lines with
// replacement from an engine seeded by (seed, b, n) alone, so every row of a
// language, and every language of aligned text (same n), is resampled with the
// same lines: the intervals are of paired differences and ratios. Each
// replicate is computed whole on one thread, so the result does not depend on
// the thread count.
void add_bootstrap_intervals(CompareResult& result, const std::vector<LineTokens>& line_tokens,
                             const std::string& reference, const std::string& baseline) {
  const auto& options = result.options;
  const std::size_t replicates = options.bootstrap_samples;
  auto& rows = result.rows;
  const auto find_row = [&](const std::string& label, const std::string& language) -> long {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].algorithm == label && rows[i].language == language && rows[i].error.empty() &&
          !line_tokens[i].empty())
        return static_cast<long>(i);
    return -1;
  };
  // Which rows take part: those with line tokens.
  std::vector<std::size_t> members;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].error.empty() && !line_tokens[i].empty()) members.push_back(i);
  if (members.empty() || replicates == 0) return;
  // sums[i][b]: row i's tokens over replicate b's lines.
  std::vector<std::vector<double>> sums(rows.size(), std::vector<double>(replicates, 0.0));
  parallel_for(replicates, resolve_threads(options.training.threads), [&](std::size_t b) {
    std::map<std::size_t, std::vector<std::uint32_t>> weights;  // by line count
    for (const std::size_t i : members) {
      const std::size_t n = line_tokens[i].size();
      auto [it, fresh] = weights.try_emplace(n);
      if (fresh) {
        it->second.assign(n, 0);
        std::mt19937_64 engine(options.training.seed ^ (0x9E3779B97F4A7C15ull * (b + 1)) ^
                               (0xC2B2AE3D27D4EB4Full * n));
        for (std::size_t k = 0; k < n; ++k) ++it->second[engine() % n];
      }
      double sum = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        sum += static_cast<double>(it->second[k]) * static_cast<double>(line_tokens[i][k]);
      sums[i][b] = sum;
    }
  });
  const auto interval_of = [&](auto&& value_of) -> std::optional<Interval> {
    std::vector<double> values;
    values.reserve(replicates);
    for (std::size_t b = 0; b < replicates; ++b) {
      const std::optional<double> v = value_of(b);
      if (!v) return std::nullopt;
      values.push_back(*v);
    }
    return percentile_interval(values);
  };
  const auto ratio_at = [&](long a, long d, std::size_t b) -> std::optional<double> {
    if (sums[static_cast<std::size_t>(d)][b] <= 0.0) return std::nullopt;
    return sums[static_cast<std::size_t>(a)][b] / sums[static_cast<std::size_t>(d)][b];
  };
  for (const std::size_t i : members) {
    auto& row = rows[i];
    const long self = static_cast<long>(i);
    const long ref = reference.empty() ? -1 : find_row(row.algorithm, reference);
    const long base = baseline.empty() ? -1 : find_row(baseline, row.language);
    if (ref >= 0 && row.premium)
      row.premium_interval = interval_of([&](std::size_t b) { return ratio_at(self, ref, b); });
    if (base >= 0 && row.nsl)
      row.nsl_interval = interval_of([&](std::size_t b) { return ratio_at(self, base, b); });
    const long base_ref =
        baseline.empty() || reference.empty() ? -1 : find_row(baseline, reference);
    if (ref >= 0 && base >= 0 && base_ref >= 0 && row.premium)
      row.premium_difference_interval = interval_of([&](std::size_t b) -> std::optional<double> {
        const auto mine = ratio_at(self, ref, b);
        const auto theirs = ratio_at(base, base_ref, b);
        if (!mine || !theirs) return std::nullopt;
        return *mine - *theirs;
      });
  }
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
  std::vector<LabelEvaluation> evaluations(tasks.size());
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
                   " at " + std::to_string(options.training.vocab_size),
               static_cast<double>(finished) / static_cast<double>(tasks.size()));
    }
    evaluations[i] = train_and_evaluate(registry, options, prepared, tasks[i], measure_memory,
                                        samples, samples_mutex);
    std::lock_guard lock(progress_mutex);
    ++finished;
  });
  for (const auto& entry : options.models) {
    if (progress) progress("encoding with " + entry.name, 1.0);
    evaluations.push_back(evaluate_model(options, prepared, entry, samples, samples_mutex));
  }
  for (const auto& entry : options.pretrained) {
    if (progress) progress("encoding with " + entry.name, 1.0);
    evaluations.push_back(evaluate_pretrained(options, prepared, entry, samples));
  }
  std::vector<LineTokens> line_tokens;
  for (auto& evaluation : evaluations) {
    for (std::size_t r = 0; r < evaluation.rows.size(); ++r) {
      result.rows.push_back(std::move(evaluation.rows[r]));
      line_tokens.push_back(std::move(evaluation.line_tokens[r]));
    }
    if (evaluation.pooled) result.pooled.push_back(std::move(*evaluation.pooled));
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

  // The premium and Gini compare what each language pays for the same content:
  // defined on aligned text only. Tokens per byte is no substitute (scripts spend
  // different bytes on a character): it made Llama 3 look fairest.
  std::string reference;
  if (prepared.languages.size() < 2) {
    result.premium_note = "premium and Gini: one language only";
  } else if (!options.aligned) {
    result.premium_note =
        "premium and Gini: not computed, the languages' texts are not line-aligned "
        "translations of each other (give --parallel DIR or --eval-parallel DIR for aligned text)";
  } else {
    reference = options.reference_language;
    for (auto& row : result.rows) {
      if (!row.error.empty()) continue;
      for (const auto& ref : result.rows)
        if (ref.algorithm == row.algorithm && ref.language == reference && ref.error.empty() &&
            ref.metrics.tokens > 0)
          row.premium =
              static_cast<double>(row.metrics.tokens) / static_cast<double>(ref.metrics.tokens);
    }
    for (const auto& algorithm : labels) {
      std::vector<double> tokens;
      bool complete = true;
      for (const auto& row : result.rows)
        if (row.algorithm == algorithm) {
          complete = complete && row.error.empty();
          tokens.push_back(static_cast<double>(row.metrics.tokens));
        }
      // Every language's count, or none: a Gini over the languages that happened
      // to succeed would be a different quantity under the same name.
      if (complete && tokens.size() > 1) result.gini[algorithm] = gini_coefficient(tokens);
    }
  }
  // NSL: each row's tokens over the baseline row's in the same language.
  if (!options.baseline.empty()) {
    const auto nsl_of = [&](std::vector<CompareRow>& rows) {
      for (auto& row : rows) {
        if (!row.error.empty()) continue;
        for (const auto& base : rows)
          if (base.algorithm == options.baseline && base.language == row.language &&
              base.error.empty() && base.metrics.tokens > 0)
            row.nsl =
                static_cast<double>(row.metrics.tokens) / static_cast<double>(base.metrics.tokens);
      }
    };
    nsl_of(result.rows);
    nsl_of(result.pooled);
  }
  if (options.bootstrap_samples > 0 && (!reference.empty() || !options.baseline.empty())) {
    add_bootstrap_intervals(result, line_tokens, reference, options.baseline);
    if (options.protocol.unit == EvaluationUnit::document && !options.pretrained.empty())
      result.bootstrap_note =
          "bootstrap intervals: none for real tokenizers under --unit document (one call per "
          "file gives no tokens per line to resample)";
  }
  return result;
}

}  // namespace

std::vector<std::string> row_labels(const CompareOptions& options) {
  std::vector<std::string> labels = options.algorithms;
  for (const auto& entry : options.models) labels.push_back(entry.name);
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
    at.training.vocab_size = size;
    sweep.runs.push_back(evaluate_all(registry, at, prepared, progress));
  }
  if (progress) progress("done", 1.0);
  return sweep;
}

}  // namespace tokenlab
