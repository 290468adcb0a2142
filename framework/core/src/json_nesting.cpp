#include "tokenlab/json_nesting.hpp"

#include "tokenlab/error.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tokenlab {

namespace {

// The offset of the first of the wanted bytes at or after i, or n. Sixteen
// bytes a step with SSE2: a tokenizer.json is 10 to 33 MB, and a byte-by-byte
// scan of it, the check before every parse, was 15% of loading GPT-4o's.
template <char... kWanted>
std::size_t find_first(const char* p, std::size_t i, std::size_t n) noexcept {
#if defined(__SSE2__)
  while (i + 16 <= n) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i hits = _mm_setzero_si128();
    ((hits = _mm_or_si128(hits, _mm_cmpeq_epi8(block, _mm_set1_epi8(kWanted)))), ...);
    if (const int mask = _mm_movemask_epi8(hits); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  for (; i < n; ++i)
    if (((p[i] == kWanted) || ...)) return i;
  return n;
}

}  // namespace

std::size_t find_json_nesting_over(std::string_view text, std::size_t max_depth) noexcept {
  const char* const p = text.data();
  const std::size_t n = text.size();
  std::size_t depth = 0;
  for (std::size_t i = 0;;) {
    i = find_first<'"', '[', '{', ']', '}'>(p, i, n);
    if (i >= n) return std::string_view::npos;
    switch (p[i]) {
      case '"':
        // A string: brackets in it do not count, up to a quote no backslash escapes.
        for (++i;;) {
          i = find_first<'"', '\\'>(p, i, n);
          if (i >= n) return std::string_view::npos;  // unterminated: the parser says so
          if (p[i] == '"') break;
          i += 2;  // the escaped character cannot end the string
        }
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      default:  // ']' or '}'
        if (depth > 0) --depth;
        break;
    }
    ++i;
  }
}

void check_json_nesting(std::string_view text, std::size_t max_depth, const std::string& source) {
  const std::size_t at = find_json_nesting_over(text, max_depth);
  if (at != std::string_view::npos)
    throw Error(source + ": JSON nests deeper than " + std::to_string(max_depth) +
                " levels (at byte " + std::to_string(at) + "); tokenlab refuses deeper nesting");
}

}  // namespace tokenlab
