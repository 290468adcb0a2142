#include "hf/list_prefetch.hpp"

#include <algorithm>
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
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ListPrefetch::vocab_closed(std::span<const TokenTable::Row> rows) {
  if (thread_.joinable()) return;
  try {
    thread_ = std::thread([this, rows] { run(rows); });
  } catch (const std::system_error&) {
    // No thread to be had: the reader does it all itself, as on one thread.
  }
}

void ListPrefetch::merges_published(const StreamedLists::Merge* base, std::size_t count) {
  {
    std::lock_guard lock(mutex_);
    if (abandoned_) return;
    base_ = base;
    published_ = count;
  }
  changed_.notify_all();
}

void ListPrefetch::merges_closed(const StreamedLists::Merge* base, std::size_t count) {
  {
    std::lock_guard lock(mutex_);
    if (abandoned_) return;
    base_ = base;
    published_ = count;
    closed_ = true;
  }
  changed_.notify_all();
}

void ListPrefetch::merges_abandoned() {
  std::unique_lock lock(mutex_);
  abandoned_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !reading_; });
}

ListPrefetch::Result ListPrefetch::finish() {
  {
    std::lock_guard lock(mutex_);
    // Nothing more will be published: a list still open now never closed.
    if (!closed_) abandoned_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  Result result;
  result.vocabulary = std::move(vocabulary_);
  if (result.vocabulary && merges_complete_) {
    result.merges = std::move(merges_);
    result.merges_complete = true;
  }
  return result;
}

void ListPrefetch::run(std::span<const TokenTable::Row> rows) noexcept {
  try {
    // As read_vocab_object with streamed rows; a row it would refuse stops it.
    auto table = std::make_shared<TokenTable>();
    table->reserve(rows.size());
    if (table->insert_new(rows) != rows.size()) return;
    vocabulary_ = std::move(table);
    std::vector<std::pair<std::string_view, std::string_view>> split;
    std::size_t done = 0;
    for (;;) {
      std::size_t available = 0;
      const StreamedLists::Merge* base = nullptr;
      bool closed = false;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return abandoned_ || closed_ || published_ > done; });
        if (abandoned_) return;
        available = published_;
        base = base_;
        closed = closed_;
        reading_ = true;
      }
      // The entries [done, available) do not change while reading_ is set.
      bool failed = false;
      while (done < available && !failed) {
        const std::size_t n = std::min(kPiece, available - done);
        split.clear();
        for (std::size_t i = done; i < done + n; ++i) {
          const auto& [first, second] = base[i];
          if (second.data() != nullptr) {
            split.emplace_back(first, second);
          } else if (const auto s = split_merge(first)) {
            split.push_back(*s);
          } else {
            failed = true;
            break;
          }
        }
        if (failed) break;
        merges_.resize(done + n);
        if (resolve_merges_into(*vocabulary_, split, "", std::span(merges_).subspan(done)) < n) {
          failed = true;
          break;
        }
        done += n;
        // Let an abandoning parser go as soon as this piece is done.
        std::lock_guard lock(mutex_);
        if (abandoned_) break;
      }
      {
        std::lock_guard lock(mutex_);
        reading_ = false;
      }
      changed_.notify_all();
      if (failed) return;
      if (closed && done == available) {
        merges_complete_ = true;
        return;
      }
    }
  } catch (...) {
    // Out of memory on the second thread, say: the reader does it on its own.
    std::lock_guard lock(mutex_);
    reading_ = false;
    vocabulary_.reset();
  }
  changed_.notify_all();
}

}  // namespace tokenlab::hf_detail
