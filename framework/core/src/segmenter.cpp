// The defaults every Segmenter inherits: the optional capabilities refuse with
// the plugin's name, and pieces display as their vocabulary text.
#include "tokenlab/segmenter.hpp"

#include "tokenlab/error.hpp"
#include "tokenlab/segmenter_source.hpp"

namespace tokenlab {

Segmenter::~Segmenter() = default;
SegmenterSource::~SegmenterSource() = default;

std::string Segmenter::display_piece(TokenId id) const {
  return vocabulary().piece(id);
}

void Segmenter::encode_sampled(std::string_view, const SamplingOptions&, std::uint64_t&,
                               std::vector<TokenId>&) const {
  throw Error("segmenter '" + name() + "' does not support sampling");
}

std::vector<ScoredSegmentation> Segmenter::nbest(std::string_view, std::size_t) const {
  throw Error("segmenter '" + name() + "' does not support n-best segmentation");
}

void Segmenter::import_model(std::istream&, const std::string& format, const std::string& name) {
  throw Error(name + ": segmenter '" + this->name() + "' cannot import format '" + format + "'");
}

void Segmenter::export_model(std::ostream&, const std::string& format) const {
  throw Error("segmenter '" + name() + "' cannot export format '" + format + "'");
}

}  // namespace tokenlab
