#include "tokenlab/json_nesting.hpp"

#include "tokenlab/error.hpp"

namespace tokenlab {

std::size_t find_json_nesting_over(std::string_view text, std::size_t max_depth) noexcept {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
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
  if (at != std::string_view::npos)
    throw Error(source + ": JSON nests deeper than " + std::to_string(max_depth) +
                " levels (at byte " + std::to_string(at) + "); tokenlab refuses deeper nesting");
}

}  // namespace tokenlab
