// Measuring one tokenizer on the held-out text of each language: a segmenter
// on the pre-tokenized words, a real tokenizer on the raw lines; the rows'
// metrics, tokens per line for the bootstrap, and the segmented samples.
#include <algorithm>
#include <numeric>
#include <span>
#include <tuple>

#include "compare_internal.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"

namespace tokenlab::compare_detail {

namespace {

// The counts every row adds once per language, whatever the tokenizer: lines,
// whitespace words and the characters nobody can give back.
void add_language_counts(MetricsAccumulator& total, const PreparedLanguage& lang) {
  total.add_text(lang.summary.held_out_nonempty_lines, lang.summary.held_out_whitespace_words);
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

}  // namespace

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
  if (!failed) {
    std::vector<std::size_t> every(prepared.languages.size());
    std::iota(every.begin(), every.end(), std::size_t{0});
    // Tokenizer takes a mutable segmenter; the studies only encode with it.
    add_segmenter_studies(
        options, prepared, every, entry.name,
        std::shared_ptr<Segmenter>(entry.tokenizer, const_cast<Segmenter*>(&segmenter)), out,
        samples, samples_mutex);
  }
  return out;
}

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

}  // namespace tokenlab::compare_detail
