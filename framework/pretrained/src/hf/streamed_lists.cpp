#include "hf/streamed_lists.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hf/list_prefetch.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::hf_detail {
namespace {

// Merges handed to the prefetch at a time: few enough locks, soon enough.
constexpr std::size_t kPublishEvery = 4096;

bool is_space(char c) noexcept {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
const char* skip_space(const char* p) noexcept {
  while (is_space(*p)) ++p;
  return p;
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The \uXXXX escape at p (its backslash), or -1 when the four are not hex.
long hex4(const char* p) noexcept {
  long value = 0;
  for (int i = 2; i < 6; ++i) {
    const int d = hex_digit(p[i]);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

// The first byte from q on that a string scan must look at: a quote, a
// backslash or a control character (the buffer's closing '\0' is one). Sixteen
// bytes at a time where SSE2 is there (a byte at a time, this was a twelfth of
// loading GPT-4o's tokenizer.json), with aligned loads: one never crosses into
// a page the buffer does not reach, but may read bytes before q or past the
// '\0', which AddressSanitizer would report in a heap buffer, hence the
// attribute.
[[gnu::no_sanitize_address]] const char* find_special(const char* q) noexcept {
#if defined(__SSE2__)
  const char* block =
      reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(q) & ~std::uintptr_t{15});
  unsigned skip = static_cast<unsigned>(q - block);  // bytes of the block before q
  for (;;) {
    const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(block));
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    // Below 0x20, unsigned, as a signed compare: flipping the top bit maps
    // 0x00-0x1F onto -128 to -97, below 0x20's -96.
    const __m128i control = _mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8(static_cast<char>(0x80))),
                                           _mm_set1_epi8(static_cast<char>(0xA0)));
    const auto hits = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)));
    if (const unsigned wanted = hits & (~0u << skip); wanted != 0)
      return block + __builtin_ctz(wanted);
    block += 16;
    skip = 0;
  }
#else
  while (*q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20) ++q;
  return q;
#endif
}

// A JSON string at p (its opening quote) of the kind RapidJSON's in-situ parse
// accepts without an error: no control character, escapes among \" \\ \/ \b
// \f \n \r \t and \uXXXX outside the surrogates (a surrogate pair, or a bad
// one, is left to RapidJSON). Sets end past its closing quote and escaped
// when it has an escape; false otherwise. Reads only; the text ends in '\0'.
bool scan_string(const char* p, const char*& end, bool& escaped) noexcept {
  escaped = false;
  for (const char* q = p + 1;; ++q) {
    q = find_special(q);
    const auto c = static_cast<unsigned char>(*q);
    if (c == '"') {
      end = q + 1;
      return true;
    }
    if (c < 0x20) return false;  // '\0' ends the buffer: RapidJSON says why
    if (c != '\\') continue;
    escaped = true;
    switch (q[1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        ++q;
        break;
      case 'u': {
        const long code = hex4(q);
        if (code < 0 || (code >= 0xD800 && code <= 0xDFFF)) return false;
        q += 5;
        break;
      }
      default:
        return false;
    }
  }
}

// The string scan_string accepted, decoded in place as RapidJSON's in-situ
// parse decodes it (the text moved to the front of its span, a '\0' after
// it, over the closing quote when nothing moved): its text.
std::string_view decode_string(char* p, const char* end, bool escaped) noexcept {
  char* const text = p + 1;
  if (!escaped) {
    // The '\0' over the closing quote, as RapidJSON leaves it: a string handed
    // back to the document ends as every other string there does.
    const std::size_t length = static_cast<std::size_t>(end - 1 - text);
    text[length] = '\0';
    return {text, length};
  }
  char* w = text;
  for (const char* r = text; r < end - 1;) {
    if (*r != '\\') {
      *w++ = *r++;
      continue;
    }
    switch (r[1]) {
      case 'b':
        *w++ = '\b';
        break;
      case 'f':
        *w++ = '\f';
        break;
      case 'n':
        *w++ = '\n';
        break;
      case 'r':
        *w++ = '\r';
        break;
      case 't':
        *w++ = '\t';
        break;
      case 'u': {
        std::string bytes;  // at most 3: no surrogate reaches here
        utf8::append(bytes, static_cast<char32_t>(hex4(r)));
        w = std::copy(bytes.begin(), bytes.end(), w);
        r += 6;
        continue;
      }
      default:
        *w++ = r[1];
        break;  // " \ /
    }
    r += 2;
  }
  *w = '\0';
  return {text, static_cast<std::size_t>(w - text)};
}

// A vocabulary id at p as RapidJSON reads a number and the handler takes it
// (json::number_event, then Uint): digits without a leading zero, no fraction
// or exponent, at most TokenTable::kMaxId. Sets end past it; false otherwise.
bool scan_id(const char* p, const char*& end, TokenId& id) noexcept {
  const char* q = p;
  std::uint32_t value = 0;
  while (*q >= '0' && *q <= '9' && q - p < 9)
    value = value * 10 + static_cast<std::uint32_t>(*q++ - '0');
  if (q == p || q - p > 8 || (*p == '0' && q - p > 1) || *q == '.' || *q == 'e' || *q == 'E' ||
      (*q >= '0' && *q <= '9') || value > TokenTable::kMaxId)
    return false;
  id = value;
  end = q;
  return true;
}

}  // namespace

// The fast paths below run as a list opens (the only event at which RapidJSON's
// stream is where the parse is: it reads strings and numbers through a local
// copy). They take the entries of the common shape from the buffer, decoding
// their strings in place as RapidJSON would, and stop before the first entry
// they cannot take, which RapidJSON then reads, going on from there itself; an
// entry followed by a comma is taken only when an entry starts after the
// comma, so that RapidJSON, resuming at an entry, is where it would be after
// the comma. Nothing is written before an entry is known to be taken.
bool ListDivertingHandler::lands_on(const Span& skip, char closing) const noexcept {
  return discard_ && skip.entries > 0 && skip.begin == stream_->Tell() && skip.begin <= skip.end &&
         skip.end < text_size_ && stream_->head_[skip.end] == closing;
}

bool ListDivertingHandler::jump_over(Span& found, const Span& skip, std::size_t& fast,
                                     char closing) {
  found.begin = stream_->Tell();
  if (!lands_on(skip, closing)) return false;
  stream_->src_ = stream_->head_ + skip.end;
  found = skip;
  fast = skip.entries;
  return true;
}

void ListDivertingHandler::take_vocab() {
  if (jump_over(spans_.vocab, skip_.vocab, fast_vocab_, '}')) return;
  char* const base = stream_->src_;
  const char* p = base;
  for (;;) {
    const char* key = skip_space(p);
    const char* key_end = nullptr;
    bool escaped = false;
    TokenId id = 0;
    if (*key != '"' || !scan_string(key, key_end, escaped)) break;
    const char* q = skip_space(key_end);
    if (*q != ':') break;
    const char* id_end = nullptr;
    if (!scan_id(skip_space(q + 1), id_end, id)) break;
    const char* next = skip_space(id_end);
    const bool last = *next == '}';
    if (!last && (*next != ',' || *skip_space(next + 1) != '"')) break;
    if (!discard_) push_vocab({id, decode_string(base + (key - base), key_end, escaped)});
    ++fast_vocab_;
    p = last ? next : skip_space(next + 1);
    if (last) break;
  }
  stream_->src_ = base + (p - base);
  note_end(spans_.vocab, fast_vocab_);
}

void ListDivertingHandler::take_merges() {
  if (jump_over(spans_.merges, skip_.merges, fast_merges_, ']')) return;
  char* const base = stream_->src_;
  // A [left, right] pair opens a level: past the nesting limit, RapidJSON's.
  const bool pairs = static_cast<std::size_t>(depth_) < max_depth_;
  const auto entry_starts = [&](const char* c) { return *c == '"' || (pairs && *c == '['); };
  const char* p = base;
  for (;;) {
    const char* entry = skip_space(p);
    const char* strings[2] = {nullptr, nullptr};
    const char* ends[2] = {nullptr, nullptr};
    bool escaped[2] = {false, false};
    const char* after = nullptr;
    if (*entry == '"') {
      strings[0] = entry;
      if (!scan_string(entry, ends[0], escaped[0])) break;
      after = ends[0];
    } else if (pairs && *entry == '[') {
      const char* q = skip_space(entry + 1);
      strings[0] = q;
      if (*q != '"' || !scan_string(q, ends[0], escaped[0])) break;
      q = skip_space(ends[0]);
      if (*q != ',') break;
      q = skip_space(q + 1);
      strings[1] = q;
      if (*q != '"' || !scan_string(q, ends[1], escaped[1])) break;
      q = skip_space(ends[1]);
      if (*q != ']') break;
      after = q + 1;
    } else {
      break;
    }
    const char* next = skip_space(after);
    const bool last = *next == ']';
    if (!last && (*next != ',' || !entry_starts(skip_space(next + 1)))) break;
    const auto text = [&](int i) {
      return decode_string(base + (strings[i] - base), ends[i], escaped[i]);
    };
    if (!discard_) push_merge(text(0), strings[1] == nullptr ? StreamedLists::kUnsplit : text(1));
    ++fast_merges_;
    p = last ? next : skip_space(next + 1);
    if (last) break;
  }
  stream_->src_ = base + (p - base);
  note_end(spans_.merges, fast_merges_);
}

void ListDivertingHandler::push_vocab(TokenTable::Row row) {
  if (prefetch_ != nullptr && lists_.vocab.size() == lists_.vocab.capacity()) {
    prefetch_->abandoned();  // the rows are about to move
    prefetch_ = nullptr;
  }
  lists_.vocab.push_back(row);
  if (prefetch_ != nullptr && lists_.vocab.size() % kPublishEvery == 0)
    prefetch_->vocab_published(lists_.vocab.data(), lists_.vocab.size(), lists_.vocab.capacity());
}

void ListDivertingHandler::push_merge(std::string_view first, std::string_view second) {
  if (prefetch_ != nullptr && lists_.merges.size() == lists_.merges.capacity()) {
    prefetch_->abandoned();  // the list is about to move
    prefetch_ = nullptr;
  }
  lists_.merges.emplace_back(first, second);
  if (prefetch_ != nullptr && lists_.merges.size() % kPublishEvery == 0)
    prefetch_->merges_published(lists_.merges.data(), lists_.merges.size());
}

bool ListDivertingHandler::opens_model_member(std::string_view name) const noexcept {
  return depth_ == 2 && model_is_object_ && model_key_ == name;
}

void ListDivertingHandler::note_value(bool numeric, bool opens_array) {
  if (!scores_open_) return;
  if (depth_ == 3) {  // an entry: an array, or no Unigram vocabulary
    entry_values_ = 0;
    if (!opens_array) scores_valid_ = false;
  } else if (depth_ == 4) {  // a value of an entry
    if (entry_values_ == 1) {
      if (numeric && !number_text_.empty())
        lists_.score_digits.push_back(number_text_);
      else
        scores_valid_ = false;
    }
    ++entry_values_;
  }
}

void ListDivertingHandler::note_end_array() {
  if (!scores_open_) return;
  if (depth_ == 3 && entry_values_ != 2) scores_valid_ = false;  // an entry closed
  if (depth_ == 2) {                                             // the vocabulary closed
    scores_open_ = false;
    if (!scores_valid_) lists_.score_digits = {};
  }
}

void ListDivertingHandler::give_up() {
  if (mode_ == Mode::vocab) {
    vocab_forwarded_ = true;
    if (prefetch_ != nullptr) prefetch_->abandoned();  // its rows are about to go
    prefetch_ = nullptr;
    document_.StartObject();
    for (const TokenTable::Row& row : lists_.vocab) {
      document_.Key(row.token.data(), static_cast<rapidjson::SizeType>(row.token.size()), false);
      document_.Uint(row.id);
    }
    if (has_pending_name_)
      document_.Key(pending_name_.data(), static_cast<rapidjson::SizeType>(pending_name_.size()),
                    false);
    has_pending_name_ = false;
    lists_.vocab = {};
  } else if (mode_ == Mode::merges) {
    merges_forwarded_ = true;
    if (prefetch_ != nullptr) prefetch_->abandoned();
    prefetch_ = nullptr;
    const auto string = [&](std::string_view s) {
      document_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), false);
    };
    document_.StartArray();
    for (const auto& [first, second] : lists_.merges) {
      if (second.data() == nullptr) {
        string(first);
      } else {
        document_.StartArray();
        string(first);
        string(second);
        document_.EndArray(2);
      }
    }
    if (pair_strings_ >= 0) {
      document_.StartArray();
      for (int i = 0; i < pair_strings_; ++i) string(pair_[i]);
    }
    pair_strings_ = -1;
    lists_.merges = {};
  }
  mode_ = Mode::forward;
}

bool ListDivertingHandler::Uint(unsigned u) {
  if (mode_ == Mode::vocab && has_pending_name_ && u <= TokenTable::kMaxId) {
    push_vocab({static_cast<TokenId>(u), pending_name_});
    has_pending_name_ = false;
    return true;
  }
  give_up();
  note_value(true, false);
  return document_.Uint(u);
}

bool ListDivertingHandler::String(const char* s, rapidjson::SizeType n, bool copy) {
  if (mode_ == Mode::merges && !copy) {
    if (depth_ == 3) {
      push_merge(std::string_view(s, n), StreamedLists::kUnsplit);
      return true;
    }
    if (depth_ == 4 && pair_strings_ >= 0 && pair_strings_ < 2) {
      pair_[pair_strings_++] = {s, n};
      return true;
    }
  }
  give_up();
  note_value(false, false);
  return document_.String(s, n, copy);
}

bool ListDivertingHandler::Key(const char* s, rapidjson::SizeType n, bool copy) {
  if (mode_ == Mode::vocab && !copy && !has_pending_name_) {
    pending_name_ = {s, n};
    has_pending_name_ = true;
    return true;
  }
  give_up();
  if (depth_ == 1) root_key_.assign(s, n);
  if (depth_ == 2) model_key_.assign(s, n);
  return document_.Key(s, n, copy);
}

bool ListDivertingHandler::StartObject() {
  if (!nesting_allowed()) return false;
  if (mode_ == Mode::forward && !vocab_started_ && opens_model_member("vocab")) {
    mode_ = Mode::vocab;
    vocab_started_ = true;
    ++depth_;
    if (stream_ != nullptr) take_vocab();
    return true;
  }
  give_up();
  note_value(false, false);
  if (depth_ == 0) root_is_object_ = true;
  if (depth_ == 1) model_is_object_ = root_is_object_ && root_key_ == "model";
  ++depth_;
  return document_.StartObject();
}

bool ListDivertingHandler::EndObject(rapidjson::SizeType members) {
  --depth_;
  if (mode_ == Mode::vocab && depth_ == 2) {
    lists_.has_vocab = true;
    mode_ = Mode::forward;
    if (prefetch_ != nullptr) prefetch_->vocab_closed(lists_.vocab);
    document_.StartObject();  // the vocab's place in the document, empty
    return document_.EndObject(0);
  }
  give_up();
  if (depth_ == 1) model_is_object_ = false;
  if (depth_ == 2 && vocab_forwarded_) {
    // The vocabulary handed back mid-way: its members taken by take_vocab
    // were never RapidJSON's to count.
    members += static_cast<rapidjson::SizeType>(fast_vocab_);
    vocab_forwarded_ = false;
  }
  return document_.EndObject(members);
}

bool ListDivertingHandler::StartArray() {
  if (!nesting_allowed()) return false;
  if (mode_ == Mode::merges && depth_ == 3 && pair_strings_ < 0) {
    pair_strings_ = 0;
    ++depth_;
    return true;
  }
  if (mode_ == Mode::forward && !merges_started_ && opens_model_member("merges")) {
    mode_ = Mode::merges;
    merges_started_ = true;
    ++depth_;
    if (stream_ != nullptr) take_merges();
    return true;
  }
  give_up();
  if (depth_ == 1 && root_is_object_ && root_key_ == "added_tokens" && !added_started_ &&
      stream_ != nullptr) {
    added_started_ = added_open_ = true;
    spans_.added.begin = stream_->Tell();
    if (lands_on(skip_.added, ']')) {
      // RapidJSON goes on at the `]`: an empty array in the document.
      stream_->src_ = stream_->head_ + skip_.added.end;
      spans_.added = skip_.added;
      added_jumped_ = true;
    }
  }
  if (!scores_started_ && opens_model_member("vocab")) {
    scores_started_ = scores_open_ = scores_valid_ = true;
  } else {
    note_value(false, true);
  }
  if (depth_ == 1) model_is_object_ = false;
  ++depth_;
  return document_.StartArray();
}

bool ListDivertingHandler::EndArray(rapidjson::SizeType elements) {
  --depth_;
  if (mode_ == Mode::merges) {
    if (depth_ == 3 && pair_strings_ == 2) {
      push_merge(pair_[0], pair_[1]);
      pair_strings_ = -1;
      return true;
    }
    if (depth_ == 2 && pair_strings_ < 0) {
      lists_.has_merges = true;
      if (prefetch_ != nullptr)
        prefetch_->merges_closed(lists_.merges.data(), lists_.merges.size());
      mode_ = Mode::forward;
      document_.StartArray();  // the merges' place in the document, empty
      return document_.EndArray(0);
    }
  }
  give_up();
  note_end_array();
  if (depth_ == 1 && added_open_) {
    added_open_ = false;
    // RapidJSON has just taken the `]`.
    if (!added_jumped_ && stream_->Tell() > spans_.added.begin) {
      spans_.added.end = stream_->Tell() - 1;
      spans_.added.entries = elements;
    }
  }
  if (depth_ == 1) model_is_object_ = false;
  if (depth_ == 2 && merges_forwarded_) {
    elements += static_cast<rapidjson::SizeType>(fast_merges_);  // as for the vocabulary
    merges_forwarded_ = false;
  }
  return document_.EndArray(elements);
}

}  // namespace tokenlab::hf_detail
