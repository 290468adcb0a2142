#include "tokenlab/counting.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "block_table.hpp"
#include "simple_split.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"
#include "words_inert.hpp"

namespace tokenlab {

namespace {

// Counts of one block, in first-occurrence order within the block, for the
// merge; as a WordCounts when a block consumer takes them.
struct BlockCounts {
  detail::CountedBlock counted;
  WordCounts counts;
  std::vector<std::pair<std::string, std::string>> skipped_lines;  // raw, normalized
  std::uint64_t bytes = 0;
};

// Counts block into table. The unicode and whitespace pre-tokenizers (the
// default and its plainest variant) find words through the inlined splitter and
// hand them to the table with a marker flag; the others call back with each word
// as split() makes it. Flattened, so that the splitter, the table's lookups and
// the UTF-8 decoder are one loop: GCC kept utf8::decode_sequence out of line, a
// call per non-ASCII character (a fifth of counting Hindi on one thread).
//
// The inlined splitters cut at every kind of white space, so a line that
// normalizing could change only in its white space is split as it is, without
// normalizing: an ASCII line at once (no form changes ASCII but for its white
// space), another while the splitter checks each character (words_inert.hpp),
// keeping the words aside until the end of the line says whether they stand.
// Checking in the splitter's loop instead of a pass of its own halved the time
// Hindi and Japanese lines spent on the check. (Checking a line of mostly
// ASCII, a quarter of English Wikipedia's, in a pass of its own, so that its
// words could go straight to the table, was no faster.)
[[gnu::flatten]] void count_block(const CorpusBlock& block, const Normalizer& normalizer,
                                  const PreTokenizer& pre_tokenizer, const CountOptions& options,
                                  detail::BlockTable& table, BlockCounts& result) {
  std::string normalized;
  std::string scratch;
  const PreTokenizerOptions& pre = pre_tokenizer.options();
  const NormalizerOptions& form = normalizer.options();
  const bool inlined =
      pre.kind == PreTokenizerKind::unicode || pre.kind == PreTokenizerKind::whitespace;
  const bool checked =
      inlined && !form.lowercase && !form.strip_accents && form.form != NormalizationForm::bert;
  const bool whitespace_only = pre.kind == PreTokenizerKind::whitespace;
  const bool prefix = pre.marker == MarkerStyle::prefix;
  const bool suffix = pre.marker == MarkerStyle::suffix;
  const auto add_word = [&](std::string_view word) { table.add(word); };
  const auto count_words_of = [&](std::string_view text) {
    const char* text_end = text.data() + text.size();
    detail::split_simple<detail::Utf8Input::well_formed>(
        text, whitespace_only, [&](std::string_view word, bool space_before, bool space_after) {
          table.add_soon(word, (prefix && space_before) || (suffix && space_after),
                         static_cast<std::size_t>(text_end - word.data()));
        });
    table.flush();  // the words view text, which the next line replaces
  };
  struct LineWord {
    const char* data;
    std::size_t size;
    bool marked;
  };
  std::vector<LineWord> line_words;
  for (const auto& line : block.lines) {
    if (line.empty()) continue;
    if (options.keep_line && !options.keep_line(line)) {
      if (options.on_skipped_line) {
        normalizer.normalize(line, normalized);
        result.skipped_lines.emplace_back(line, normalized);
      }
      continue;
    }
    if (!inlined) {
      pre_tokenizer.split(normalizer.normalize_view(line, normalized), scratch, add_word);
      continue;
    }
    if (checked) {
      if (utf8::ascii_prefix_length(line) == line.size()) {
        count_words_of(line);
        continue;
      }
      line_words.clear();
      const bool unchanged = detail::split_simple<detail::Utf8Input::well_formed>(
          line, whitespace_only,
          [&](std::string_view word, bool space_before, bool space_after) {
            line_words.push_back(
                {word.data(), word.size(), (prefix && space_before) || (suffix && space_after)});
          },
          detail::WordsInertCheck(form.form));
      if (unchanged) {
        const char* line_end = line.data() + line.size();
        for (const LineWord& word : line_words)
          table.add_soon({word.data, word.size}, word.marked,
                         static_cast<std::size_t>(line_end - word.data));
        table.flush();
        continue;
      }
    }
    count_words_of(normalizer.normalize_view(line, normalized));
  }
  table.take(result.counted);
  result.bytes = block.bytes;
}

// About how many distinct words a corpus of this many bytes holds, rather
// more than fewer: Heaps' law, V = K n^b, with b = 0.6 as English Wikipedia
// gives it under the unicode pre-tokenizer (21,588 words in 1 MB, 341,545 in
// 100 MB: K = 5.4) and K = 12, which covers Japanese (95,412 words in 4.0 MB,
// K = 10.6), leaves Chinese one doubling short (99,554 in 3.2 MB, K = 12.4)
// and English twice its need in address space. Capped at 2^24 words (640 MB
// of address space).
std::size_t expected_distinct_words(std::uint64_t bytes) {
  const double estimate = 12.0 * std::pow(static_cast<double>(bytes), 0.6);
  return static_cast<std::size_t>(std::min(estimate, static_cast<double>(std::size_t{1} << 24)));
}

// count_words's pipeline. A reader thread (the caller's) feeds numbered blocks to
// workers through a bounded queue; finished blocks are merged strictly in
// sequence order, so the result is identical for every thread count. Merging in
// parallel (into hash partitions keyed by first occurrence) was measured too: it
// held a second copy of the table at the end, 113 MiB against 76 MiB on one
// thread for 100 MB of English, for no time that this machine could tell apart
// from its noise.
class OrderedCounting {
 public:
  OrderedCounting(const Normalizer& normalizer, const PreTokenizer& pre_tokenizer,
                  const CountOptions& options, unsigned threads)
      : normalizer_(normalizer),
        pre_tokenizer_(pre_tokenizer),
        options_(options),
        threads_(threads),
        max_queue_(2 * static_cast<std::size_t>(threads)) {}

  WordCounts run(CorpusReader& reader) {
    // With a block consumer the blocks' counts go to it, and total_ stays empty.
    if (!options_.on_block_counts) {
      try {
        total_.reserve_entries(expected_distinct_words(reader.size_hint()));
      } catch (const std::bad_alloc&) {  // a hint only: the table grows as it must
      }
    }
    start_workers();
    read_blocks(reader);
    {
      std::lock_guard lock(mutex_);
      reading_finished_ = true;
    }
    queue_changed_.notify_all();
    for (auto& t : pool_) t.join();
    if (error_) std::rethrow_exception(error_);
    merge_ready();  // blocks finished while the merger was busy
    return std::move(total_);
  }

 private:
  // Merges every finished block that is next in sequence, unless another worker
  // is merging (it will pick ours up). The merger looks again after letting the
  // merge lock go: a block that arrived between its last look and the release
  // found the lock taken, and its worker left it to the merger. Without that
  // second look the block waited in done_ for good, the blocks after it piled up
  // behind it, and the reader waited for room that never came (a CI run hung).
  void merge_ready() {
    for (;;) {
      if (!merge_turn()) return;
      std::lock_guard lock(mutex_);
      if (done_.find(next_to_merge_) == done_.end()) return;
    }
  }

  // One merger's turn: false when another worker holds the merge lock.
  bool merge_turn() {
    std::unique_lock merge_lock(merge_mutex_, std::try_to_lock);
    if (!merge_lock.owns_lock()) return false;
    for (;;) {
      BlockCounts ready;
      {
        std::lock_guard lock(mutex_);
        auto it = done_.find(next_to_merge_);
        if (it == done_.end()) return true;
        ready = std::move(it->second);
        done_.erase(it);
        ++next_to_merge_;
      }
      queue_changed_.notify_all();  // the reader may be waiting for room
      if (options_.on_block_counts)
        options_.on_block_counts(ready.counts);
      else
        total_.add_hashed(ready.counted.words);
      if (options_.on_skipped_line)
        for (const auto& [raw, normalized] : ready.skipped_lines)
          options_.on_skipped_line(raw, normalized);
      bytes_done_ += ready.bytes;
      if (options_.on_progress) options_.on_progress(bytes_done_);
    }
  }

  // Records the first error; every thread stops at its next look at the queue.
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(e);
    queue_changed_.notify_all();
  }

  void work() {
    detail::BlockTable table(pre_tokenizer_.options().marker == MarkerStyle::suffix);
    for (;;) {
      std::pair<std::uint64_t, CorpusBlock> item;
      {
        std::unique_lock lock(mutex_);
        queue_changed_.wait(lock, [&] { return !queue_.empty() || reading_finished_ || error_; });
        if (error_ || (queue_.empty() && reading_finished_)) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      queue_changed_.notify_all();
      BlockCounts result;
      try {
        count_block(item.second, normalizer_, pre_tokenizer_, options_, table, result);
        // Converted here, in parallel: the merge, which holds a lock, only adds.
        if (options_.on_block_counts) {
          result.counts.add_hashed(result.counted.words);
          result.counted = {};
        }
      } catch (...) {
        fail(std::current_exception());
        return;
      }
      {
        std::lock_guard lock(mutex_);
        done_.emplace(item.first, std::move(result));
      }
      try {
        merge_ready();
      } catch (...) {  // an overflow, or the block consumer's error (a full disk)
        fail(std::current_exception());
        return;
      }
    }
  }

  void start_workers() {
    try {
      for (unsigned t = 0; t < threads_; ++t) pool_.emplace_back([this] { work(); });
    } catch (const std::system_error& e) {
      {
        std::lock_guard lock(mutex_);
        reading_finished_ = true;
      }
      queue_changed_.notify_all();
      for (auto& t : pool_) t.join();
      throw thread_start_error(pool_.size(), threads_, e);
    }
  }

  void read_blocks(CorpusReader& reader) {
    try {
      std::uint64_t sequence = 0;
      CorpusBlock block;
      while (reader.next_block(block)) {
        std::unique_lock lock(mutex_);
        // Blocks counted but not yet merged count too: when merging is slow (a
        // table being spilled), the reader waits instead of piling them up.
        queue_changed_.wait(lock,
                            [&] { return queue_.size() + done_.size() < max_queue_ || error_; });
        if (error_) break;
        queue_.emplace_back(sequence++, std::move(block));
        lock.unlock();
        queue_changed_.notify_all();
        block = CorpusBlock{};
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  const Normalizer& normalizer_;
  const PreTokenizer& pre_tokenizer_;
  const CountOptions& options_;
  const unsigned threads_;
  const std::size_t max_queue_;
  WordCounts total_;
  std::uint64_t bytes_done_ = 0;
  std::mutex mutex_;
  std::condition_variable queue_changed_;
  std::deque<std::pair<std::uint64_t, CorpusBlock>> queue_;
  std::map<std::uint64_t, BlockCounts> done_;
  std::uint64_t next_to_merge_ = 0;
  bool reading_finished_ = false;
  std::exception_ptr error_;
  std::mutex merge_mutex_;
  std::vector<std::thread> pool_;
};

}  // namespace

WordCounts count_words(CorpusReader& reader, const Normalizer& normalizer,
                       const PreTokenizer& pre_tokenizer, const CountOptions& options) {
  OrderedCounting counting(normalizer, pre_tokenizer, options, resolve_threads(options.threads));
  return counting.run(reader);
}

std::string counts_settings_text(const NormalizerOptions& normalizer,
                                 const PreTokenizerOptions& pre_tokenizer) {
  return "normalizer=" + normalizer.to_string() + " pre-tokenizer=" + pre_tokenizer.to_string();
}

void check_counts_settings_text(std::string_view settings, const std::string& source) {
  if (settings.empty()) return;
  constexpr std::string_view kNormalizer = "normalizer=";
  constexpr std::string_view kPreTokenizer = " pre-tokenizer=";
  const auto split = settings.find(kPreTokenizer);
  try {
    if (!settings.starts_with(kNormalizer) || split == std::string_view::npos)
      throw Error("expected 'normalizer=... pre-tokenizer=...'");
    const auto normalizer =
        NormalizerOptions::parse(settings.substr(kNormalizer.size(), split - kNormalizer.size()));
    const auto pre_tokenizer =
        PreTokenizerOptions::parse(settings.substr(split + kPreTokenizer.size()));
    if (counts_settings_text(normalizer, pre_tokenizer) != settings)
      throw Error("not as tokenlab writes them");
  } catch (const Error& e) {
    throw Error(source + ": the counts settings '" +
                utf8::replace_invalid(settings.substr(0, 200)) +
                "' in the header are not valid: " + e.what());
  }
}

}  // namespace tokenlab
