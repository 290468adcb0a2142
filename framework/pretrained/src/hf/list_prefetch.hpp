// File: hf/list_prefetch.hpp (private to tokenlab_pretrained)
// model.vocab into a TokenTable and model.merges resolved to ids on a second
// thread, while the parser is still reading the rest of the tokenizer.json.
//
// Read on one thread, Gemma 3's 33 MB file is parsed (about half of loading it)
// and then its 262,144 tokens are inserted and its 514,906 merges looked up
// (about a third). The streamed lists (streamed_lists.hpp) are rows of views
// into the in-situ buffer that never move once written, so a second thread can
// take the vocabulary and the merges in chunks as the parser appends them (the
// vocabulary was taken whole when its object closed, until the tenth round:
// the thread then started 27 ms into Gemma 3's parse and finished 15 ms after
// it, docs/performance.md).
//
// The work is speculative and never decides anything: it does exactly what the
// serial reader does (TokenTable::reserve then insert_new over the rows;
// resolve_merges_into with no continuing prefix, "left right" strings split by
// split_merge), and at the first row or merge that would be an error it stops
// and the reader does the whole step itself, which throws the serial reader's
// error. So the tables are the same and the messages are the same, whatever the
// thread count.
//
//   ListPrefetch prefetch;                  // parser thread
//   handler.prefetch_into(prefetch);        // vocab_*, merges_* as it parses
//   ListPrefetch::Result r = prefetch.finish();  // after the parse: joined
//   if (r.vocabulary) the table is what read_vocab_object would build
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "hf/merge_ids.hpp"
#include "hf/streamed_lists.hpp"
#include "tokenlab/pretrained/token_table.hpp"

namespace tokenlab::hf_detail {

class ListPrefetch {
 public:
  struct Result {
    /// model.vocab's rows inserted as read_vocab_object inserts streamed rows;
    /// null when the prefetch did not run or a row would be an error.
    std::shared_ptr<TokenTable> vocabulary;
    /// Every streamed merge resolved against vocabulary with no continuing
    /// prefix (resolve_merges' ids); complete is false when a merge would be an
    /// error, the list was not streamed to its end, or the prefetch did not run.
    std::vector<MergeIds> merges;
    bool merges_complete = false;
  };

  ListPrefetch() = default;
  ListPrefetch(const ListPrefetch&) = delete;
  ListPrefetch& operator=(const ListPrefetch&) = delete;
  /// Stops the work and joins the thread (after a parse error, say).
  ~ListPrefetch();

  // ---- called by the parser's thread (ListDivertingHandler) ----
  /// rows[0, count) of the vocabulary are written and will not change; base
  /// must not move while the vocabulary is streamed (see abandoned), and it
  /// has room for capacity rows. Starts the thread.
  void vocab_published(const TokenTable::Row* base, std::size_t count, std::size_t capacity);
  /// The vocabulary object has closed: rows is final. Starts the thread if
  /// vocab_published has not; rows must stay unchanged until finish().
  void vocab_closed(std::span<const TokenTable::Row> rows);
  /// merges[0, count) are written and will not change; base is merges.data(),
  /// which must not move while the list is streamed (see abandoned).
  void merges_published(const StreamedLists::Merge* base, std::size_t count);
  /// The merges list has closed with count entries.
  void merges_closed(const StreamedLists::Merge* base, std::size_t count);
  /// A list is about to be reallocated or replayed into the document: waits
  /// until the thread reads no entry of either, and does no more.
  void abandoned();

  /// Joins the thread and hands over what it built.
  Result finish();

 private:
  void start();
  void run() noexcept;
  // Inserts the vocabulary's rows as they are published; false when it was
  // abandoned or a row would be an error.
  bool take_vocabulary(TokenTable& table);
  void stop() noexcept;
  // merges[0, count) written at base; closed: the list has ended.
  void publish(const StreamedLists::Merge* base, std::size_t count, bool closed);
  // The same for the vocabulary's rows (capacity: the room the list has), and
  // starts the thread.
  void publish_vocab(const TokenTable::Row* base, std::size_t count, std::size_t capacity,
                     bool closed);
  // Splits and resolves merges [begin, end) of base into merges_ (sized to
  // end); false at one the reader would refuse.
  bool resolve(const StreamedLists::Merge* base, std::size_t begin, std::size_t end,
               std::vector<std::pair<std::string_view, std::string_view>>& split);
  // Takes pieces of the last range until none is left (either thread).
  void resolve_shared() noexcept;

  std::mutex mutex_;
  std::condition_variable changed_;
  const TokenTable::Row* vocab_base_ = nullptr;  // guarded by mutex_
  std::size_t vocab_published_ = 0;              // guarded by mutex_
  std::size_t vocab_capacity_ = 0;               // guarded by mutex_
  bool vocab_closed_ = false;                    // guarded by mutex_
  const StreamedLists::Merge* base_ = nullptr;   // guarded by mutex_
  std::size_t published_ = 0;                    // guarded by mutex_
  bool closed_ = false;                          // guarded by mutex_
  bool abandoned_ = false;                       // guarded by mutex_
  bool reading_ = false;                         // the thread holds views into the list (mutex_)
  bool stopped_ = false;                         // the thread has returned (mutex_)
  bool sharing_ = false;  // the last range is being shared (mutex_; then fixed)
  // The last range, set with sharing_ and not changed after.
  const StreamedLists::Merge* tail_base_ = nullptr;
  std::size_t total_ = 0;
  std::atomic<std::size_t> next_{0};  // its first piece not yet taken
  std::atomic<bool> failed_{false};   // a merge or an allocation failed
  // The thread's own until sharing (then each writes its pieces); read by
  // finish() after the join.
  std::shared_ptr<TokenTable> vocabulary_;
  std::vector<MergeIds> merges_;
  std::thread thread_;
};

}  // namespace tokenlab::hf_detail
