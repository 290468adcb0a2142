// tokenlab encode: lines of text to ids or pieces, with any model encode reads.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands/id_text.hpp"
#include "commands/line_source.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/worker_pool.hpp"

namespace tokenlab::cli {

namespace {

// Encodes batches of lines with a loaded model (sampled when asked) and writes
// each line's ids or pieces; an error names the input line that caused it.
class LineEncoder {
 public:
  LineEncoder(const AnyModel& loaded, bool pieces, unsigned threads)
      : loaded_(loaded),
        encoder_(*loaded.encoder),
        pieces_(pieces),
        threads_(threads),
        pool_(threads) {}

  void sample_with(const SamplingOptions& options, std::uint64_t seed) {
    if (!loaded_.trained || !(loaded_.trained->segmenter().capabilities() & kCapabilitySampling))
      throw Error("'" + loaded_.kind + "' does not support sampling");
    sampling_ = options;
    rng_ = seed;
  }

  // Encodes the batch (the lines just read from source) and writes it.
  void flush(std::vector<std::string>& batch, const LineSource& source, std::ostream& out) {
    source_ = &source;
    if (sampling_) {
      write(encode_sampled(batch), out);
    } else if (const auto texts = encode_to_text(batch)) {
      for (const std::string& text : *texts)
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
    } else {
      write(encode(batch), out);  // a line failed: the one-by-one path names it
    }
    batch.clear();
  }

 private:
  // The batch's output text, in chunks of lines both encoded and formatted on
  // the worker threads (formatted on the main thread, the ids were the serial
  // part that kept 2 threads from 2x); the chunks are fixed by line number, so
  // the text is the same for any thread count. nullopt if any line failed.
  std::optional<std::vector<std::string>> encode_to_text(const std::vector<std::string>& batch) {
    constexpr std::size_t kChunk = 256;
    const std::size_t chunks = (batch.size() + kChunk - 1) / kChunk;
    const std::size_t vocabulary_size = encoder_.vocabulary_size();
    std::vector<std::string> texts(chunks);
    std::vector<char> failed(chunks, 0);
    pool_.run(chunks, [&](std::size_t c) {
      std::vector<TokenId> ids;
      std::string& text = texts[c];
      try {
        for (std::size_t i = c * kChunk; i < batch.size() && i < (c + 1) * kChunk; ++i) {
          ids.clear();
          encoder_.encode(batch[i], ids);
          check_ids(ids, vocabulary_size, loaded_.kind);
          append_line(ids, text);
        }
      } catch (const std::exception&) {
        failed[c] = 1;
      }
    });
    if (std::find(failed.begin(), failed.end(), 1) != failed.end()) return std::nullopt;
    return texts;
  }

  void append_line(const std::vector<TokenId>& ids, std::string& text) const {
    if (!pieces_) return id_text_.append_line(ids, text);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i) text += ' ';
      text += encoder_.display_piece(ids[i]);
    }
    text += '\n';
  }

  std::vector<std::vector<TokenId>> encode_sampled(const std::vector<std::string>& batch) {
    std::vector<std::vector<TokenId>> encoded;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      encoded.emplace_back();
      try {
        loaded_.trained->for_each_word(batch[i], [&](std::string_view w) {
          loaded_.trained->segmenter().encode_sampled(w, *sampling_, rng_, encoded.back());
        });
      } catch (const std::exception& e) {
        throw failed_line(batch, i, e);
      }
    }
    return encoded;
  }

  std::vector<std::vector<TokenId>> encode(const std::vector<std::string>& batch) const {
    try {
      return encoder_.encode_batch(batch, threads_);
    } catch (const std::exception&) {
      // A batch's error (a regex over its time limit, a plugin that threw) does not
      // know its line: find it by encoding the batch's lines one at a time.
      for (std::size_t i = 0; i < batch.size(); ++i) {
        try {
          (void)encoder_.encode_batch(std::span<const std::string>(&batch[i], 1), 1);
        } catch (const std::exception& e) {
          throw failed_line(batch, i, e);
        }
      }
      throw;
    }
  }

  void write(const std::vector<std::vector<TokenId>>& encoded, std::ostream& out) {
    const std::size_t vocabulary_size = encoder_.vocabulary_size();
    for (const auto& ids : encoded) {
      check_ids(ids, vocabulary_size, loaded_.kind);
      append_line(ids, text_);
      // One write a batch, not a line: a line of English is a few dozen ids.
      if (text_.size() >= (1u << 16)) flush_text(out);
    }
    flush_text(out);
  }

  void flush_text(std::ostream& out) {
    out.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }

  // Line i of the batch failed with e: the line's place, and the plugin when it
  // threw something other than an Error (which names what failed itself).
  [[nodiscard]] Error failed_line(const std::vector<std::string>& batch, std::size_t i,
                                  const std::exception& e) const {
    const std::uint64_t line_number = source_->line_number() - batch.size() + 1 + i;
    const std::string who =
        loaded_.trained ? "plugin '" + loaded_.kind + "'" : "the " + loaded_.kind + " model";
    return Error(source_->name() + ":" + std::to_string(line_number) + ": " +
                 (dynamic_cast<const Error*>(&e) != nullptr
                      ? std::string(e.what())
                      : who + " threw " + describe_exception(e) + " encoding this line"));
  }

  const AnyModel& loaded_;
  const TextEncoder& encoder_;
  const LineSource* source_ = nullptr;
  bool pieces_;
  unsigned threads_;
  std::optional<SamplingOptions> sampling_;
  std::uint64_t rng_ = 0;
  std::string text_;
  IdText id_text_;
  // The same threads for every batch, so that the encoders' per-thread caches
  // stay warm from one batch to the next.
  WorkerPool pool_;
};

}  // namespace

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
  check_output_path(output);
  check_not_an_input(output, {model, input});
  // Plugins only for a model tokenlab trained: a real model's tokenizer file
  // does not need them, and loading them was a fixed cost of every encode.
  PluginRegistry registry;
  const AnyModel loaded = load_any_model(
      model,
      [&]() -> const PluginRegistry& {
        load_plugins(registry, plugin_dirs);
        return registry;
      },
      format);
  LineEncoder encoder(loaded, pieces, threads);
  if (vm.count("dropout") > 0 || vm.count("alpha") > 0) {
    SamplingOptions sampling;
    if (vm.count("dropout") > 0) sampling.dropout = dropout;
    if (vm.count("alpha") > 0) sampling.alpha = alpha;
    encoder.sample_with(sampling, seed);
  }
  LineSource source(input);
  with_output(output, [&](std::ostream& out) {
    std::vector<std::string> batch;
    std::string line;
    while (source.next(line)) {
      if (auto bad = utf8::find_invalid(line))
        throw Error(source.where() + ": invalid UTF-8 at byte offset " + std::to_string(*bad));
      batch.push_back(line);
      if (batch.size() == 8192) encoder.flush(batch, source, out);
    }
    encoder.flush(batch, source, out);
  });
  return kExitOk;
}

}  // namespace tokenlab::cli
