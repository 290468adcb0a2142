#include <algorithm>

#include "tokenlab/segmenter_support.hpp"

namespace tokenlab {

void add_special_tokens(Vocabulary& vocabulary, const TrainOptions& options,
                        const std::vector<std::string>& defaults, const std::string& unknown_token,
                        const std::string& plugin) {
  std::vector<std::string> specials = options.special_tokens.value_or(defaults);
  if (!unknown_token.empty() &&
      std::find(specials.begin(), specials.end(), unknown_token) == specials.end())
    specials.insert(specials.begin(), unknown_token);
  for (const auto& s : specials) {
    if (s.empty()) throw Error(plugin + ": a special token is empty");
    if (vocabulary.contains(s)) throw Error(plugin + ": special token '" + s + "' given twice");
    vocabulary.add_special(s);
  }
  if (options.vocab_size <= specials.size())
    throw Error(plugin + ": vocabulary size " + std::to_string(options.vocab_size) +
                " is too small: the " + std::to_string(specials.size()) +
                " special tokens need it to be at least " + std::to_string(specials.size() + 1));
  if (!unknown_token.empty()) vocabulary.set_unknown(*vocabulary.find(unknown_token));
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
