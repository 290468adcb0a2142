#include "tokenlab/training_counts.hpp"

#include <utility>

#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

// Whether word has more than max_chars code points, without counting past that.
bool longer_than(std::string_view word, std::size_t max_chars) noexcept {
  if (word.size() <= max_chars) return false;  // a code point takes at least a byte
  std::size_t chars = 0;
  for (const char c : word)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++chars > max_chars) return true;
  return false;
}

}  // namespace

LongWords leave_out_long_words(WordCounts& counts, std::size_t max_chars) {
  LongWords cut;
  for (const auto& e : counts.entries()) {
    if (!longer_than(e.word, max_chars)) continue;
    ++cut.distinct;
    cut.occurrences += e.count;
  }
  if (cut.distinct == 0) return cut;
  WordCounts kept;
  kept.reserve(counts.size() - cut.distinct);
  for (const auto& e : counts.entries())
    if (!longer_than(e.word, max_chars)) kept.add(e.word, e.count);
  counts = std::move(kept);
  return cut;
}

std::string describe(const LongWords& cut, std::size_t max_chars) {
  if (cut.distinct == 0) return {};
  return std::to_string(cut.distinct) + " distinct word" + (cut.distinct == 1 ? "" : "s") + " (" +
         std::to_string(cut.occurrences) + " occurrence" + (cut.occurrences == 1 ? "" : "s") +
         ") longer than " + std::to_string(max_chars) + " characters left out of training";
}

}  // namespace tokenlab
