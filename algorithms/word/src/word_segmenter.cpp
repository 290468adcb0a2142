#include "tokenlab/word/word_segmenter.hpp"

#include <algorithm>
#include <numeric>

#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::word {

namespace {
// 3: the vocabulary in a payload archive (payload.hpp); 2 was a hand-written tagged
// layout, 1 a bare Boost archive.
constexpr std::uint32_t kFormatVersion = 3;
}  // namespace

void WordSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                          TrainingObserver* observer) {
  const OptionReader reader("word", options.extra, {});
  Vocabulary vocabulary;
  add_special_tokens(vocabulary, options, {"<unk>"}, "<unk>", "word");

  const auto& entries = counts.entries();
  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].count > entries[b].count;
  });
  const std::uint64_t min_count = std::max<std::uint64_t>(1, options.min_frequency);
  std::uint64_t covered = 0;
  for (const std::size_t i : order) {
    if (vocabulary.size() >= options.vocab_size || entries[i].count < min_count) break;
    if (entries[i].word.empty() || vocabulary.contains(entries[i].word)) continue;
    vocabulary.add(entries[i].word);
    covered += entries[i].count;
  }
  if (observer) {
    observer->on_message(std::to_string(vocabulary.size() - vocabulary.special_count()) + " of " +
                         std::to_string(entries.size()) + " distinct words kept, covering " +
                         std::to_string(counts.total() == 0
                                            ? 100.0
                                            : 100.0 * static_cast<double>(covered) /
                                                  static_cast<double>(counts.total())) +
                         "% of training word occurrences");
  }
  vocabulary_ = std::move(vocabulary);
}

void WordSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  const auto id = vocabulary_.find(word);
  out.push_back(id && !vocabulary_.is_special(*id) ? *id : *vocabulary_.unknown_id());
}

std::string WordSegmenter::decode(std::span<const TokenId> ids) const {
  return decode_pieces(vocabulary_, ids);
}

void WordSegmenter::save(std::ostream& out) const {
  PayloadOArchive ar(out, "word", kFormatVersion);
  ar << boost::serialization::make_nvp("vocabulary", vocabulary_);
}

void WordSegmenter::load(std::istream& in) {
  PayloadIArchive ar(in, "word", kFormatVersion);
  Vocabulary vocabulary;
  ar >> boost::serialization::make_nvp("vocabulary", vocabulary);
  ar.finish();
  if (!vocabulary.unknown_id()) ar.fail("no unknown token");
  vocabulary_ = std::move(vocabulary);
}

void WordSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat) throw Error("word: cannot export format '" + format + "'");
  ModelDescription m = describe_vocabulary(ModelKind::word, vocabulary_);
  write_model_description(out, m);
}

}  // namespace tokenlab::word
