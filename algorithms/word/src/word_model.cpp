#include "tokenlab/word/word_model.hpp"

#include <algorithm>
#include <numeric>

#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::word {

void WordSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (!word.empty()) out.push_back(find_piece(word).value_or(unknown_id()));
}

void WordSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat) throw Error("word: cannot export format '" + format + "'");
  ModelDescription m = describe_vocabulary(ModelKind::word, vocabulary());
  write_model_description(out, m);
}

}  // namespace tokenlab::word
