#include "hf/list_prefetch.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <utility>

namespace tokenlab::hf_detail {
namespace {

// Merges resolved between looks at the flags, so that an abandoned list is let
// go of within a few hundred microseconds.
constexpr std::size_t kPiece = 4096;

}  // namespace

ListPrefetch::~ListPrefetch() {
  stop();
}

void ListPrefetch::stop() noexcept {
  {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
  }
  failed_ = true;  // a shared last range is given up too (after finish(), nothing to give up)
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ListPrefetch::start() {
  if (thread_.joinable()) return;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread to be had: the reader does it all itself, as on one thread.
  }
}

void ListPrefetch::vocab_published(const TokenTable::Row* base, std::size_t count,
                                   std::size_t capacity) {
  publish_vocab(base, count, capacity, false);
}

void ListPrefetch::vocab_closed(std::span<const TokenTable::Row> rows) {
  publish_vocab(rows.data(), rows.size(), rows.size(), true);
}

void ListPrefetch::publish_vocab(const TokenTable::Row* base, std::size_t count,
                                 std::size_t capacity, bool closed) {
  {
    std::lock_guard lock(mutex_);
    if (abandoned_) return;
    vocab_base_ = base;
    vocab_published_ = count;
    vocab_capacity_ = capacity;
    vocab_closed_ = closed;
  }
  changed_.notify_all();
  start();
}

void ListPrefetch::merges_published(const StreamedLists::Merge* base, std::size_t count) {
  publish(base, count, false);
}

void ListPrefetch::merges_closed(const StreamedLists::Merge* base, std::size_t count) {
  publish(base, count, true);
}

void ListPrefetch::publish(const StreamedLists::Merge* base, std::size_t count, bool closed) {
  {
    std::lock_guard lock(mutex_);
    if (abandoned_) return;
    base_ = base;
    published_ = count;
    closed_ = closed;
  }
  changed_.notify_all();
}

void ListPrefetch::abandoned() {
  std::unique_lock lock(mutex_);
  abandoned_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !reading_; });
}

ListPrefetch::Result ListPrefetch::finish() {
  bool share = false;
  {
    std::unique_lock lock(mutex_);
    // Nothing more will be published: a list still open now never closed.
    if (!closed_ || !vocab_closed_) abandoned_ = true;
    changed_.notify_all();
    // The merges the thread has not resolved when the parse ends are shared
    // with this thread, which would otherwise wait for them.
    if (thread_.joinable()) changed_.wait(lock, [&] { return sharing_ || stopped_; });
    share = sharing_;
  }
  if (share) resolve_shared();
  if (thread_.joinable()) thread_.join();
  Result result;
  result.vocabulary = std::move(vocabulary_);
  if (result.vocabulary && sharing_ && !failed_.load()) {
    result.merges = std::move(merges_);
    result.merges_complete = true;
  }
  return result;
}

bool ListPrefetch::resolve(const StreamedLists::Merge* base, std::size_t begin, std::size_t end,
                           std::vector<std::pair<std::string_view, std::string_view>>& split) {
  split.clear();
  for (std::size_t i = begin; i < end; ++i) {
    const auto& [first, second] = base[i];
    if (second.data() != nullptr) {
      split.emplace_back(first, second);
    } else if (const auto s = split_merge(first)) {
      split.push_back(*s);
    } else {
      return false;
    }
  }
  return resolve_merges_into(*vocabulary_, split, "", std::span(merges_).subspan(begin)) ==
         end - begin;
}

void ListPrefetch::resolve_shared() noexcept {
  try {
    std::vector<std::pair<std::string_view, std::string_view>> split;
    while (!failed_.load(std::memory_order_relaxed)) {
      const std::size_t begin = next_.fetch_add(kPiece);
      if (begin >= total_) return;
      if (!resolve(tail_base_, begin, std::min(begin + kPiece, total_), split)) failed_ = true;
    }
  } catch (...) {
    failed_ = true;  // out of memory, say: the reader does it all on its own
  }
}

bool ListPrefetch::take_vocabulary(TokenTable& table) {
  // As read_vocab_object with streamed rows, chunk by chunk as the parser
  // publishes them; a row it would refuse stops it.
  std::size_t done = 0;
  for (;;) {
    const TokenTable::Row* base = nullptr;
    std::size_t available = 0;
    bool closed = false;
    std::size_t capacity = 0;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return abandoned_ || vocab_closed_ || vocab_published_ > done; });
      // A closed vocabulary is final and stays until finish(): it is taken up
      // even when the merges were let go of (or never came: finish() gives
      // up on a list still open, which a WordPiece file's merges always are).
      if (abandoned_ && !vocab_closed_) return false;
      base = vocab_base_;
      available = vocab_published_;
      closed = vocab_closed_;
      capacity = vocab_capacity_;
      reading_ = true;
    }
    // The rows [done, available) do not change while reading_ is set.
    if (done == 0) {
      if (closed)
        table.reserve(available);  // the whole vocabulary at once: as the serial reader
      else
        table.reserve_rows(capacity);  // the list's room bounds the rows; the hash grows
    }
    if (table.insert_new(std::span(base + done, available - done)) != available - done)
      return false;
    done = available;
    {
      std::lock_guard lock(mutex_);
      reading_ = false;
    }
    changed_.notify_all();
    if (closed) return true;
  }
}

void ListPrefetch::run() noexcept {
  // Whatever way it ends, finish() must not wait for it any longer.
  struct Stopped {
    ListPrefetch& prefetch;
    ~Stopped() {
      {
        std::lock_guard lock(prefetch.mutex_);
        prefetch.reading_ = false;
        prefetch.stopped_ = true;
      }
      prefetch.changed_.notify_all();
    }
  } stopped{*this};
  try {
    auto table = std::make_shared<TokenTable>();
    if (!take_vocabulary(*table)) return;
    vocabulary_ = std::move(table);
    std::vector<std::pair<std::string_view, std::string_view>> split;
    std::size_t done = 0;
    for (;;) {
      std::size_t available = 0;
      const StreamedLists::Merge* base = nullptr;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return abandoned_ || closed_ || published_ > done; });
        if (abandoned_) return;
        if (closed_) {
          // The rest is shared with the parser's thread (finish()): the list
          // is whole, merges_ takes its last size, and each takes pieces.
          merges_.resize(published_);
          tail_base_ = base_;
          total_ = published_;
          next_.store(done);
          sharing_ = true;
          lock.unlock();
          changed_.notify_all();
          resolve_shared();
          return;
        }
        available = published_;
        base = base_;
        reading_ = true;
      }
      // The entries [done, available) do not change while reading_ is set.
      while (done < available) {
        const std::size_t n = std::min(kPiece, available - done);
        merges_.resize(done + n);
        if (!resolve(base, done, done + n, split)) return;
        done += n;
        // Let an abandoning parser go as soon as this piece is done; once the
        // list has closed, share what is left of this range too.
        std::lock_guard lock(mutex_);
        if (abandoned_ || closed_) break;
      }
      {
        std::lock_guard lock(mutex_);
        reading_ = false;
      }
      changed_.notify_all();
    }
  } catch (...) {
    // Out of memory on the second thread, say: the reader does it on its own.
    failed_ = true;
  }
}

}  // namespace tokenlab::hf_detail
