#include "tokenlab/pretrained/sentencepiece_writer.hpp"

#include <cmath>
#include <limits>

#include "charsmap_builder.hpp"
#include "sentencepiece_model.pb.h"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

using Piece = sentencepiece::ModelProto::SentencePiece;

[[noreturn]] void refuse(const std::string& setting, const std::string& why,
                         const std::string& nearest) {
  throw Error("cannot export to sentencepiece: " + setting + " " + why +
              "; the nearest exportable choice is " + nearest);
}

void check_pipeline(const ModelDescription& m, const NormalizerOptions& n,
                    const PreTokenizerOptions& p) {
  if (m.kind != ModelKind::unigram && m.kind != ModelKind::bpe)
    refuse("a model of this kind", "is neither unigram nor BPE, the two SentencePiece runs",
           "--format tokenizer.json");
  if (m.byte_level)
    refuse("a byte-level BPE (units=bytes)", "merges bytes, and SentencePiece merges characters",
           "units=chars with byte_fallback=true, or --format tiktoken");
  if (p.kind != PreTokenizerKind::whitespace || p.marker != MarkerStyle::prefix)
    refuse("--pre-tokenizer " + p.to_string(),
           "is not SentencePiece's (words at white space, ▁ before each)",
           "--pre-tokenizer whitespace (marker prefix)");
  if (n.form == NormalizationForm::bert)
    refuse("normalization bert", "is BERT's, not SentencePiece's", "--normalization nfkc");
  if (n.strip_accents)
    refuse("strip-accents", "has no SentencePiece normalization rule set here", "no strip-accents");
  if (n.keep_whitespace)
    refuse("+keep-whitespace", "keeps what SentencePiece collapses",
           "the default white space handling");
  if (m.kind == ModelKind::bpe && !m.byte_fallback)
    refuse("a BPE without byte fallback",
           "gives one unknown token per unknown character, and SentencePiece joins a run of "
           "them into one",
           "--option byte_fallback=true");
  if (!m.unknown)
    refuse("a model without an unknown token", "cannot be loaded by SentencePiece",
           "a model trained with one");
}

bool is_byte_piece(const std::string& piece) {
  for (unsigned b = 0; b < 256; ++b)
    if (piece == byte_fallback_piece(b)) return true;
  return false;
}

std::string normalizer_name(const NormalizerOptions& n) {
  std::string name = n.form == NormalizationForm::nfkc  ? "nfkc"
                     : n.form == NormalizationForm::nfc ? "nfc"
                                                        : "identity";
  if (n.lowercase) name += "_cf";  // SentencePiece's name for case-folded rule sets
  return name;
}

float score_as_float(double score, TokenId id) {
  const double limit = std::numeric_limits<float>::max();
  if (!std::isfinite(score) || std::fabs(score) > limit)
    throw Error("cannot export to sentencepiece: the score of token " + std::to_string(id) +
                " is not a finite float");
  return static_cast<float>(score);
}

}  // namespace

std::string write_sentencepiece(const ModelDescription& m, const NormalizerOptions& normalizer,
                                const PreTokenizerOptions& pre_tokenizer) {
  check_pipeline(m, normalizer, pre_tokenizer);
  sentencepiece::ModelProto proto;
  std::vector<bool> special(m.pieces.size(), false);
  for (const TokenId id : m.specials) special[id] = true;
  auto& trainer = *proto.mutable_trainer_spec();
  trainer.set_model_type(m.kind == ModelKind::unigram ? sentencepiece::TrainerSpec::UNIGRAM
                                                      : sentencepiece::TrainerSpec::BPE);
  trainer.set_vocab_size(static_cast<std::int32_t>(m.pieces.size()));
  trainer.set_byte_fallback(m.byte_fallback);
  trainer.set_unk_id(static_cast<std::int32_t>(*m.unknown));
  trainer.set_unk_piece(m.pieces[*m.unknown]);
  // tokenlab decodes an unknown token as ⁇, without SentencePiece's spaces.
  trainer.set_unk_surface("\u2047");
  trainer.set_bos_id(-1);
  trainer.set_eos_id(-1);
  trainer.set_pad_id(-1);
  for (TokenId id = 0; id < m.pieces.size(); ++id) {
    const std::string& text = m.pieces[id];
    Piece& piece = *proto.add_pieces();
    piece.set_piece(text);
    if (id == *m.unknown) {
      piece.set_type(Piece::UNKNOWN);
    } else if (special[id]) {
      piece.set_type(Piece::CONTROL);
    } else if (m.byte_fallback && is_byte_piece(text)) {
      piece.set_type(Piece::BYTE);
    } else {
      piece.set_type(Piece::NORMAL);
      if (text.find('\0') != std::string::npos)
        throw Error("cannot export to sentencepiece: token " + std::to_string(id) +
                    " holds a NUL byte, which SentencePiece's tries cut keys at");
    }
    if (m.kind == ModelKind::unigram)
      piece.set_score(piece.type() == Piece::NORMAL ? score_as_float(m.scores[id], id) : 0.0F);
    else
      piece.set_score(-static_cast<float>(id));  // exact below 2^24
  }
  if (m.kind == ModelKind::bpe && m.pieces.size() > (std::size_t{1} << 24))
    throw Error("cannot export to sentencepiece: more than 2^24 BPE pieces");
  auto& spec = *proto.mutable_normalizer_spec();
  spec.set_name(normalizer_name(normalizer));
  spec.set_precompiled_charsmap(detail::build_charsmap(detail::normalization_rules(normalizer)));
  spec.set_add_dummy_prefix(true);
  spec.set_remove_extra_whitespaces(true);
  spec.set_escape_whitespaces(true);
  std::string out;
  if (!proto.SerializeToString(&out))
    throw Error("cannot export to sentencepiece: the ModelProto does not serialize");
  return out;
}

}  // namespace tokenlab
