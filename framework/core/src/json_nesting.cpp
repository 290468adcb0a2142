#include "tokenlab/json_nesting.hpp"

#include "tokenlab/error.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tokenlab {

std::size_t find_json_nesting_over(std::string_view text, std::size_t max_depth) noexcept {
  const char* const p = text.data();
  const std::size_t n = text.size();
  std::size_t depth = 0;
  bool in_string = false;
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step: a tokenizer.json is 10 to 33 MB, and a byte-by-byte
  // scan of it, the check before every parse, was 15% of loading GPT-4o's.
  // Each block's quotes, backslashes and brackets are found as bit masks once;
  // the bits that matter in the current state (in a string: quotes and
  // backslashes; outside: quotes and brackets) are then taken in order.
  const auto mask_of = [](__m128i block, char c) {
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(c))));
  };
  while (i + 16 <= n) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const unsigned quotes = mask_of(block, '"');
    const unsigned backslashes = mask_of(block, '\\');
    const unsigned opens = mask_of(block, '[') | mask_of(block, '{');
    const unsigned closes = mask_of(block, ']') | mask_of(block, '}');
    unsigned from = 0;  // the bits below it are done
    for (;;) {
      const unsigned live =
          (in_string ? quotes | backslashes : quotes | opens | closes) & (~0u << from);
      if (live == 0) {
        from = 16;
        break;
      }
      const unsigned k = static_cast<unsigned>(__builtin_ctz(live));
      const unsigned bit = 1u << k;
      from = k + 1;
      if (in_string) {
        if (backslashes & bit)
          ++from;  // the escaped character cannot end the string (it may be the next block's)
        else
          in_string = false;
      } else if (quotes & bit) {
        in_string = true;
      } else if (opens & bit) {
        if (++depth > max_depth) return i + k;
      } else if (depth > 0) {
        --depth;
      }
      if (from >= 16) break;
    }
    i += from;
  }
#endif
  for (; i < n; ++i) {
    const char c = p[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

void check_json_nesting(std::string_view text, std::size_t max_depth, const std::string& source) {
  const std::size_t at = find_json_nesting_over(text, max_depth);
  if (at != std::string_view::npos) throw json_nesting_error(source, max_depth, at);
}

Error json_nesting_error(const std::string& source, std::size_t max_depth, std::size_t at) {
  return Error(source + ": JSON nests deeper than " + std::to_string(max_depth) +
               " levels (at byte " + std::to_string(at) + "); tokenlab refuses deeper nesting");
}

}  // namespace tokenlab
