#include "tokenlab/character/character_model.hpp"

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
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::character {

namespace {

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

void CharacterSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (units_ == UnitKind::code_points) {
    // The hot path: no temporary vector.
    for (std::size_t i = 0; i < word.size();) {
      std::size_t len = utf8::sequence_length(word, i);
      if (len == 0) len = 1;
      // Special tokens are never matched in text, even one spelled like a character.
      out.push_back(find_piece(word.substr(i, len)).value_or(unknown_id()));
      i += len;
    }
    return;
  }
  thread_local std::vector<std::string_view> pieces;
  split_units(word, units_, pieces);
  for (const auto piece : pieces) out.push_back(find_piece(piece).value_or(unknown_id()));
}

void CharacterSegmenter::save_fields(PayloadOArchive& ar) const {
  const auto units = static_cast<std::uint8_t>(units_ == UnitKind::graphemes ? 1 : 0);
  ar << BOOST_SERIALIZATION_NVP(units);
}

std::function<void()> CharacterSegmenter::load_fields(PayloadIArchive& ar, const Vocabulary&) {
  std::uint8_t units = 0;  // 0 code points, 1 graphemes
  ar >> BOOST_SERIALIZATION_NVP(units);
  if (units > 1) ar.fail("bad unit kind " + std::to_string(units));
  return [this, units] { units_ = units == 1 ? UnitKind::graphemes : UnitKind::code_points; };
}

void CharacterSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat)
    throw Error("character: cannot export format '" + format + "'");
  if (units_ == UnitKind::graphemes)
    throw Error(
        "character: units=graphemes has no equivalent in other tools' formats (they cut text "
        "into code points); retrain with units=code_points to export");
  ModelDescription m = describe_vocabulary(ModelKind::character, vocabulary());
  write_model_description(out, m);
}

}  // namespace tokenlab::character
