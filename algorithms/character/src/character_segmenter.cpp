#include "tokenlab/character/character_segmenter.hpp"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::character {

// The model payload: what save() writes and load() validates before committing.
struct Payload {
  std::uint8_t units = 0;  // 0 code points, 1 graphemes
  Vocabulary vocabulary;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& BOOST_SERIALIZATION_NVP(units) & BOOST_SERIALIZATION_NVP(vocabulary);
  }
};

}  // namespace tokenlab::character

// Bump when Payload's fields change, and have serialize() read the older versions too.
BOOST_CLASS_VERSION(tokenlab::character::Payload, 0)

namespace tokenlab::character {

namespace {

// 3: a payload archive (payload.hpp); 2 was a hand-written tagged layout, 1 a bare
// Boost archive.
constexpr std::uint32_t kFormatVersion = 3;

void split_graphemes(std::string_view word, std::vector<std::string_view>& out) {
  thread_local std::unique_ptr<icu::BreakIterator> iterator;
  UErrorCode status = U_ZERO_ERROR;
  if (!iterator) {
    iterator.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status))
      throw Error(std::string("ICU grapheme iterator: ") + u_errorName(status));
  }
  UText* text = utext_openUTF8(nullptr, word.data(), static_cast<int64_t>(word.size()), &status);
  iterator->setText(text, status);
  std::int32_t begin = iterator->first();
  for (std::int32_t end = iterator->next(); end != icu::BreakIterator::DONE;
       begin = end, end = iterator->next())
    out.push_back(
        word.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
  utext_close(text);
}

}  // namespace

void split_units(std::string_view word, UnitKind kind, std::vector<std::string_view>& out) {
  out.clear();
  if (kind == UnitKind::graphemes && !utf8::find_invalid(word)) {
    split_graphemes(word, out);
    return;
  }
  for (std::size_t i = 0; i < word.size();) {
    std::size_t len = utf8::sequence_length(word, i);
    if (len == 0) len = 1;
    out.push_back(word.substr(i, len));
    i += len;
  }
}

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

  Vocabulary vocabulary;
  add_special_tokens(vocabulary, options, {"<unk>"}, "<unk>", "character");

  // Code points come from the framework's alphabet, the one every algorithm starts
  // from; grapheme clusters are this plugin's own unit.
  std::vector<std::pair<std::string, std::uint64_t>> units;
  std::uint64_t total = 0;
  std::uint64_t covered = 0;
  std::size_t distinct = 0;
  const std::size_t room = options.vocab_size - std::min(options.vocab_size, vocabulary.size());
  if (units_ == UnitKind::code_points) {
    const Alphabet alphabet =
        select_alphabet(counts, options.character_coverage, options.threads, room);
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
  vocabulary_ = std::move(vocabulary);
}

void CharacterSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (units_ == UnitKind::code_points) {
    // The hot path: no temporary vector.
    for (std::size_t i = 0; i < word.size();) {
      std::size_t len = utf8::sequence_length(word, i);
      if (len == 0) len = 1;
      const auto id = vocabulary_.find(word.substr(i, len));
      // Special tokens are never matched in text, even one spelled like a character.
      out.push_back(id && !vocabulary_.is_special(*id) ? *id : *vocabulary_.unknown_id());
      i += len;
    }
    return;
  }
  thread_local std::vector<std::string_view> pieces;
  split_units(word, units_, pieces);
  for (const auto piece : pieces) {
    const auto id = vocabulary_.find(piece);
    out.push_back(id && !vocabulary_.is_special(*id) ? *id : *vocabulary_.unknown_id());
  }
}

std::string CharacterSegmenter::decode(std::span<const TokenId> ids) const {
  return decode_pieces(vocabulary_, ids);
}

void CharacterSegmenter::save(std::ostream& out) const {
  const Payload payload{.units = static_cast<std::uint8_t>(units_ == UnitKind::graphemes ? 1 : 0),
                        .vocabulary = vocabulary_};
  PayloadOArchive ar(out, "character", kFormatVersion);
  ar << boost::serialization::make_nvp("model", payload);
}

void CharacterSegmenter::load(std::istream& in) {
  PayloadIArchive ar(in, "character", kFormatVersion);
  Payload payload;
  ar >> boost::serialization::make_nvp("model", payload);
  ar.finish();
  if (payload.units > 1) ar.fail("bad unit kind " + std::to_string(payload.units));
  if (!payload.vocabulary.unknown_id()) ar.fail("no unknown token");
  units_ = payload.units == 1 ? UnitKind::graphemes : UnitKind::code_points;
  vocabulary_ = std::move(payload.vocabulary);
}

void CharacterSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat)
    throw Error("character: cannot export format '" + format + "'");
  if (units_ == UnitKind::graphemes)
    throw Error(
        "character: units=graphemes has no equivalent in other tools' formats (they cut text "
        "into code points); retrain with units=code_points to export");
  ModelDescription m = describe_vocabulary(ModelKind::character, vocabulary_);
  write_model_description(out, m);
}

}  // namespace tokenlab::character
