// model.vocab ({token: id}) and model.merges of a tokenizer.json, taken from the
// parser's event stream as it goes rather than from a DOM built first.
//
// As DOM values, GPT-4o's 200,000 vocabulary members and 200,000 merges filled
// about 20 MB (a member is two 16-byte values, a [left, right] pair three, and
// RapidJSON's parse stack gathers each object and array before copying it into
// the document), all of it written once and read once. On a machine where a
// fresh page costs a microsecond, that was a third of loading the file. Here
// the two lists become rows of string views into the in-situ buffer, and the
// document gets an empty object and array in their place.
//
// Only the common shapes are taken: a vocab object whose every value is an
// integer up to TokenTable::kMaxId, and a merges array of "left right" strings
// or [left, right] pairs of strings. At the first event of another shape the
// rows so far are replayed into the document and the rest of that list goes
// there too, so the component readers see the file as it is and spell their
// errors as before.
//
//   StreamedLists lists;
//   ListDivertingHandler handler(document, lists);
//   document.Populate(generator running
//       reader.Parse<kParseInsituFlag | kParseNumbersAsStringsFlag>(stream, handler));
//   lists.has_vocab: document["model"]["vocab"] is {} and lists.vocab holds the members
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_numbers.hpp"
#include "tokenlab/pretrained/token_table.hpp"

namespace tokenlab::hf_detail {

class ListPrefetch;

struct StreamedLists {
  // Ordinary pages: Gemma 3's 514,906 merges are 16 MB of rows, written once
  // while the parser runs. In huge pages they faulted 8 times rather than
  // 4,000, which measured faster back to back; a lone command, on a virtual
  // machine whose host takes freed memory back, paid far more for each huge
  // page (docs/performance.md, thirteenth round).
  using Rows = std::vector<TokenTable::Row>;
  bool has_vocab = false;  // vocab holds model.vocab's members, in file order
  Rows vocab;
  /// An entry of merges: [left, right], or a "left right" string still to be
  /// split, as {string, kUnsplit} (kUnsplit's data() is null; no token's is).
  using Merge = std::pair<std::string_view, std::string_view>;
  static constexpr std::string_view kUnsplit{};
  using Merges = std::vector<Merge>;
  bool has_merges = false;  // merges holds model.merges' entries, in order
  Merges merges;
  /// A Unigram model.vocab ([[piece, score], ...], left in the document): each
  /// score's digits as the file spells them, when every entry is a piece and a
  /// number (HF reads those digits with serde_json; see serde_numbers.hpp);
  /// empty otherwise.
  std::vector<std::string_view> score_digits;
};

/// A RapidJSON SAX handler that forwards every event to a Document except those
/// of model.vocab and model.merges, which it gathers into lists when they have
/// the common shapes (above), and that notes a Unigram vocabulary's score
/// digits as they pass. Strings must stay where the reader found them
/// (kParseInsituFlag), and numbers come as text (kParseNumbersAsStringsFlag,
/// see json_numbers.hpp): an event with copy set ends the gathering.
class ListDivertingHandler {
 public:
  using Ch = char;
  ListDivertingHandler(rapidjson::Document& document, StreamedLists& lists)
      : document_(document), lists_(lists) {}

  /// Stops the parse at the `[` or `{` that would open level max_depth + 1,
  /// noting its byte offset in stream (where the parser has just taken it) as
  /// too_deep_at: the reader's nesting limit, counted here instead of by a scan
  /// of the text before parsing. RapidJSON recurses once a level, so the parse
  /// never goes deeper than the limit.
  void limit_nesting(std::size_t max_depth, rapidjson::InsituStringStream& stream,
                     std::optional<std::size_t>& too_deep_at) {
    max_depth_ = max_depth;
    stream_ = &stream;
    too_deep_at_ = &too_deep_at;
  }

  bool Null() {
    return scalar(false, [&] { return document_.Null(); });
  }
  bool Bool(bool b) {
    return scalar(false, [&] { return document_.Bool(b); });
  }
  bool Int(int i) {
    return scalar(true, [&] { return document_.Int(i); });
  }
  bool Int64(std::int64_t i) {
    return scalar(true, [&] { return document_.Int64(i); });
  }
  bool Uint64(std::uint64_t u) {
    return scalar(true, [&] { return document_.Uint64(u); });
  }
  bool Double(double d) {
    return scalar(true, [&] { return document_.Double(d); });
  }
  /// Hands the vocabulary and the merges to prefetch in chunks as they are
  /// read (list_prefetch.hpp); prefetch must outlive the parse.
  void prefetch_into(ListPrefetch& prefetch) noexcept { prefetch_ = &prefetch; }

  /// A number's text, typed as RapidJSON would (json::number_event); kept for
  /// a score's digits when it stays where the reader found it.
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    number_text_ = copy ? std::string_view() : std::string_view(s, n);
    return json::number_event(*this, {s, n});
  }
  /// Where the fast paths found each list's entries (offsets in the stream,
  /// from the first entry to the closing bracket) and how many they took.
  struct Span {
    std::uint64_t begin = 0, end = 0, entries = 0;
  };
  struct ListSpans {
    Span vocab;
    Span merges;
    /// The top-level added_tokens array, from its first byte after `[` to its
    /// `]`, entries its elements: noted as RapidJSON reads it (no fast path),
    /// and jumped over on a hit like the lists, whose entry then holds the
    /// added tokens as they were read (hf/compiled_json.hpp).
    Span added;
  };
  [[nodiscard]] const ListSpans& spans() const noexcept { return spans_; }
  /// For a file whose model comes from the compiled-model cache
  /// (hf/compiled_json.hpp), which holds what the lists would build and where
  /// they were: the fast paths jump from each list's start to its end without
  /// reading it (the bytes are the ones the entry was written from: its name
  /// is their digest), or, should a list not start where spans says, step
  /// over its entries without keeping them.
  /// A span's jump is taken only when it starts where the parse is and lands,
  /// inside the text of text_size bytes, on the bracket that closes that list
  /// (a damaged entry whose checksum holds cannot send the parse elsewhere).
  void skip_lists(const ListSpans& spans, std::size_t text_size) noexcept {
    discard_ = true;
    skip_ = spans;
    text_size_ = text_size;
  }
  /// Whether the parse jumped over the added_tokens array (skip_lists): the
  /// document then holds it empty.
  [[nodiscard]] bool added_jumped() const noexcept { return added_jumped_; }
  /// Entries of model.vocab and model.merges the fast paths took straight
  /// from the buffer (the others came through RapidJSON's events).
  [[nodiscard]] std::size_t fast_vocab_entries() const noexcept { return fast_vocab_; }
  [[nodiscard]] std::size_t fast_merge_entries() const noexcept { return fast_merges_; }

  bool Uint(unsigned u);
  bool String(const char* s, rapidjson::SizeType n, bool copy);
  bool Key(const char* s, rapidjson::SizeType n, bool copy);
  bool StartObject();
  bool EndObject(rapidjson::SizeType members);
  bool StartArray();
  bool EndArray(rapidjson::SizeType elements);

 private:
  enum class Mode { forward, vocab, merges };
  // An event that ends any gathering, then goes to the document.
  template <class Forward>
  bool scalar(bool numeric, Forward forward) {
    give_up();
    note_value(numeric, false);
    return forward();
  }
  // A value (of an array opening at depth_ when opens_array) seen while the
  // Unigram vocabulary is open, and the end of an array there.
  void note_value(bool numeric, bool opens_array);
  void note_end_array();
  // Replays what was gathered of the current list into the document and
  // forwards from here on (this list only: the other may still be gathered).
  void give_up();
  // False, with the place noted, when a container opening now passes the limit.
  bool nesting_allowed() {
    if (stream_ == nullptr || static_cast<std::size_t>(depth_) < max_depth_) return true;
    *too_deep_at_ = stream_->Tell() - 1;  // the bracket the parser has just taken
    return false;
  }
  // As each list opens: its entries of the common shape taken from the
  // buffer at once and the stream moved past them (RapidJSON's work a value
  // was most of reading the two lists); when limit_nesting gave the stream.
  void take_vocab();
  void take_merges();
  // A list's start noted in found; on a hit (skip_lists) whose span starts
  // here, the stream moved to its end and true returned. fast: the list's
  // count of entries the fast paths took.
  bool jump_over(Span& found, const Span& skip, std::size_t& fast, char closing);
  // Whether skip (a hit's span of a list closed by closing) starts where the
  // parse is and ends on its closing bracket inside the text.
  [[nodiscard]] bool lands_on(const Span& skip, char closing) const noexcept;
  // A list's end noted in found, after the fast path took fast entries.
  void note_end(Span& found, std::size_t fast) {
    found.end = stream_->Tell();
    found.entries = fast;
  }
  // Appends a merge, telling the prefetch: the list must not move under it.
  void push_merge(std::string_view first, std::string_view second);
  void push_vocab(TokenTable::Row row);
  // Whether the container opening now is model's member named name.
  [[nodiscard]] bool opens_model_member(std::string_view name) const noexcept;

  rapidjson::Document& document_;
  StreamedLists& lists_;
  ListPrefetch* prefetch_ = nullptr;
  Mode mode_ = Mode::forward;
  int depth_ = 0;                                    // containers open
  std::size_t max_depth_ = 0;                        // limit_nesting's, when stream_ is set
  rapidjson::InsituStringStream* stream_ = nullptr;  // Tell() is not const
  std::optional<std::size_t>* too_deep_at_ = nullptr;
  bool root_is_object_ = false;    // the document's root, once open
  bool model_is_object_ = false;   // the container open at depth 2 is root.model's object
  bool vocab_started_ = false;     // each list is gathered once: a second model.vocab
  bool merges_started_ = false;    // goes to the document (whose check refuses it)
  bool added_started_ = false;     // the top-level added_tokens array, once
  bool added_open_ = false;        // and still open
  bool added_jumped_ = false;      // and jumped over (skip_lists)
  std::string root_key_;           // the last member name at depth 1
  std::string model_key_;          // the last member name at depth 2
  std::string_view pending_name_;  // vocab: a member's name, its value still to come
  bool has_pending_name_ = false;
  std::size_t fast_vocab_ = 0;     // members take_vocab took (RapidJSON never saw them)
  std::size_t fast_merges_ = 0;    // entries take_merges took
  bool discard_ = false;           // skip_lists()
  ListSpans skip_;                 // skip_lists()'s spans
  std::size_t text_size_ = 0;      // skip_lists()'s
  ListSpans spans_;                // the spans found
  bool vocab_forwarded_ = false;   // the vocabulary went back to the document while open
  bool merges_forwarded_ = false;  // so did the merges
  int pair_strings_ = -1;          // merges: strings of an open [left, right], or -1
  std::string_view pair_[2];
  std::string_view number_text_;  // the number being read, as written
  bool scores_started_ = false;   // model.vocab was an array (once)
  bool scores_open_ = false;      // and is still open
  bool scores_valid_ = false;     // every entry so far a piece and a number
  int entry_values_ = 0;          // values of the open entry so far
};

}  // namespace tokenlab::hf_detail
