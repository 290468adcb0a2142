#include "commands/marker_display.hpp"

#include <cstddef>
#include <string_view>

#include "tokenlab/types.hpp"

namespace tokenlab::cli {

// Shows the boundary marker the way textbooks do: </w> at the end of a word.
std::string show(const std::string& text, MarkerStyle marker) {
  if (marker != MarkerStyle::suffix) return text;
  std::string out;
  const std::string_view m(kBoundaryMarker);
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, m.size(), m) == 0) {
      out += "</w>";
      i += m.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace tokenlab::cli
