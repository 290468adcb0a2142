// Reading the comparison's corpora once: each language's lines split into
// training and held-out text, the training words counted, the held-out lines
// kept for evaluation, and each file's checksum for the report.
#include <boost/uuid/detail/sha1.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "compare_internal.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/training_counts.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::compare_detail {

namespace {

// The run's held-out split and text pipeline, the same for every language.
struct TextPipeline {
  explicit TextPipeline(const CompareOptions& options)
      : split(options.held_out),
        normalizer(options.normalizer),
        pre_tokenizer(options.pre_tokenizer) {}
  HeldOutSplit split;
  Normalizer normalizer;
  PreTokenizer pre_tokenizer;
};

// Trained on other text (counts, or a training corpus counted first), or not
// trained at all: every line of the corpora is evaluation text.
bool evaluates_every_line(const CompareOptions& options) {
  return options.evaluate_every_line || options.training_counts != nullptr;
}

// Records one language's held-out lines: each line's words for evaluation, the
// raw line for real tokenizers, a few whole lines for the HTML samples. With
// squeeze_spaces the line is cleaned as read, before the normalizer sees it.
class HeldOutRecorder {
 public:
  HeldOutRecorder(const CompareOptions& options, const TextPipeline& pipeline,
                  PreparedLanguage& lang)
      : options_(options), pipeline_(pipeline), lang_(lang) {}

  void operator()(std::string_view raw, std::string_view line) {
    if (options_.protocol.squeeze_spaces) {
      squeezed_ = squeeze_spaces(raw);
      raw = squeezed_;
      pipeline_.normalizer.normalize(raw, renormalized_);
      line = renormalized_;
    }
    count_line(raw, line);
    if (lang_.samples.size() < options_.sample_lines && !line.empty()) {
      lang_.samples.emplace_back(line);
      lang_.raw_samples.emplace_back(raw);
    }
    pipeline_.pre_tokenizer.split(line, scratch_, [&](std::string_view w) {
      lang_.held_out.text.append(w);
      lang_.held_out.ends.push_back(lang_.held_out.text.size());
    });
    lang_.held_out_words_after_line.push_back(lang_.held_out.size());
    if (!options_.pretrained.empty() || options_.audit || options_.agreement) {
      lang_.raw_held_out.text.append(raw);
      lang_.raw_held_out.ends.push_back(lang_.raw_held_out.text.size());
    }
  }

 private:
  // The line's share of the summary: bytes, whitespace words, literal markers.
  void count_line(std::string_view raw, std::string_view line) {
    LanguageSummary& summary = lang_.summary;
    ++summary.held_out_lines;
    summary.held_out_bytes += line.size();
    const std::uint64_t words = count_whitespace_words(raw);
    summary.held_out_whitespace_words += words;
    if (words > 0) ++summary.held_out_nonempty_lines;
    for (std::size_t at = line.find(kBoundaryMarker); at != std::string_view::npos;
         at = line.find(kBoundaryMarker, at + 1))
      ++summary.held_out_literal_markers;
  }

  const CompareOptions& options_;
  const TextPipeline& pipeline_;
  PreparedLanguage& lang_;
  std::string scratch_;
  std::string squeezed_;
  std::string renormalized_;
};

// Parallel text is split by line number, so every language holds out the same
// segments. count_words decides per line on worker threads, where line numbers
// are unknown; parallel test sets are small, so they are read here.
void split_by_line_number(CorpusReader& reader, const TextPipeline& pipeline, bool every_line,
                          PreparedLanguage& lang, HeldOutRecorder& hold_out) {
  std::uint64_t line_index = 0;
  CorpusBlock block;
  std::string normalized;
  std::string scratch;
  while (reader.next_block(block)) {
    for (const auto& line : block.lines) {
      ++line_index;
      pipeline.normalizer.normalize(line, normalized);
      // Trained on other text: every aligned line is evaluation text.
      if (every_line || pipeline.split.is_held_out(std::to_string(line_index)))
        hold_out(line, normalized);
      else
        pipeline.pre_tokenizer.split(normalized, scratch,
                                     [&](std::string_view w) { lang.counts.add(w); });
    }
  }
}

// Every line is evaluation text and nothing is counted for training.
void hold_out_every_line(CorpusReader& reader, const TextPipeline& pipeline,
                         const CompareOptions& options, HeldOutRecorder& hold_out) {
  CountOptions count;
  count.threads = options.training.threads;
  count.keep_line = [](std::string_view) { return false; };
  count.on_skipped_line = std::ref(hold_out);
  (void)count_words(reader, pipeline.normalizer, pipeline.pre_tokenizer, count);
}

// Split by content, so duplicated lines never straddle the split; the
// training lines are counted on worker threads.
WordCounts split_by_content(CorpusReader& reader, const TextPipeline& pipeline,
                            const CompareOptions& options, const LanguageCorpus& language,
                            HeldOutRecorder& hold_out, const ProgressFn& progress) {
  CountOptions count;
  count.threads = options.training.threads;
  count.keep_line = [&](std::string_view line) { return !pipeline.split.is_held_out(line); };
  count.on_skipped_line = std::ref(hold_out);
  count.on_progress = [&](std::uint64_t bytes) {
    if (progress)
      progress("counting " + (language.language.empty() ? std::string() : language.language + " ") +
                   "(" + std::to_string(bytes >> 20) + " MiB)",
               0.0);
  };
  return count_words(reader, pipeline.normalizer, pipeline.pre_tokenizer, count);
}

// Reads one language's corpus once: its training split's word counts and its
// held-out lines.
PreparedLanguage read_language(const CompareOptions& options, const TextPipeline& pipeline,
                               const LanguageCorpus& language, const ProgressFn& progress) {
  PreparedLanguage lang;
  lang.summary.language = language.language;
  CorpusReader reader(language.files, CorpusOptions{.invalid_utf8 = options.invalid_utf8});
  HeldOutRecorder hold_out(options, pipeline, lang);
  const bool every_line = evaluates_every_line(options);
  if (options.aligned)
    split_by_line_number(reader, pipeline, every_line, lang, hold_out);
  else if (every_line)
    hold_out_every_line(reader, pipeline, options, hold_out);
  else
    lang.counts = split_by_content(reader, pipeline, options, language, hold_out, progress);
  lang.summary.lines = reader.lines_read();
  return lang;
}

// Leaves the words too long to train on out of counts, and adds them to the
// run's tally.
void cut_long_words(WordCounts& counts, LongWords& tally) {
  const LongWords cut = leave_out_long_words(counts);
  tally.distinct += cut.distinct;
  tally.occurrences += cut.occurrences;
}

// The summary's training figures, once the long words are cut.
void summarize_training(PreparedLanguage& lang, bool every_line) {
  lang.summary.training_lines = every_line ? 0 : lang.summary.lines - lang.summary.held_out_lines;
  lang.summary.distinct_words = lang.counts.size();
  lang.summary.training_words = lang.counts.total();
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

// Each of the language's files, its size and SHA-1, for the run's metadata.
void add_file_infos(const LanguageCorpus& language, std::vector<CorpusFileInfo>& files) {
  for (const auto& f : language.files) {
    std::error_code ec;
    const auto size = f == "-" ? 0 : std::filesystem::file_size(f, ec);
    files.push_back({language.language, f, ec ? 0 : size, f == "-" ? "-" : sha1_of_file(f)});
  }
}

// Aligned means the same segments in every language: files of different
// lengths would give premiums over different content.
void check_aligned(const CompareOptions& options, const Prepared& prepared) {
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

// Trained on separate text: its counts are every language's training words.
// Once, however many evaluation languages: the training text is one text.
void use_training_counts(const CompareOptions& options, Prepared& prepared) {
  prepared.joint = *options.training_counts;
  cut_long_words(prepared.joint, prepared.long_words);
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

}  // namespace

Prepared prepare(const CompareOptions& options, const ProgressFn& progress) {
  Prepared prepared;
  const TextPipeline pipeline(options);
  const auto start = Clock::now();
  const bool every_line = evaluates_every_line(options);
  for (const auto& language : options.languages) {
    PreparedLanguage lang = read_language(options, pipeline, language, progress);
    cut_long_words(lang.counts, prepared.long_words);
    summarize_training(lang, every_line);
    if (lang.counts.empty() && !every_line)
      throw Error("the training split of " +
                  (language.language.empty() ? std::string("the corpus") : language.language) +
                  " is empty: lower --held-out or add text");
    add_file_infos(language, prepared.files);
    prepared.joint.merge(lang.counts);
    prepared.languages.push_back(std::move(lang));
  }
  if (options.aligned) check_aligned(options, prepared);
  if (options.training_counts) use_training_counts(options, prepared);
  prepared.count_seconds = seconds_since(start);
  return prepared;
}

}  // namespace tokenlab::compare_detail
