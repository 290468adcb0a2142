#include "tokenlab/inference_encoders.hpp"

#include <algorithm>
#include <sstream>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"

namespace tokenlab {

InferenceSubject::~InferenceSubject() = default;

bool InferenceSubject::can_run(InferenceMethod method) const {
  return method == InferenceMethod::own || engine().supports(method) || own_method() == method;
}

void InferenceSubject::encode_unit(InferenceMethod method, std::string_view unit,
                                   std::span<const TokenId> own, bool fixed,
                                   std::vector<TokenId>& out) const {
  if (fixed || method == InferenceMethod::own ||
      (!engine().supports(method) && own_method() == method)) {
    out.insert(out.end(), own.begin(), own.end());
    return;
  }
  engine().encode(method, unit, out);
}

InferenceVocabulary inference_vocabulary(const Segmenter& segmenter) {
  std::stringstream description;
  segmenter.export_model(description, kModelDescriptionFormat);
  ModelDescription model = read_model_description(description);
  InferenceVocabulary v;
  v.pieces = std::move(model.pieces);
  for (const TokenId id : model.specials)
    if (id < v.pieces.size()) v.pieces[id].clear();
  v.unknown = model.unknown;
  if (model.byte_fallback) v.byte_pieces = byte_fallback_ids(segmenter.vocabulary());
  if (v.byte_pieces.size() != 256) v.byte_pieces.clear();
  v.continuation_prefix = model.continuation_prefix;
  v.whole_word_unknown = model.kind == ModelKind::wordpiece;
  if (model.kind == ModelKind::bpe) v.merges = std::move(model.merges);
  if (model.kind == ModelKind::unigram) v.scores = std::move(model.scores);
  return v;
}

namespace {

class SegmenterSubject final : public InferenceSubject {
 public:
  explicit SegmenterSubject(std::shared_ptr<const Segmenter> segmenter)
      : segmenter_(std::move(segmenter)), engine_(inference_vocabulary(*segmenter_)) {}

  void for_each_unit(std::string_view text,
                     const std::function<void(std::string_view, std::span<const TokenId>, bool)>&
                         fn) const override {
    std::vector<TokenId> own;
    segmenter_->encode(text, own);
    fn(text, own, false);
  }
  [[nodiscard]] const InferenceEngine& engine() const override { return engine_; }
  // Every tokenlab model's merges and scores are read, so the engine runs them.
  [[nodiscard]] std::optional<InferenceMethod> own_method() const override { return std::nullopt; }

 private:
  std::shared_ptr<const Segmenter> segmenter_;
  InferenceEngine engine_;
};

// The byte offsets where the own ids end, from the pieces' lengths; one unknown
// token takes what the others leave; nullopt when that is ambiguous.
std::optional<std::vector<std::uint32_t>> own_ends(const InferenceEngine& engine,
                                                   std::string_view unit,
                                                   std::span<const TokenId> own) {
  std::vector<std::size_t> lengths;
  std::size_t known = 0;
  std::size_t unknown_at = own.size();
  for (std::size_t i = 0; i < own.size(); ++i) {
    // Only whether a token starts the unit matters (the continuation prefix).
    const std::size_t length = engine.piece_length(own[i], i == 0 ? 0 : 1);
    if (length == 0) {
      if (unknown_at != own.size()) return std::nullopt;
      unknown_at = i;
    }
    lengths.push_back(length);
    known += length;
  }
  if (known > unit.size() || (unknown_at == own.size() && known != unit.size()))
    return std::nullopt;
  if (unknown_at != own.size()) lengths[unknown_at] = unit.size() - known;
  std::vector<std::uint32_t> ends;
  std::size_t end = 0;
  for (const std::size_t length : lengths)
    ends.push_back(static_cast<std::uint32_t>(end += length));
  return ends;
}

}  // namespace

std::shared_ptr<const InferenceSubject> make_inference_subject(
    std::shared_ptr<const Segmenter> segmenter) {
  return std::make_shared<SegmenterSubject>(std::move(segmenter));
}

InferenceSegmenter::InferenceSegmenter(std::shared_ptr<const Segmenter> base,
                                       std::shared_ptr<const InferenceSubject> subject,
                                       InferenceMethod method)
    : base_(std::move(base)), subject_(std::move(subject)), method_(method) {
  if (!subject_->can_run(method_))
    throw Error(std::string("inference method ") + inference_method_name(method_) + " needs what " +
                base_->name() + " does not have (merges: BPE; likelihood: unigram)");
}

std::string InferenceSegmenter::name() const {
  return base_->name();
}

void InferenceSegmenter::train(const WordCounts&, const TrainOptions&, TrainingObserver*) {
  throw Error("an inference method's segmenter cannot be trained");
}
void InferenceSegmenter::save(std::ostream&) const {
  throw Error("an inference method's segmenter cannot be saved");
}
void InferenceSegmenter::load(std::istream&) {
  throw Error("an inference method's segmenter cannot be loaded");
}

void InferenceSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  subject_->for_each_unit(word,
                          [&](std::string_view unit, std::span<const TokenId> own, bool fixed) {
                            subject_->encode_unit(method_, unit, own, fixed, out);
                          });
}

MethodEncoder::MethodEncoder(std::shared_ptr<const TextEncoder> base,
                             std::shared_ptr<const InferenceSubject> subject,
                             InferenceMethod method)
    : base_(std::move(base)), subject_(std::move(subject)), method_(method) {
  if (!subject_->can_run(method_))
    throw Error(std::string("inference method ") + inference_method_name(method_) +
                " is not available for this tokenizer (merges: BPE; likelihood: unigram)");
}

void MethodEncoder::encode(std::string_view text, std::vector<TokenId>& out) const {
  subject_->for_each_unit(text,
                          [&](std::string_view unit, std::span<const TokenId> own, bool fixed) {
                            subject_->encode_unit(method_, unit, own, fixed, out);
                          });
}

void InferenceAgreement::merge(const InferenceAgreement& o) {
  units += o.units;
  differing_units += o.differing_units;
  unresolved_units += o.unresolved_units;
  own_tokens += o.own_tokens;
  method_tokens += o.method_tokens;
  own_boundaries += o.own_boundaries;
  method_boundaries += o.method_boundaries;
  shared_boundaries += o.shared_boundaries;
}

namespace {
double ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}
}  // namespace

double InferenceAgreement::differing_share() const {
  return ratio(differing_units, units);
}
double InferenceAgreement::precision() const {
  return ratio(shared_boundaries, method_boundaries);
}
double InferenceAgreement::recall() const {
  return ratio(shared_boundaries, own_boundaries);
}
double InferenceAgreement::f1() const {
  // Two segmentations without inner boundaries agree completely.
  if (own_boundaries + method_boundaries == 0) return units == 0 ? 0.0 : 1.0;
  return ratio(2 * shared_boundaries, own_boundaries + method_boundaries);
}

InferenceAgreement measure_agreement(const InferenceSubject& subject, InferenceMethod method,
                                     std::span<const std::string_view> texts) {
  InferenceAgreement a;
  const InferenceEngine& engine = subject.engine();
  const bool as_own = method == InferenceMethod::own ||
                      (!engine.supports(method) && subject.own_method() == method);
  std::vector<TokenId> ids;
  std::vector<std::uint32_t> ends;
  for (const std::string_view text : texts) {
    subject.for_each_unit(
        text, [&](std::string_view unit, std::span<const TokenId> own, bool fixed) {
          if (fixed) return;
          const auto reference = own_ends(engine, unit, own);
          if (!reference) {
            ++a.unresolved_units;
            return;
          }
          ids.clear();
          ends.clear();
          if (as_own) {
            ids.assign(own.begin(), own.end());
            ends = *reference;
          } else {
            engine.encode(method, unit, ids, &ends);
          }
          ++a.units;
          a.own_tokens += own.size();
          a.method_tokens += ids.size();
          if (!std::equal(ids.begin(), ids.end(), own.begin(), own.end())) ++a.differing_units;
          // Inner boundaries: every end but the last; both lists are increasing.
          const std::size_t own_inner = reference->empty() ? 0 : reference->size() - 1;
          const std::size_t method_inner = ends.empty() ? 0 : ends.size() - 1;
          a.own_boundaries += own_inner;
          a.method_boundaries += method_inner;
          std::size_t i = 0;
          std::size_t j = 0;
          while (i < own_inner && j < method_inner) {
            if ((*reference)[i] == ends[j]) {
              ++a.shared_boundaries;
              ++i;
              ++j;
            } else if ((*reference)[i] < ends[j]) {
              ++i;
            } else {
              ++j;
            }
          }
        });
  }
  return a;
}

}  // namespace tokenlab
