#include "tokenlab/counting.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "block_table.hpp"
#include "simple_split.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"

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
// as split() makes it.
void count_block(const CorpusBlock& block, const Normalizer& normalizer,
                 const PreTokenizer& pre_tokenizer, const CountOptions& options,
                 detail::BlockTable& table, BlockCounts& result) {
  std::string normalized;
  std::string scratch;
  const PreTokenizerOptions& pre = pre_tokenizer.options();
  const bool inlined =
      pre.kind == PreTokenizerKind::unicode || pre.kind == PreTokenizerKind::whitespace;
  const bool whitespace_only = pre.kind == PreTokenizerKind::whitespace;
  const bool prefix = pre.marker == MarkerStyle::prefix;
  const bool suffix = pre.marker == MarkerStyle::suffix;
  const auto add_word = [&](std::string_view word) { table.add(word); };
  for (const auto& line : block.lines) {
    if (line.empty()) continue;
    if (options.keep_line && !options.keep_line(line)) {
      if (options.on_skipped_line) {
        normalizer.normalize(line, normalized);
        result.skipped_lines.emplace_back(line, normalized);
      }
      continue;
    }
    const std::string_view text = normalizer.normalize_view(line, normalized);
    if (inlined) {
      const char* text_end = text.data() + text.size();
      detail::split_simple(
          text, whitespace_only, [&](std::string_view word, bool space_before, bool space_after) {
            table.add_soon(word, (prefix && space_before) || (suffix && space_after),
                           static_cast<std::size_t>(text_end - word.data()));
          });
      table.flush();  // the words view text, which the next line replaces
    } else {
      pre_tokenizer.split(text, scratch, add_word);
    }
  }
  table.take(result.counted);
  result.bytes = block.bytes;
}

}  // namespace

WordCounts count_words(CorpusReader& reader, const Normalizer& normalizer,
                       const PreTokenizer& pre_tokenizer, const CountOptions& options) {
  const unsigned threads = resolve_threads(options.threads);
  WordCounts total;
  std::uint64_t bytes_done = 0;

  // A reader thread (the caller's) feeds numbered blocks to workers through a
  // bounded queue; finished blocks are merged strictly in sequence order, so the
  // result is identical for every thread count. Merging in parallel (into hash
  // partitions keyed by first occurrence) was measured too: it held a second
  // copy of the table at the end, 113 MiB against 76 MiB on one thread for 100 MB of English,
  // for no time that this machine could tell apart from its noise.
  std::mutex mutex;
  std::condition_variable queue_changed;
  std::deque<std::pair<std::uint64_t, CorpusBlock>> queue;
  std::map<std::uint64_t, BlockCounts> done;
  std::uint64_t next_to_merge = 0;
  bool reading_finished = false;
  std::exception_ptr error;
  const std::size_t max_queue = 2 * static_cast<std::size_t>(threads);
  std::mutex merge_mutex;

  const auto merge_ready = [&] {
    std::unique_lock merge_lock(merge_mutex, std::try_to_lock);
    if (!merge_lock.owns_lock()) return;  // another worker is merging; it will pick ours up
    for (;;) {
      BlockCounts ready;
      {
        std::lock_guard lock(mutex);
        auto it = done.find(next_to_merge);
        if (it == done.end()) return;
        ready = std::move(it->second);
        done.erase(it);
        ++next_to_merge;
      }
      queue_changed.notify_all();  // the reader may be waiting for room
      if (options.on_block_counts)
        options.on_block_counts(ready.counts);
      else
        total.add_hashed(ready.counted.words);
      if (options.on_skipped_line)
        for (const auto& [raw, normalized] : ready.skipped_lines)
          options.on_skipped_line(raw, normalized);
      bytes_done += ready.bytes;
      if (options.on_progress) options.on_progress(bytes_done);
    }
  };

  const bool marker_after = pre_tokenizer.options().marker == MarkerStyle::suffix;
  const auto worker = [&] {
    detail::BlockTable table(marker_after);
    for (;;) {
      std::pair<std::uint64_t, CorpusBlock> item;
      {
        std::unique_lock lock(mutex);
        queue_changed.wait(lock, [&] { return !queue.empty() || reading_finished || error; });
        if (error || (queue.empty() && reading_finished)) return;
        item = std::move(queue.front());
        queue.pop_front();
      }
      queue_changed.notify_all();
      BlockCounts result;
      try {
        count_block(item.second, normalizer, pre_tokenizer, options, table, result);
        // Converted here, in parallel: the merge, which holds a lock, only adds.
        if (options.on_block_counts) {
          result.counts.add_hashed(result.counted.words);
          result.counted = {};
        }
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        queue_changed.notify_all();
        return;
      }
      {
        std::lock_guard lock(mutex);
        done.emplace(item.first, std::move(result));
      }
      try {
        merge_ready();
      } catch (...) {  // an overflow, or the block consumer's error (a full disk)
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        queue_changed.notify_all();
        return;
      }
    }
  };

  std::vector<std::thread> pool;
  try {
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(mutex);
      reading_finished = true;
    }
    queue_changed.notify_all();
    for (auto& t : pool) t.join();
    throw thread_start_error(pool.size(), threads, e);
  }
  try {
    std::uint64_t sequence = 0;
    CorpusBlock block;
    while (reader.next_block(block)) {
      std::unique_lock lock(mutex);
      // Blocks counted but not yet merged count too: when merging is slow (a
      // table being spilled), the reader waits instead of piling them up.
      queue_changed.wait(lock, [&] { return queue.size() + done.size() < max_queue || error; });
      if (error) break;
      queue.emplace_back(sequence++, std::move(block));
      lock.unlock();
      queue_changed.notify_all();
      block = CorpusBlock{};
    }
  } catch (...) {
    std::lock_guard lock(mutex);
    if (!error) error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex);
    reading_finished = true;
  }
  queue_changed.notify_all();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  merge_ready();  // blocks finished while the merger was busy
  return total;
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
