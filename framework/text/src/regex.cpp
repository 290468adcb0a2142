#include <unicode/regex.h>
#include <unicode/utext.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "preset_matchers.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/regex.hpp"

namespace tokenlab {

SplitSequenceRun split_sequence_run(std::string_view key) noexcept {
  return detail::find_split_sequence_run(key);
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

// Rust's regex and Oniguruma (what HF and tiktoken run) take \s as the
// White_Space property; ICU's \s is [\t\n\f\r\p{Z}], without U+000B and U+0085.
std::string to_icu_syntax(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 32);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      if (next == 's') {
        out += "\\p{White_Space}";
      } else if (next == 'S') {
        out += "\\P{White_Space}";
      } else {
        out += pattern[i];
        out += next;
      }
      ++i;
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
  std::string icu_pattern;  // until compiled
  std::once_flag compiled;
};

std::unique_ptr<icu::RegexPattern> compile_icu(const std::string& icu_pattern,
                                               const std::string& pattern) {
  UParseError parse_error{};
  UErrorCode status = U_ZERO_ERROR;
  auto compiled = std::unique_ptr<icu::RegexPattern>(icu::RegexPattern::compile(
      icu::UnicodeString::fromUTF8(icu_pattern), 0, parse_error, status));
  if (U_FAILURE(status))
    throw Error("regular expression /" + pattern + "/: " + u_errorName(status) + " at offset " +
                std::to_string(parse_error.offset));
  return compiled;
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

Regex::Regex(std::string pattern) : pattern_(std::move(pattern)) {
  preset_ = detail::find_preset_matcher(pattern_);
  preset_run_ = detail::find_preset_run(pattern_);
  auto compiled = std::make_unique<Compiled>();
  compiled->serial = next_regex_serial();
  std::string icu_pattern = to_icu_syntax(pattern_);
  if (preset_) {
    compiled->icu_pattern = std::move(icu_pattern);
  } else {  // an error in the pattern is the constructor's to report
    compiled->pattern = compile_icu(icu_pattern, pattern_);
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
    compiled->pattern = compile_icu(compiled->icu_pattern, pattern_);
    compiled->icu_pattern = std::string();
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
