// Character training: the specials by the shared layout rule
// (vocabulary_layout.hpp), then the most frequent units: code points from the
// framework's alphabet, or grapheme clusters (ICU) by the same coverage rule.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenlab/character/character_model.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::character {

namespace {

// Grapheme clusters by the coverage rule of select_alphabet (descending count,
// ties by bytes, until the kept ones cover `coverage`, at most `limit`).
std::vector<std::pair<std::string, std::uint64_t>> grapheme_units(const WordCounts& counts,
                                                                  double coverage,
                                                                  std::size_t limit,
                                                                  std::uint64_t& total,
                                                                  std::size_t& distinct) {
  std::unordered_map<std::string_view, std::uint64_t> tally;
  std::vector<std::string_view> pieces;
  total = 0;
  for (const auto& entry : counts.entries()) {
    split_units(entry.word, UnitKind::graphemes, pieces);
    for (const auto piece : pieces) {
      tally[piece] += entry.count;
      total += entry.count;
    }
  }
  distinct = tally.size();
  std::vector<std::pair<std::string, std::uint64_t>> sorted;
  sorted.reserve(tally.size());
  for (const auto& [piece, count] : tally) sorted.emplace_back(std::string(piece), count);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::pair<std::string, std::uint64_t>> kept;
  long double covered = 0;
  for (auto& unit : sorted) {
    if (total > 0 && covered / static_cast<long double>(total) >= coverage) break;
    if (kept.size() == limit) break;
    covered += static_cast<long double>(unit.second);
    kept.push_back(std::move(unit));
  }
  return kept;
}

}  // namespace

void CharacterSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                               TrainingObserver* observer) {
  OptionReader reader("character", options.extra,
                      {{"units", "codepoints|graphemes (default codepoints)"}});
  units_ = reader.get_choice("units", {"codepoints", "graphemes"}, "codepoints") == "graphemes"
               ? UnitKind::graphemes
               : UnitKind::code_points;

  // Specials by the shared rule (vocabulary_layout.hpp). Code points are the
  // framework's alphabet, the one every algorithm starts from, selected but placed
  // here in frequency order; grapheme clusters are this plugin's own unit.
  const bool code_points = units_ == UnitKind::code_points;
  VocabularyLayout layout = lay_out_vocabulary(
      counts, options,
      {.plugin = "character", .base = code_points ? BaseUnits::selected : BaseUnits::none},
      observer);
  Vocabulary vocabulary = std::move(layout.vocabulary);
  std::vector<std::pair<std::string, std::uint64_t>> units;
  std::uint64_t total = 0;
  std::uint64_t covered = 0;
  std::size_t distinct = 0;
  const std::size_t room = options.vocab_size - std::min(options.vocab_size, vocabulary.size());
  if (code_points) {
    const Alphabet& alphabet = layout.alphabet;
    for (std::size_t i = 0; i < alphabet.characters.size(); ++i) {
      std::string piece;
      utf8::append(piece, alphabet.characters[i]);
      units.emplace_back(std::move(piece), alphabet.counts[i]);
    }
    total = alphabet.occurrences;
    distinct = alphabet.distinct;
  } else {
    units = grapheme_units(counts, options.character_coverage, room, total, distinct);
  }
  // Ids by descending count, ties by the unit's bytes: deterministic.
  std::sort(units.begin(), units.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (const auto& [piece, count] : units) {
    if (count < std::max<std::uint64_t>(1, options.min_frequency)) break;
    if (vocabulary.contains(piece)) continue;  // a special token spelled like a character
    vocabulary.add(piece);
    covered += count;
  }
  if (observer) {
    observer->on_message(std::to_string(vocabulary.size() - vocabulary.special_count()) + " of " +
                         std::to_string(distinct) + " distinct units kept, covering " +
                         std::to_string(total == 0 ? 100.0
                                                   : 100.0 * static_cast<double>(covered) /
                                                         static_cast<double>(total)) +
                         "% of occurrences");
  }
  set_vocabulary(std::move(vocabulary));
}

}  // namespace tokenlab::character
