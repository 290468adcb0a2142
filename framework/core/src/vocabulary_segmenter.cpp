#include "tokenlab/vocabulary_segmenter.hpp"

#include <utility>

#include "tokenlab/error.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

void check_ids(std::span<const TokenId> ids, std::size_t vocabulary_size,
               const std::string& plugin) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= vocabulary_size)
      throw Error(
          plugin + " produced token id " + std::to_string(ids[i]) + " (at position " +
          std::to_string(i) + "), outside its vocabulary of " + std::to_string(vocabulary_size) +
          " entries (valid ids: 0.." +
          (vocabulary_size == 0 ? std::string("none") : std::to_string(vocabulary_size - 1)) + ")");
}

void VocabularySegmenterBase::check_ids(std::span<const TokenId> ids) const {
  tokenlab::check_ids(ids, vocabulary_.size(), name());
}

std::string VocabularySegmenterBase::decode(std::span<const TokenId> ids) const {
  check_ids(ids);
  return decode_pieces(vocabulary_, ids);
}

std::string VocabularySegmenterBase::display_piece(TokenId id) const {
  check_ids(std::span<const TokenId>(&id, 1));
  return vocabulary_.piece(id);
}

Vocabulary VocabularySegmenterBase::new_vocabulary(const TrainOptions& options) const {
  return lay_out_vocabulary(WordCounts{}, options, {.plugin = name(), .base = BaseUnits::none},
                            nullptr)
      .vocabulary;
}

Vocabulary VocabularySegmenterBase::new_vocabulary(const TrainOptions& options,
                                                   const WordCounts& counts,
                                                   TrainingObserver* observer) const {
  return lay_out_vocabulary(counts, options, {.plugin = name()}, observer).vocabulary;
}

void VocabularySegmenterBase::set_vocabulary(Vocabulary vocabulary) {
  if (!vocabulary.unknown_id())
    throw Error(name() + ": the vocabulary has no unknown token (start from new_vocabulary())");
  vocabulary_ = std::move(vocabulary);
}

std::optional<TokenId> VocabularySegmenterBase::find_piece(std::string_view text) const noexcept {
  const auto id = vocabulary_.find(text);
  if (id && vocabulary_.is_special(*id)) return std::nullopt;
  return id;
}

void VocabularySegmenterBase::save_fields(PayloadOArchive&) const {}

std::function<void()> VocabularySegmenterBase::load_fields(PayloadIArchive&, const Vocabulary&) {
  return {};
}

void VocabularySegmenterBase::save(std::ostream& out) const {
  PayloadOArchive ar(out, name(), format_version());
  ar << boost::serialization::make_nvp("vocabulary", vocabulary_);
  save_fields(ar);
}

void VocabularySegmenterBase::load(std::istream& in) {
  PayloadIArchive ar(in, name(), format_version());
  Vocabulary vocabulary;
  ar >> boost::serialization::make_nvp("vocabulary", vocabulary);
  if (!vocabulary.unknown_id()) ar.fail("the vocabulary has no unknown token");
  const std::function<void()> commit = load_fields(ar, vocabulary);
  ar.finish();
  vocabulary_ = std::move(vocabulary);
  if (commit) commit();
}

}  // namespace tokenlab
