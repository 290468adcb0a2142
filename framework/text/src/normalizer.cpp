#include "tokenlab/normalizer.hpp"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "bert_form.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"
#include "words_inert.hpp"

namespace tokenlab {

std::string NormalizerOptions::to_string() const {
  std::string s;
  switch (form) {
    case NormalizationForm::none:
      s = "none";
      break;
    case NormalizationForm::nfc:
      s = "nfc";
      break;
    case NormalizationForm::nfkc:
      s = "nfkc";
      break;
    case NormalizationForm::bert:
      s = "bert";
      break;
  }
  if (lowercase) s += "+lowercase";
  if (strip_accents) s += "+strip-accents";
  if (keep_whitespace) s += "+keep-whitespace";
  return s;
}

NormalizerOptions NormalizerOptions::parse(std::string_view text) {
  NormalizerOptions o;
  const auto plus = text.find('+');
  const std::string_view form = text.substr(0, plus);
  if (form == "none")
    o.form = NormalizationForm::none;
  else if (form == "nfc")
    o.form = NormalizationForm::nfc;
  else if (form == "nfkc")
    o.form = NormalizationForm::nfkc;
  else if (form == "bert")
    o.form = NormalizationForm::bert;
  else
    throw Error("unknown normalization '" + std::string(form) + "': expected nfc|nfkc|none|bert");
  std::string_view rest =
      plus == std::string_view::npos ? std::string_view() : text.substr(plus + 1);
  while (!rest.empty()) {
    const auto next = rest.find('+');
    const std::string_view flag = rest.substr(0, next);
    if (flag == "lowercase")
      o.lowercase = true;
    else if (flag == "strip-accents")
      o.strip_accents = true;
    else if (flag == "keep-whitespace")
      o.keep_whitespace = true;
    else
      throw Error("unknown normalizer flag '" + std::string(flag) + "'");
    rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
  }
  if (o.keep_whitespace && o.form == NormalizationForm::bert)
    throw Error("normalization bert makes every white space a single space; it cannot keep them");
  return o;
}

namespace {

// Table's one instance for form, built from the form's quick-check property
// (UCHAR_INVALID_CODE for none) on first use; null for bert, which has none.
template <class Table>
const Table* table_of_form(NormalizationForm form) {
  switch (form) {
    case NormalizationForm::none: {
      static const Table table(UCHAR_INVALID_CODE);
      return &table;
    }
    case NormalizationForm::nfc: {
      static const Table table(UCHAR_NFC_QUICK_CHECK);
      return &table;
    }
    case NormalizationForm::nfkc: {
      static const Table table(UCHAR_NFKC_QUICK_CHECK);
      return &table;
    }
    case NormalizationForm::bert:
      break;
  }
  return nullptr;
}

}  // namespace

namespace detail {

namespace {

// word_inert_table's table, from ICU's quick-check property and combining
// classes. Maybe marks a character the form leaves alone unless it composes
// with the one before it (a nukta, a Tamil length mark, a combining acute).
struct WordInertEntries {
  std::uint16_t entries[0x10000] = {};
  explicit WordInertEntries(UProperty quick_check) {
    for (UChar32 c = 0x80; c < 0x10000; ++c) {
      if (U16_IS_SURROGATE(c)) continue;
      if (quick_check == UCHAR_INVALID_CODE) {
        entries[c] = kWordInert;
        continue;
      }
      const auto answer = u_getIntPropertyValue(c, quick_check);
      const bool decomposes = u_getIntPropertyValue(c, UCHAR_NFD_QUICK_CHECK) == UNORM_NO;
      if (answer == UNORM_NO || (answer == UNORM_MAYBE && decomposes)) continue;
      entries[c] =
          static_cast<std::uint16_t>((answer == UNORM_YES ? kWordInert : kWordMaybe) |
                                     (decomposes ? kDecomposes : 0) | u_getCombiningClass(c));
    }
  }
};

}  // namespace

const std::uint16_t* word_inert_table(NormalizationForm form) {
  const WordInertEntries* table = table_of_form<WordInertEntries>(form);
  return table != nullptr ? table->entries : nullptr;
}

// The starter keeps anything before it from reaching c, and, not decomposing,
// brings no mark that c could be reordered before. NFC and NFKC compose
// alike, so NFC's pairs serve both.
bool stays_after(char32_t last, char32_t c) noexcept {
  UErrorCode status = U_ZERO_ERROR;
  static const icu::Normalizer2* const nfc = icu::Normalizer2::getNFCInstance(status);
  return nfc != nullptr &&
         nfc->composePair(static_cast<UChar32>(last), static_cast<UChar32>(c)) < 0;
}

}  // namespace detail

namespace {

bool is_ascii(std::string_view s) noexcept {
  return utf8::ascii_prefix_length(s) == s.size();
}

bool is_ascii_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

// Collapses white space runs to one space and trims, for ASCII input. Appends whole
// runs of non-space bytes at once: this runs on every line of every corpus.
void collapse_ascii(std::string_view in, bool lowercase, std::string& out) {
  out.clear();
  out.reserve(in.size());
  std::size_t i = 0;
  const std::size_t n = in.size();
  while (i < n) {
    while (i < n && is_ascii_space(in[i])) ++i;
    if (i == n) break;
    const std::size_t start = i;
    while (i < n && !is_ascii_space(in[i])) ++i;
    if (!out.empty()) out += ' ';
    const std::size_t at = out.size();
    out.append(in.data() + start, i - start);
    if (lowercase)
      for (std::size_t k = at; k < out.size(); ++k)
        if (out[k] >= 'A' && out[k] <= 'Z') out[k] = static_cast<char>(out[k] - 'A' + 'a');
  }
}

// For each BMP code point, two bits. allowed: not white space, and quick-check
// value Yes in the form (every character, for none). marked: a nonzero combining
// class. A line whose characters are all allowed and whose marks come in
// canonical order is in the form (UAX #15's quick check answers Yes), so
// checking it costs a table lookup a character instead of ICU's
// isNormalizedUTF8 and a second pass for white space.
struct InertCharacters {
  std::uint64_t bits[2 * 0x10000 / 64] = {};  // allowed, then marked
  explicit InertCharacters(UProperty quick_check) {
    for (UChar32 c = 0x80; c < 0x10000; ++c) {
      if (U16_IS_SURROGATE(c) || u_isUWhiteSpace(c)) continue;
      if (quick_check != UCHAR_INVALID_CODE && u_getIntPropertyValue(c, quick_check) != UNORM_YES)
        continue;
      bits[c >> 6] |= std::uint64_t{1} << (c & 63);
      if (quick_check != UCHAR_INVALID_CODE && u_getCombiningClass(c) != 0)
        bits[0x10000 / 64 + (c >> 6)] |= std::uint64_t{1} << (c & 63);
    }
  }
};

const std::uint64_t* inert_characters(NormalizationForm form) {
  const InertCharacters* table = table_of_form<InertCharacters>(form);
  return table != nullptr ? table->bits : nullptr;
}

// Whether text's only white space is single U+0020 between other characters and
// each of its characters has its bit in table (InertCharacters), with marks in
// canonical order. Past the BMP, a character passes only when beyond_bmp (no
// such character is white space); malformed UTF-8 never does. Most corpus
// lines pass, and checking is far cheaper than rebuilding them: eight bytes at a
// time through ASCII, one table lookup a character past it. Flattened: GCC kept
// utf8::decode_sequence out of line, a call per character of a Hindi line.
[[gnu::flatten]] bool single_spaced_and_inert(std::string_view text, const std::uint64_t* table,
                                              bool beyond_bmp) noexcept {
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  const std::size_t n = text.size();
  if (n == 0) return true;
  if (text.front() == ' ' || text.back() == ' ') return false;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  bool after_space = false;
  std::uint8_t last_combining_class = 0;
  // A step of printable ASCII bytes, its spaces flagged one bit a byte, stride
  // bits apart from first_flag (the first byte's) to the bit at last_shift:
  // single spaced in itself and after the step before it?
  const auto single_spaced_step = [&](std::uint64_t spaces, unsigned stride,
                                      std::uint64_t first_flag, unsigned last_shift) {
    if ((spaces & (spaces << stride)) != 0) return false;  // two adjacent spaces
    if (after_space && (spaces & first_flag) != 0) return false;
    after_space = (spaces >> last_shift) != 0;
    last_combining_class = 0;
    return true;
  };
  std::size_t i = 0;
  while (i < n) {
#if defined(__SSE2__)
    // Sixteen printable ASCII bytes at a time where they are: no byte below 0x20
    // and none at 0x80 or above (negative as signed bytes).
    if (i + 16 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      if (_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))) == 0) {
        const auto spaces =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
        if (!single_spaced_step(spaces, 1, 1, 15)) return false;
        i += 16;
        continue;
      }
    }
#endif
    if (i + 8 <= n) {
      std::uint64_t word = 0;
      std::memcpy(&word, p + i, 8);
      // No byte below 0x20 (it would borrow into its high bit) and none at 0x80 or
      // above: eight printable ASCII bytes, of which only spaces matter.
      if ((((word - kSpaces) | word) & kHigh) == 0) {
        const std::uint64_t t = word ^ kSpaces;
        const std::uint64_t spaces = ~(((t & kLow7) + kLow7) | t | kLow7);  // 0x80 per space
        if (!single_spaced_step(spaces, 8, 0x80, 63)) return false;
        i += 8;
        continue;
      }
    }
    const unsigned char byte = p[i];
    if (byte < 0x80) {
      last_combining_class = 0;
      if (byte == ' ') {
        if (after_space) return false;
        after_space = true;
      } else {
        if (is_ascii_space(static_cast<char>(byte))) return false;
        after_space = false;
      }
      ++i;
      continue;
    }
    after_space = false;
    const utf8::Sequence sequence = utf8::decode_sequence(text, i);
    if (sequence.length == 0) return false;  // malformed
    i += sequence.length;
    const char32_t cp = sequence.code_point;
    if (sequence.length == 4) {
      if (!beyond_bmp) return false;
      last_combining_class = 0;
      continue;
    }
    if ((table[cp >> 6] >> (cp & 63) & 1) == 0) return false;
    if ((table[0x10000 / 64 + (cp >> 6)] >> (cp & 63) & 1) != 0) {
      // A mark: marks in a row must not descend in combining class.
      const auto combining_class = u_getCombiningClass(static_cast<UChar32>(cp));
      if (combining_class < last_combining_class) return false;
      last_combining_class = combining_class;
      continue;
    }
    last_combining_class = 0;
  }
  return true;
}

// Normalizer::words_unchanged: WordsInertCheck along the line, ASCII runs
// skipped sixteen bytes at a time. Flattened, as single_spaced_and_inert is,
// so the decoder stays in the loop.
[[gnu::flatten]] bool words_inert(std::string_view text, NormalizationForm form) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  detail::WordsInertCheck check(form);
  std::size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      std::size_t j = i + 1;
#if defined(__SSE2__)
      for (; j + 16 <= n; j += 16) {
        const auto high = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j))));
        if (high != 0) {
          j += static_cast<unsigned>(__builtin_ctz(high));
          break;
        }
      }
#endif
      while (j < n && p[j] < 0x80) ++j;
      check.after_ascii(p[j - 1]);
      i = j;
      continue;
    }
    const utf8::Sequence sequence = utf8::decode_sequence(text, i);
    if (!check.character(sequence.code_point, sequence.length)) return false;
    i += sequence.length;
  }
  return true;
}

// Whether collapsing white space would leave text as it is.
bool collapsed_already(std::string_view text) noexcept {
  return single_spaced_and_inert(text, inert_characters(NormalizationForm::none), true);
}

// The character at in[i]: its length (1 for a malformed byte) and whether it
// is white space.
struct CharAt {
  std::size_t length;
  bool space;
};
CharAt char_at(std::string_view in, std::size_t i) {
  const auto byte = static_cast<unsigned char>(in[i]);
  if (byte < 0x80) return {1, is_ascii_space(static_cast<char>(byte))};
  const utf8::Sequence sequence = utf8::decode_sequence(in, i);
  if (sequence.length == 0) return {1, false};
  return {sequence.length, u_isUWhiteSpace(static_cast<UChar32>(sequence.code_point)) != 0};
}

void collapse_unicode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  const std::size_t n = in.size();
  std::size_t i = 0;
  while (i < n) {
    // A run of non-space characters; its ASCII bytes, most of them, without a
    // call each.
    const std::size_t start = i;
    while (i < n) {
      const auto byte = static_cast<unsigned char>(in[i]);
      if (byte < 0x80) {
        if (is_ascii_space(static_cast<char>(byte))) break;
        ++i;
        continue;
      }
      const CharAt c = char_at(in, i);
      if (c.space) break;
      i += c.length;
    }
    if (i > start) {
      if (!out.empty()) out += ' ';
      out.append(in.data() + start, i - start);
    }
    for (CharAt c{}; i < n && (c = char_at(in, i)).space;) i += c.length;
  }
}

// Capital letters that Unicode 16.0 and 17.0 added, after ICU 72's Unicode
// 15.0, and that Rust's char::to_lowercase (so HF tokenizers) already maps.
struct CaseRange {
  UChar32 first;
  UChar32 last;
  UChar32 lower_first;
};
constexpr CaseRange kNewerCapitals[] = {
    {0x1C89, 0x1C89, 0x1C8A},    {0xA7CB, 0xA7CB, 0x0264}, {0xA7CC, 0xA7CC, 0xA7CD},
    {0xA7CE, 0xA7CE, 0xA7CF},    {0xA7D2, 0xA7D2, 0xA7D3}, {0xA7D4, 0xA7D4, 0xA7D5},
    {0xA7DA, 0xA7DA, 0xA7DB},    {0xA7DC, 0xA7DC, 0x019B}, {0x10D50, 0x10D65, 0x10D70},
    {0x16EA0, 0x16EB8, 0x16EBB},
};

UChar32 lowercase_one(UChar32 c) {
  if (c >= 0x1C89 && c <= 0x16EB8)
    for (const CaseRange& r : kNewerCapitals)
      if (c >= r.first && c <= r.last) return r.lower_first + (c - r.first);
  return u_tolower(c);
}

// Lowercases code point by code point, as Rust's char::to_lowercase: the simple
// mapping, except U+0130, the one unconditional multi-character lowercase
// mapping. ICU's toLower would apply context (final sigma) that HF does not.
icu::UnicodeString lowercase_each(const icu::UnicodeString& text) {
  icu::UnicodeString lower;
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    if (c == 0x130) {
      lower.append(static_cast<UChar32>('i')).append(static_cast<UChar32>(0x307));
    } else {
      lower.append(lowercase_one(c));
    }
    i += U16_LENGTH(c);
  }
  return lower;
}

// BERT's clean text: drops U+0000, U+FFFD and control characters, turns every
// white space character into a space. Returns false (and leaves out alone) when
// nothing needs removing, the common case: white space is left to the collapse
// that follows, which treats the same characters as white space.
bool clean_bert_text(std::string_view in, std::string& out) {
  bool dirty = false;
  for (std::size_t i = 0; i < in.size() && !dirty;) {
    const auto byte = static_cast<unsigned char>(in[i]);
    if (byte < 0x80) {
      dirty = bert::is_control(byte) || byte == 0;
      ++i;
      continue;
    }
    const std::size_t len = utf8::sequence_length(in, i);
    if (len == 0) return false;  // not valid UTF-8: the corpus reader decides
    const char32_t c = utf8::decode_at(in, i);
    dirty = c == 0xFFFD || bert::is_control(c);  // other white space: collapse handles it
    i += len;
  }
  if (!dirty) return false;
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    std::size_t len = utf8::sequence_length(in, i);
    if (len == 0) len = 1;
    const char32_t c = len == 1 ? static_cast<unsigned char>(in[i]) : utf8::decode_at(in, i);
    if (c == 0 || c == 0xFFFD || bert::is_control(c)) {
      // removed
    } else if (bert::is_whitespace(c)) {
      out += ' ';
    } else {
      out.append(in.data() + i, len);
    }
    i += len;
  }
  return true;
}

// NFD, except around the characters HF's older NFD tables leave whole.
icu::UnicodeString bert_nfd(const icu::Normalizer2* nfd, const icu::UnicodeString& text) {
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString out;
  int32_t segment = 0;
  const auto flush = [&](int32_t end) {
    if (end > segment)
      nfd->normalizeSecondAndAppend(out, text.tempSubStringBetween(segment, end), status);
  };
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    const int32_t next = i + U16_LENGTH(c);
    if (!bert::decomposes_for_bert(static_cast<char32_t>(c))) {
      flush(i);
      out.append(c);
      segment = next;
    }
    i = next;
  }
  flush(text.length());
  if (U_FAILURE(status)) throw Error(std::string("normalization failed: ") + u_errorName(status));
  return out;
}

// BERT's form of a cleaned line by ICU, before white space is collapsed:
// NFD without the marks (strip_accents), then lowercase.
std::string icu_bert_form(std::string_view line, const icu::Normalizer2* nfd, bool strip_accents,
                          bool lowercase) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(line.data(), static_cast<int32_t>(line.size())));
  if (strip_accents) {
    const icu::UnicodeString decomposed = bert_nfd(nfd, text);
    text.remove();
    for (int32_t i = 0; i < decomposed.length();) {
      const UChar32 c = decomposed.char32At(i);
      if (!bert::is_nonspacing_mark(static_cast<char32_t>(c))) text.append(c);
      i += U16_LENGTH(c);
    }
  }
  if (lowercase) text = lowercase_each(text);
  std::string out;
  text.toUTF8String(out);
  return out;
}

// BERT's form one character at a time, from tables of what it makes of each
// character, built a 256-character page at a time on first use (a Hindi text
// needs two or three pages, about 0.3 ms each) and shared by every normalizer
// with the same settings. Asking ICU for every line cost two thirds of
// encoding Hindi with bert-base-uncased: converting to UTF-16 and back,
// decomposing, and a property lookup a character.
//
// Character by character is the line's form because each step is: cleaning,
// stripping and lowercasing map one character at a time, and decomposition
// moves only marks of a non-zero combining class among themselves, which
// stripping removes when they are nonspacing (Mn). A character whose
// decomposition keeps another such mark is marked in the table, and a line
// holding one goes to ICU whole.
class BertCharacterTable {
 public:
  BertCharacterTable(const icu::Normalizer2* nfd, bool strip_accents, bool lowercase)
      : nfd_(nfd), strip_accents_(strip_accents), lowercase_(lowercase) {}

  // Appends the form of line (cleaned, valid UTF-8) to out, before white
  // space is collapsed; false when a character of it needs the whole line.
  bool append_form(std::string_view line, std::string& out) {
    for (std::size_t i = 0; i < line.size();) {
      const auto byte = static_cast<unsigned char>(line[i]);
      if (byte < 0x80) {  // stripping leaves ASCII as it is
        out += lowercase_ && byte >= 'A' && byte <= 'Z' ? static_cast<char>(byte + ('a' - 'A'))
                                                        : static_cast<char>(byte);
        ++i;
        continue;
      }
      const utf8::Sequence d = utf8::decode_sequence(line, i);
      if (d.length == 0) return false;
      const Page& page = page_of(d.code_point >> 8);
      const std::uint32_t entry = page.entries[d.code_point & 0xFF];
      if ((entry & 0xFF) == kWholeLine) return false;
      out.append(page.bytes, entry >> 8, entry & 0xFF);
      i += d.length;
    }
    return true;
  }

 private:
  // An entry's length that says: ask ICU. A character's form is a few code
  // points, so a page's bytes stay far below the 2^24 an entry's offset holds.
  static constexpr std::uint32_t kWholeLine = 0xFF;
  static constexpr std::size_t kPages = 0x110000 >> 8;
  struct Page {
    std::uint32_t entries[256] = {};  // offset in bytes << 8 | length
    std::string bytes;
  };

  const Page& page_of(char32_t index) {
    if (const Page* ready = pages_[index].load(std::memory_order_acquire)) return *ready;
    const std::lock_guard lock(building_);
    if (const Page* ready = pages_[index].load(std::memory_order_relaxed)) return *ready;
    owned_[index] = build(index);
    pages_[index].store(owned_[index].get(), std::memory_order_release);
    return *owned_[index];
  }

  std::unique_ptr<Page> build(char32_t index) const {
    auto page = std::make_unique<Page>();
    for (char32_t low = 0; low < 256; ++low) {
      const char32_t c = (index << 8) | low;
      std::uint32_t length = kWholeLine;
      if (!(c >= 0xD800 && c <= 0xDFFF) && bert::decomposes_for_bert(c) && !keeps_moved_mark(c)) {
        std::string character;
        utf8::append(character, c);
        const std::string form = icu_bert_form(character, nfd_, strip_accents_, lowercase_);
        if (form.size() < kWholeLine) {
          length = static_cast<std::uint32_t>(form.size());
          page->entries[low] = static_cast<std::uint32_t>(page->bytes.size()) << 8;
          page->bytes += form;
        }
      }
      page->entries[low] |= length;
    }
    return page;
  }

  // Whether c, decomposed when marks are stripped, keeps a character that
  // decomposition could move past a neighbour's.
  // Without stripping there is no decomposition, and nothing moves.
  bool keeps_moved_mark(char32_t c) const {
    if (!strip_accents_) return false;
    const icu::UnicodeString text = bert_nfd(nfd_, icu::UnicodeString(static_cast<UChar32>(c)));
    for (int32_t i = 0; i < text.length();) {
      const UChar32 k = text.char32At(i);
      if (u_getCombiningClass(k) != 0 && !bert::is_nonspacing_mark(static_cast<char32_t>(k)))
        return true;
      i += U16_LENGTH(k);
    }
    return false;
  }

  const icu::Normalizer2* nfd_;
  bool strip_accents_;
  bool lowercase_;
  std::mutex building_;
  std::atomic<const Page*> pages_[kPages] = {};
  std::unique_ptr<Page> owned_[kPages];
};

const icu::Normalizer2* nfd_instance() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status)) throw Error(std::string("ICU's NFD is missing: ") + u_errorName(status));
  return nfd;
}

// The table for these settings, made on first use and kept for the process.
// (normalize_bert never asks for [0][0], which changes nothing but white
// space; it is there so that the settings index the array directly.)
BertCharacterTable& bert_character_table(bool strip_accents, bool lowercase) {
  static BertCharacterTable tables[2][2] = {{BertCharacterTable(nfd_instance(), false, false),
                                             BertCharacterTable(nfd_instance(), false, true)},
                                            {BertCharacterTable(nfd_instance(), true, false),
                                             BertCharacterTable(nfd_instance(), true, true)}};
  return tables[strip_accents][lowercase];
}

}  // namespace

std::string detail::bert_form_by_icu(std::string_view line, bool strip_accents, bool lowercase) {
  return icu_bert_form(line, nfd_instance(), strip_accents, lowercase);
}

bool detail::bert_form_by_character(std::string_view line, bool strip_accents, bool lowercase,
                                    std::string& out) {
  return bert_character_table(strip_accents, lowercase).append_form(line, out);
}

std::string lowercase_code_points(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool ascii = true;
  for (const char ch : text) {
    if (static_cast<unsigned char>(ch) >= 0x80) {
      ascii = false;
      break;
    }
    out += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + ('a' - 'A')) : ch;
  }
  if (ascii) return out;
  out.clear();
  lowercase_each(icu::UnicodeString::fromUTF8(
                     icu::StringPiece(text.data(), static_cast<int32_t>(text.size()))))
      .toUTF8String(out);
  return out;
}

Normalizer::Normalizer(NormalizerOptions options) : options_(options) {
  UErrorCode status = U_ZERO_ERROR;
  switch (options_.form) {
    case NormalizationForm::none:
      break;
    case NormalizationForm::nfc:
      icu_normalizer_ = icu::Normalizer2::getNFCInstance(status);
      break;
    case NormalizationForm::nfkc:
      icu_normalizer_ = icu::Normalizer2::getNFKCInstance(status);
      break;
    case NormalizationForm::bert:
      break;
  }
  if (options_.strip_accents) nfd_ = icu::Normalizer2::getNFDInstance(status);
  if (!options_.lowercase && !options_.strip_accents && !options_.keep_whitespace)
    inert_ = inert_characters(options_.form);
  words_judged_ =
      !options_.lowercase && !options_.strip_accents && options_.form != NormalizationForm::bert;
  if (U_FAILURE(status))
    throw Error(std::string("ICU normalizer unavailable: ") + u_errorName(status));
}

bool Normalizer::unchanged(std::string_view line) const noexcept {
  return inert_ != nullptr && single_spaced_and_inert(line, inert_, false);
}

bool Normalizer::words_unchanged(std::string_view line) const noexcept {
  return words_judged_ && words_inert(line, options_.form);
}

std::string_view Normalizer::normalize_view(std::string_view line, std::string& buffer) const {
  if (unchanged(line)) return line;
  normalize_full(line, buffer);
  return buffer;
}

void Normalizer::normalize(std::string_view line, std::string& out) const {
  if (unchanged(line))
    out.assign(line);
  else
    normalize_full(line, out);
}

void Normalizer::normalize_full(std::string_view line, std::string& out) const {
  if (options_.form == NormalizationForm::bert) {
    normalize_bert(line, out);
    return;
  }
  if (is_ascii(line)) {
    if (options_.keep_whitespace) {
      out.assign(line);
      if (options_.lowercase)
        for (char& c : out)
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    } else if (!options_.lowercase && collapsed_already(line)) {
      out.assign(line);
    } else {
      collapse_ascii(line, options_.lowercase, out);
    }
    return;
  }
  // The last step: white space collapsed and trimmed, or kept.
  const auto finish = [&](std::string_view text) {
    if (options_.keep_whitespace || collapsed_already(text))
      out.assign(text);
    else
      collapse_unicode(text, out);
  };
  if (!options_.lowercase && !options_.strip_accents) {
    // Most corpus text is already normalized: checking that on the UTF-8 bytes is far
    // cheaper than converting to UTF-16 and back.
    UErrorCode status = U_ZERO_ERROR;
    const auto* normalizer = static_cast<const icu::Normalizer2*>(icu_normalizer_);
    if (normalizer == nullptr ||
        (normalizer->isNormalizedUTF8(
             icu::StringPiece(line.data(), static_cast<int32_t>(line.size())), status) &&
         U_SUCCESS(status))) {
      finish(line);
      return;
    }
  }
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(line.data(), static_cast<int32_t>(line.size())));
  UErrorCode status = U_ZERO_ERROR;
  if (options_.strip_accents) {
    text = static_cast<const icu::Normalizer2*>(nfd_)->normalize(text, status);
    icu::UnicodeString stripped;
    for (int32_t i = 0; i < text.length();) {
      const UChar32 c = text.char32At(i);
      if (u_charType(c) != U_NON_SPACING_MARK) stripped.append(c);
      i += U16_LENGTH(c);
    }
    text = stripped;
  }
  if (icu_normalizer_ != nullptr)
    text = static_cast<const icu::Normalizer2*>(icu_normalizer_)->normalize(text, status);
  if (U_FAILURE(status)) throw Error(std::string("normalization failed: ") + u_errorName(status));
  if (options_.lowercase) text = lowercase_each(text);
  std::string utf8_text;
  text.toUTF8String(utf8_text);
  finish(utf8_text);
}

void Normalizer::normalize_bert(std::string_view line, std::string& out) const {
  std::string cleaned;
  if (clean_bert_text(line, cleaned)) line = cleaned;
  if (is_ascii(line)) {
    collapse_ascii(line, options_.lowercase, out);
    return;
  }
  if (!options_.lowercase && !options_.strip_accents) {
    collapse_unicode(line, out);
    return;
  }
  std::string form;
  form.reserve(line.size() + 16);
  if (!detail::bert_form_by_character(line, options_.strip_accents, options_.lowercase, form))
    form = icu_bert_form(line, static_cast<const icu::Normalizer2*>(nfd_), options_.strip_accents,
                         options_.lowercase);
  collapse_unicode(form, out);
}

std::string Normalizer::normalize(std::string_view line) const {
  std::string out;
  normalize(line, out);
  return out;
}

}  // namespace tokenlab
