#include <unicode/regex.h>
#include <unicode/utext.h>

#include <memory>
#include <unordered_map>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab {

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

struct MatcherCache {
  std::unordered_map<const void*, std::unique_ptr<icu::RegexMatcher>> matchers;
  UText* text = nullptr;
  ~MatcherCache() {
    if (text) utext_close(text);
  }
};

}  // namespace

PretrainedRegex::PretrainedRegex(std::string pattern) : pattern_(std::move(pattern)) {
  const std::string icu_pattern = to_icu_syntax(pattern_);
  UParseError parse_error{};
  UErrorCode status = U_ZERO_ERROR;
  auto compiled = std::unique_ptr<icu::RegexPattern>(icu::RegexPattern::compile(
      icu::UnicodeString::fromUTF8(icu_pattern), 0, parse_error, status));
  if (U_FAILURE(status))
    throw Error("regular expression /" + pattern_ + "/: " + u_errorName(status) + " at offset " +
                std::to_string(parse_error.offset));
  compiled_ = compiled.release();
}

PretrainedRegex::~PretrainedRegex() {
  delete static_cast<icu::RegexPattern*>(compiled_);
}

bool PretrainedRegex::next_match(std::string_view text, std::size_t from, std::size_t& start,
                                 std::size_t& end) const {
  // A RegexMatcher is not thread-safe: each thread keeps one per pattern.
  thread_local MatcherCache cache;
  UErrorCode status = U_ZERO_ERROR;
  auto& matcher = cache.matchers[this];
  if (!matcher) {
    matcher.reset(static_cast<icu::RegexPattern*>(compiled_)->matcher(status));
    if (U_FAILURE(status)) throw Error(std::string("regex matcher: ") + u_errorName(status));
  }
  if (from == 0) {  // a new text: for_each_match always starts at 0
    cache.text =
        utext_openUTF8(cache.text, text.data(), static_cast<int64_t>(text.size()), &status);
    matcher->reset(cache.text);
  }
  if (!matcher->find(static_cast<int64_t>(from), status) || U_FAILURE(status)) {
    return false;
  }
  start = static_cast<std::size_t>(matcher->start64(status));
  end = static_cast<std::size_t>(matcher->end64(status));
  return U_SUCCESS(status);
}

}  // namespace tokenlab
