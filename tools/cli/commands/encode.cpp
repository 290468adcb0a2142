// tokenlab encode: lines of text to ids or pieces, with any model encode reads.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands/id_text.hpp"
#include "commands/line_batches.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/thread_caches.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/train_options.hpp"
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
  // pool: the threads that encode, the caller's among them.
  LineEncoder(const AnyModel& loaded, bool pieces, WorkerPool& pool)
      : loaded_(loaded), encoder_(*loaded.encoder), pieces_(pieces), pool_(pool) {}

  void sample_with(const SamplingOptions& options, std::uint64_t seed) {
    if (!loaded_.trained || !(loaded_.trained->segmenter().capabilities() & kCapabilitySampling))
      throw Error("'" + loaded_.kind + "' does not support sampling");
    sampling_ = options;
    rng_ = seed;
  }

  // Encodes every line of source and writes each line's ids or pieces to out,
  // in order. Every line is checked to be UTF-8 first; the first line in the
  // input that is not, or that fails to encode, is an Error naming it
  // ("input.txt:17: ..."), whatever the thread count.
  void encode_all(LineBatchReader& source, std::ostream& out) {
    source_name_ = &source.name();
    if (sampling_) {  // one stream of random numbers, drawn in line order
      LineBatch batch;
      while (source.next(batch, kBatchLines)) write(encode_sampled(batch), out);
      return;
    }
    // Two batches in flight: while the pool encodes one, this thread reads
    // the next and writes the one before (it then joins the pool in wait()).
    // Reading and writing on the thread that waited for each batch were the
    // serial part that kept 2 threads from 2x.
    Batch batches[2];
    std::size_t current = 0;
    // A small first batch: the other threads wait while it is read.
    bool more = source.next(batches[0].lines, kBatchLines, kFirstBatchBytes);
    bool pending = false;  // batches[1 - current] has text still to write
    while (more) {
      Batch& batch = batches[current];
      Batch& other = batches[1 - current];
      start_encoding(batch);
      std::exception_ptr io_error;  // after this batch's errors: they come first
      try {
        if (pending) write_texts(other.texts, out);
        more = source.next(other.lines, kBatchLines);  // LineBatchReader::kBatchBytes
      } catch (...) {
        io_error = std::current_exception();
        more = false;
      }
      pool_.wait();  // the chunks catch their own exceptions
      throw_first_failure(batch);
      if (io_error) std::rethrow_exception(io_error);
      pending = true;
      current = 1 - current;
    }
    if (pending) write_texts(batches[1 - current].texts, out);
  }

 private:
  static constexpr std::size_t kBatchLines = 8192;
  // Batches of about 1 MiB (the reader's), the first smaller: the first
  // batch's read and the last batch's write are serial, and 4 MiB batches made
  // them a few ms of a 10 MB file's 160 on two threads.
  static constexpr std::size_t kFirstBatchBytes = std::size_t{128} << 10;
  // A chunk, the unit a thread takes, ends after 64 lines or after the line
  // that brings it to 8 KiB: at a batch's end a thread waits at most one chunk
  // (64 lines of Wikipedia were 30 KB, nearly 1 ms of BERT).
  static constexpr std::size_t kChunkLines = 64;
  static constexpr std::size_t kChunkBytes = std::size_t{8} << 10;

  // What stopped a chunk: its first line that failed, and why.
  struct Failure {
    std::size_t line = 0;                     // index in the batch
    std::optional<std::size_t> invalid_utf8;  // the byte offset, or else error
    std::exception_ptr error;
  };
  // A batch of lines and its output text, in chunks: chunk c is lines
  // [chunk_starts[c], chunk_starts[c + 1]).
  struct Batch {
    LineBatch lines;
    std::vector<std::size_t> chunk_starts;
    std::vector<std::string> texts;
    std::vector<std::optional<Failure>> failures;
  };

  // Starts checking, encoding and formatting the batch's chunks on the pool
  // (formatted on the main thread, the ids were a serial part too); the chunks
  // are fixed by the lines themselves, so the text is the same for any thread
  // count.
  void start_encoding(Batch& batch) {
    const std::vector<std::string_view>& lines = batch.lines.lines;
    batch.chunk_starts.clear();
    std::size_t chunk_bytes = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i == 0 || chunk_bytes >= kChunkBytes || i - batch.chunk_starts.back() == kChunkLines) {
        batch.chunk_starts.push_back(i);
        chunk_bytes = 0;
      }
      chunk_bytes += lines[i].size() + 1;
    }
    const std::size_t chunks = batch.chunk_starts.size();
    batch.chunk_starts.push_back(lines.size());
    batch.texts.resize(chunks);
    for (std::string& text : batch.texts) text.clear();
    batch.failures.assign(chunks, std::nullopt);
    pool_.start(chunks, [this, &batch](std::size_t c) { encode_chunk(batch, c); });
  }

  void encode_chunk(Batch& batch, std::size_t c) const noexcept {
    const std::vector<std::string_view>& lines = batch.lines.lines;
    // Filled here and put back at the end: appended to in place, neighbouring
    // chunks' strings, which share a cache line, would have both cores write
    // it on every id.
    std::string text;
    text.swap(batch.texts[c]);
    struct PutBack {
      std::string& text;
      std::string& slot;
      ~PutBack() { slot.swap(text); }
    } put_back{text, batch.texts[c]};
    const std::size_t vocabulary_size = encoder_.vocabulary_size();
    std::vector<TokenId> ids;
    for (std::size_t i = batch.chunk_starts[c]; i < batch.chunk_starts[c + 1]; ++i) {
      if (const auto bad = utf8::find_invalid(lines[i])) {
        batch.failures[c] = Failure{i, bad, nullptr};
        return;
      }
      try {
        ids.clear();
        encoder_.encode(lines[i], ids);
        check_ids(ids, vocabulary_size, loaded_.kind);
        append_line(ids, text);
      } catch (...) {
        batch.failures[c] = Failure{i, std::nullopt, std::current_exception()};
        return;
      }
    }
  }

  // Throws for the batch's first failed line: chunks are in line order, and
  // each stopped at its first failure.
  void throw_first_failure(const Batch& batch) const {
    for (const auto& failure : batch.failures) {
      if (!failure) continue;
      if (failure->invalid_utf8)
        throw Error(line_place(batch.lines, failure->line) + ": invalid UTF-8 at byte offset " +
                    std::to_string(*failure->invalid_utf8));
      try {
        std::rethrow_exception(failure->error);
      } catch (const std::exception& e) {
        throw failed_line(batch.lines, failure->line, e);
      }  // anything else thrown, not a std::exception, goes on as it is
    }
  }

  static void write_texts(const std::vector<std::string>& texts, std::ostream& out) {
    for (const std::string& text : texts)
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

  void append_line(const std::vector<TokenId>& ids, std::string& text) const {
    if (!pieces_) return id_text_.append_line(ids, text);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i) text += ' ';
      text += encoder_.display_piece(ids[i]);
    }
    text += '\n';
  }

  std::vector<std::vector<TokenId>> encode_sampled(const LineBatch& batch) {
    std::vector<std::vector<TokenId>> encoded;
    for (std::size_t i = 0; i < batch.lines.size(); ++i) {
      const std::string_view line = batch.lines[i];
      if (const auto bad = utf8::find_invalid(line))
        throw Error(line_place(batch, i) + ": invalid UTF-8 at byte offset " +
                    std::to_string(*bad));
      encoded.emplace_back();
      try {
        loaded_.trained->for_each_word(line, [&](std::string_view w) {
          loaded_.trained->segmenter().encode_sampled(w, *sampling_, rng_, encoded.back());
        });
      } catch (const std::exception& e) {
        throw failed_line(batch, i, e);
      }
    }
    return encoded;
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

  // "input.txt:17": where line i of the batch is.
  [[nodiscard]] std::string line_place(const LineBatch& batch, std::size_t i) const {
    return *source_name_ + ":" + std::to_string(batch.first_line + i);
  }

  // Line i of the batch failed with e: the line's place, and the plugin when it
  // threw something other than an Error (which names what failed itself).
  [[nodiscard]] Error failed_line(const LineBatch& batch, std::size_t i,
                                  const std::exception& e) const {
    const std::string who =
        loaded_.trained ? "plugin '" + loaded_.kind + "'" : "the " + loaded_.kind + " model";
    return Error(line_place(batch, i) + ": " +
                 (dynamic_cast<const Error*>(&e) != nullptr
                      ? std::string(e.what())
                      : who + " threw " + describe_exception(e) + " encoding this line"));
  }

  const AnyModel& loaded_;
  const TextEncoder& encoder_;
  const std::string* source_name_ = nullptr;
  bool pieces_;
  std::optional<SamplingOptions> sampling_;
  std::uint64_t rng_ = 0;
  std::string text_;
  IdText id_text_;
  // The same threads for every batch, so that the encoders' per-thread caches
  // stay warm from one batch to the next.
  WorkerPool& pool_;
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
  // The pool's helpers make their encoding caches while this thread loads the
  // model: otherwise each paid the kernel's zeroing of 5 MiB of fresh pages in
  // its first batch, while the others waited at the batch's end (1 to 20 ms
  // of a 10 MB file's 75 on two threads; docs/performance.md, twenty-fifth round).
  WorkerPool pool(threads);
  if (pool.threads() > 1)
    pool.start(pool.threads() - 1, [](std::size_t) { prepare_thread_caches(); });
  // (Should the load throw, the pool's destructor lets the helpers finish.)
  const AnyModel loaded = load_any_model(
      model,
      [&]() -> const PluginRegistry& {
        load_plugins(registry, plugin_dirs);
        return registry;
      },
      format, resolve_threads(threads));
  pool.wait();
  LineEncoder encoder(loaded, pieces, pool);
  if (vm.count("dropout") > 0 || vm.count("alpha") > 0) {
    SamplingOptions sampling;
    if (vm.count("dropout") > 0) sampling.dropout = dropout;
    if (vm.count("alpha") > 0) sampling.alpha = alpha;
    encoder.sample_with(sampling, seed);
  }
  LineBatchReader source(input);
  with_output(output, [&](std::ostream& out) { encoder.encode_all(source, out); });
  return exit_without_teardown(kExitOk);  // the model is not taken apart
}

}  // namespace tokenlab::cli
