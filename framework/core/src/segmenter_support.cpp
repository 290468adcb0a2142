#include "tokenlab/segmenter_support.hpp"

#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

void add_special_tokens(Vocabulary& vocabulary, const TrainOptions& options,
                        const std::vector<std::string>& defaults, const std::string& unknown_token,
                        const std::string& plugin) {
  // Step 1 of the layout rule every trainer follows (vocabulary_layout.hpp).
  LayoutRule rule{.plugin = plugin, .default_specials = defaults, .base = BaseUnits::none};
  if (unknown_token.empty())
    rule.unknown = UnknownToken::none;
  else
    rule.unknown_spellings = {unknown_token};
  vocabulary = lay_out_vocabulary(WordCounts{}, options, rule, nullptr).vocabulary;
}

std::string decode_pieces(const Vocabulary& vocabulary, std::span<const TokenId> ids) {
  std::string out;
  const auto unknown = vocabulary.unknown_id();
  for (const TokenId id : ids) {
    if (unknown && id == *unknown) {
      out += kUnknownSurface;
    } else if (!vocabulary.is_special(id)) {
      out += vocabulary.piece(id);
    }
  }
  return out;
}

}  // namespace tokenlab
