#include <unicode/regex.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "preset_matchers.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/unicode_version.hpp"

namespace tokenlab {

SplitSequenceRun split_sequence_run(std::string_view key, UnicodeVersion version) noexcept {
  return detail::find_split_sequence_run(key, version);
}

std::optional<std::string_view> regex_preset(std::string_view name) {
  if (name == "gpt2" || name == "r50k" || name == "r50k_base" || name == "p50k" ||
      name == "p50k_base" || name == "p50k_edit")
    return kGpt2Pattern;
  if (name == "cl100k" || name == "cl100k_base" || name == "llama3") return kCl100kPattern;
  if (name == "qwen2") return kQwen2Pattern;
  if (name == "o200k" || name == "o200k_base") return kO200kPattern;
  return std::nullopt;
}

namespace {

// Code point ranges in ICU's set syntax.
void append_range(std::string& out, char32_t first, char32_t last) {
  char buffer[32];
  if (first == last)
    std::snprintf(buffer, sizeof buffer, "\\x{%X}", static_cast<unsigned>(first));
  else
    std::snprintf(buffer, sizeof buffer, "\\x{%X}-\\x{%X}", static_cast<unsigned>(first),
                  static_cast<unsigned>(last));
  out += buffer;
}

// A class of the pattern as Unicode 16.0 has it: ICU's own class (positive, such
// as \p{L} or \w, or its complement, negative, when negated), with the code
// points 16.0 brings into it added and those it takes out removed, as a set ICU
// reads inside or outside brackets (a nested set is a union). in_class(category,
// alphabetic) says whether a character with those properties is in the positive
// class. The class is left as it is when ICU's data is already 16.0 or later.
template <class InClass>
std::string unicode_16_class(std::string_view positive, std::string_view negative, bool negated,
                             InClass in_class) {
  UVersionInfo icu_unicode{};
  u_getUnicodeVersion(icu_unicode);
  std::string added;
  std::string removed;
  std::size_t count = 0;
  const UnicodeChange* rows = unicode_16_changes(count);
  for (std::size_t i = 0; i < count && icu_unicode[0] < 16; ++i) {
    const bool before = in_class(rows[i].category_before, rows[i].alphabetic_before);
    const bool after = in_class(rows[i].category_after, rows[i].alphabetic_after);
    if (before != after) append_range(before ? removed : added, rows[i].first, rows[i].last);
  }
  const std::string_view icu_class = negated ? negative : positive;
  if (added.empty() && removed.empty()) return std::string(icu_class);
  // The complement of (C + added) - removed is (not C + removed) - added.
  if (negated) std::swap(added, removed);
  std::string set = "[[";
  set += icu_class;
  set += added;
  set += "]";
  if (!removed.empty()) set += "--[" + removed + "]";
  set += "]";
  return set;
}

// What a \p{...} names, when it is a general category (or several: L, Letter,
// gc=Lu, General_Category:P) or Alphabetic: the two kinds of property 16.0's
// changes touch. Scripts and the rest are left as ICU has them.
struct PropertyClass {
  std::uint32_t categories = 0;  // U_GC_*_MASK bits
  bool alphabetic = false;
};
std::optional<PropertyClass> property_class(std::string_view name) {
  const std::size_t equals = name.find_first_of("=:");
  const std::string value(equals == std::string_view::npos ? name : name.substr(equals + 1));
  if (equals != std::string_view::npos) {
    const UProperty property = u_getPropertyEnum(std::string(name.substr(0, equals)).c_str());
    if (property != UCHAR_GENERAL_CATEGORY && property != UCHAR_GENERAL_CATEGORY_MASK)
      return std::nullopt;
  }
  const std::int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, value.c_str());
  if (mask != UCHAR_INVALID_CODE) return PropertyClass{static_cast<std::uint32_t>(mask), false};
  if (equals == std::string_view::npos && u_getPropertyEnum(value.c_str()) == UCHAR_ALPHABETIC)
    return PropertyClass{0, true};
  return std::nullopt;
}

// A \p{NAME}, \P{NAME} or \p{^NAME} at pattern[at] whose NAME property_class
// knows: the name, whether it is negated, and one past its end. (ICU rejects
// the one-letter \pN; Oniguruma, which HF runs, does not read it as a property
// either, so it is left for ICU to report.)
struct PropertyEscape {
  std::string_view name;
  bool negated = false;
  PropertyClass cls;
  std::size_t end = 0;
};
std::optional<PropertyEscape> property_escape(std::string_view pattern, std::size_t at) {
  PropertyEscape escape;
  escape.negated = pattern[at + 1] == 'P';
  if (at + 2 >= pattern.size() || pattern[at + 2] != '{') return std::nullopt;
  const std::size_t close = pattern.find('}', at + 3);
  if (close == std::string_view::npos) return std::nullopt;  // ICU reports it
  escape.name = pattern.substr(at + 3, close - at - 3);
  escape.end = close + 1;
  if (escape.name.starts_with('^')) {
    escape.negated = !escape.negated;
    escape.name.remove_prefix(1);
  }
  if (escape.name.empty()) return std::nullopt;
  const std::optional<PropertyClass> cls = property_class(escape.name);
  if (!cls) return std::nullopt;
  escape.cls = *cls;
  return escape;
}

// Rust's regex and Oniguruma (what HF and tiktoken run) take \s as the
// White_Space property; ICU's \s is [\t\n\f\r\p{Z}], without U+000B and U+0085.
// With version v16_0, the general categories, Alphabetic, \w and \d are
// rewritten as Unicode 16.0 has them (unicode_16_class).
std::string to_icu_syntax(std::string_view pattern, UnicodeVersion version) {
  const bool v16 = version == UnicodeVersion::v16_0;
  std::string out;
  out.reserve(pattern.size() + 32);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      std::size_t escape_end = i + 2;  // one past the escape
      if (next == 's') {
        out += "\\p{White_Space}";
      } else if (next == 'S') {
        out += "\\P{White_Space}";
      } else if (v16 && (next == 'd' || next == 'D')) {
        out += unicode_16_class("\\p{Nd}", "\\P{Nd}", next == 'D',
                                [](std::int8_t c, bool) { return c == U_DECIMAL_DIGIT_NUMBER; });
      } else if (v16 && (next == 'w' || next == 'W')) {
        // ICU's \w: [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200C\u200D], Oniguruma's Word.
        out += unicode_16_class("\\w", "\\W", next == 'W', [](std::int8_t c, bool a) {
          return a || (U_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
        });
      } else if (const auto property = v16 && (next == 'p' || next == 'P')
                                           ? property_escape(pattern, i)
                                           : std::nullopt) {
        const std::string name(property->name);
        out += unicode_16_class(
            "\\p{" + name + "}", "\\P{" + name + "}", property->negated,
            [&](std::int8_t c, bool a) {
              return property->cls.alphabetic ? a : (U_MASK(c) & property->cls.categories) != 0;
            });
        escape_end = property->end;
      } else {
        out += pattern[i];
        out += next;
      }
      i = escape_end - 1;
      continue;
    }
    out += pattern[i];
  }
  return out;
}

// What Regex::compiled_ points to. The serial, never reused, keys the
// per-thread matchers: a regex built where a destroyed one was must not find the
// destroyed one's matcher (whose pattern is gone).
// A preset's pattern (known to compile) is compiled on first need only: the
// hand-made matcher leaves ICU nothing on well-formed text, and compiling
// o200k's pattern (its property sets) was a tenth of the instructions of
// encoding 2 MB of English.
struct Compiled {
  std::unique_ptr<icu::RegexPattern> pattern;
  std::uint64_t serial;
  std::once_flag compiled;
};

std::unique_ptr<icu::RegexPattern> compile_raw(const std::string& pattern, UParseError& parse_error,
                                               UErrorCode& status) {
  return std::unique_ptr<icu::RegexPattern>(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(pattern), 0, parse_error, status));
}

// An error's offset is given in the pattern as written: the translation
// (to_icu_syntax) moves everything after a rewritten class, so a pattern that
// ICU refuses is compiled again as written, which it refuses at the same place
// (the translation only ever replaces a class by an equivalent one).
std::unique_ptr<icu::RegexPattern> compile_icu(const std::string& icu_pattern,
                                               const std::string& pattern) {
  UParseError parse_error{};
  UErrorCode status = U_ZERO_ERROR;
  auto compiled = compile_raw(icu_pattern, parse_error, status);
  if (U_SUCCESS(status)) return compiled;
  std::string where = " at offset " + std::to_string(parse_error.offset);
  if (icu_pattern != pattern) {
    UParseError as_written{};
    UErrorCode written_status = U_ZERO_ERROR;
    compile_raw(pattern, as_written, written_status);
    if (U_FAILURE(written_status)) {
      status = written_status;
      where = " at offset " + std::to_string(as_written.offset);
    } else {
      where += " of its ICU form /" + icu_pattern + "/";
    }
  }
  throw Error("regular expression /" + pattern + "/: " + u_errorName(status) + where);
}

std::uint64_t next_regex_serial() {
  static std::atomic<std::uint64_t> serial{0};
  return ++serial;
}

struct MatcherCache;
// This thread's cache while it exists (a plain pointer: still readable when a
// static tokenizer is destroyed after the thread's cache).
thread_local MatcherCache* live_cache = nullptr;

struct MatcherCache {
  std::unordered_map<std::uint64_t, std::unique_ptr<icu::RegexMatcher>> matchers;
  UText* text = nullptr;
  MatcherCache() { live_cache = this; }
  ~MatcherCache() {
    live_cache = nullptr;
    if (text) utext_close(text);
  }
  MatcherCache(const MatcherCache&) = delete;
  MatcherCache& operator=(const MatcherCache&) = delete;
};

MatcherCache& matcher_cache() {
  thread_local MatcherCache cache;
  return cache;
}

}  // namespace

Regex::Regex(std::string pattern, UnicodeVersion version)
    : pattern_(std::move(pattern)), version_(version) {
  preset_ = detail::find_preset_matcher(pattern_, version_);
  preset_run_ = detail::find_preset_run(pattern_, version_);
  auto compiled = std::make_unique<Compiled>();
  compiled->serial = next_regex_serial();
  // A preset's ICU form is made when it is compiled: with Unicode 16.0's
  // classes it spells out their ranges, 0.9 M instructions of a load of
  // GPT-4o's tokenizer.json (two regexes: the pre-tokenizer's and the fused
  // encoder's) that the hand-made matcher never needs.
  if (!preset_) {  // an error in the pattern is the constructor's to report
    compiled->pattern = compile_icu(to_icu_syntax(pattern_, version_), pattern_);
    std::call_once(compiled->compiled, [] {});
  }
  compiled_ = compiled.release();
}

Regex::~Regex() {
  auto* compiled = static_cast<Compiled*>(compiled_);
  // This thread's matcher goes; other threads' are never used again.
  if (live_cache) live_cache->matchers.erase(compiled->serial);
  delete compiled;
}

void Regex::fail_match(int status, std::size_t text_bytes, std::size_t from) const {
  const auto code = static_cast<UErrorCode>(status);
  std::string what;
  if (code == U_REGEX_TIME_OUT)
    what = "the match took longer than tokenlab's limit (" + std::to_string(kRegexTimeLimit) +
           " ICU time steps, about a second): the pattern backtracks too much on this text "
           "(nested repetition such as (a+)+ is exponential)";
  else if (code == U_REGEX_STACK_OVERFLOW)
    what = "the match needs more than tokenlab's " + std::to_string(kRegexStackBytes >> 20) +
           " MiB of backtracking memory on this text (a repeated group such as (?:a|b)+ over a "
           "long run of text)";
  else
    what = "the match failed";
  const std::string shown = pattern_.size() > 200 ? pattern_.substr(0, 200) + "..." : pattern_;
  throw Error("regular expression /" + shown + "/: " + what + " (ICU " + u_errorName(code) +
              ", at byte " + std::to_string(from) + " of a text of " + std::to_string(text_bytes) +
              " bytes)");
}

bool Regex::next_match(std::string_view text, std::size_t from, std::size_t& start,
                       std::size_t& end) const {
  bool new_text = from == 0;  // for_each_match always starts at 0
  if (preset_) {
    const std::size_t preset_end = preset_(text, from);
    if (preset_end != detail::kPresetUndecided) {
      start = from;
      end = preset_end;
      return true;
    }
    // ICU has not seen this text (or has seen it only up to an earlier match).
    new_text = true;
  }
  // A RegexMatcher is not thread-safe: each thread keeps one per pattern.
  MatcherCache& cache = matcher_cache();
  UErrorCode status = U_ZERO_ERROR;
  auto* compiled = static_cast<Compiled*>(compiled_);
  std::call_once(compiled->compiled, [&] {
    compiled->pattern = compile_icu(to_icu_syntax(pattern_, version_), pattern_);
  });
  auto& matcher = cache.matchers[compiled->serial];
  if (!matcher) {
    matcher.reset(compiled->pattern->matcher(status));
    if (U_FAILURE(status)) throw Error(std::string("regex matcher: ") + u_errorName(status));
    // Patterns come from files (a tokenizer.json's Split, a tiktoken JSON's
    // pat_str): one with nested repetition, (a+)+$, backtracks exponentially.
    matcher->setTimeLimit(kRegexTimeLimit, status);
    matcher->setStackLimit(kRegexStackBytes, status);
    if (U_FAILURE(status)) throw Error(std::string("regex limits: ") + u_errorName(status));
  }
  if (new_text) {
    cache.text =
        utext_openUTF8(cache.text, text.data(), static_cast<int64_t>(text.size()), &status);
    matcher->reset(cache.text);
  }
  const bool found = matcher->find(static_cast<int64_t>(from), status);
  // A failed find is not "no more matches": treating it so dropped the rest of
  // the text without a word (a 1 MB line encoded to nothing, exit 0).
  if (U_FAILURE(status)) fail_match(status, text.size(), from);
  if (!found) return false;
  start = static_cast<std::size_t>(matcher->start64(status));
  end = static_cast<std::size_t>(matcher->end64(status));
  return U_SUCCESS(status);
}

}  // namespace tokenlab
