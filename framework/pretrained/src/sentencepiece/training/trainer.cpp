// train_sentencepiece_like (sentencepiece_trainer.hpp): the template's specs,
// the overrides, LoadSentences, the model type's trainer, then
// TrainerInterface::Serialize (trainer_interface.cc).
#include <set>
#include <thread>

#include "sentencepiece/training/training.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {
namespace {

using sentencepiece::ModelProto;
namespace training = sentencepiece_detail::training;

ModelProto parse_template(std::string_view bytes) {
  ModelProto proto;
  if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(
        "template model: not a SentencePiece model (the protobuf ModelProto does not "
        "parse: a truncated or corrupt .model file, or another format)");
  if (!proto.has_trainer_spec())
    throw Error("template model: the .model holds no trainer_spec to train like");
  return proto;
}

// Serialize: the meta pieces at their ids, the trained pieces in the others.
std::string serialize(const ModelProto& like, const training::TrainerSpec& spec,
                      const std::map<int, training::MetaPiece>& meta,
                      const training::Pieces& pieces, const std::vector<std::string>& files) {
  ModelProto out;
  std::set<std::string> dup;
  const auto check = [&](const std::string& piece) {
    if (!dup.insert(piece).second)
      throw Error("SentencePiece training: the piece " + piece +
                  " is already defined (a meta piece equal to a learned one)");
  };
  std::size_t next = 0;
  // As Serialize's loop over every id below vocab_size, stopping once nothing is
  // left to place (a huge vocab_size costs nothing).
  const int last_meta = meta.empty() ? -1 : meta.rbegin()->first;
  for (int id = 0; id < spec.vocab_size() && (next < pieces.size() || id <= last_meta); ++id) {
    if (const auto it = meta.find(id); it != meta.end()) {
      auto* p = out.add_pieces();
      p->set_piece(it->second.piece);
      p->set_type(it->second.type);
      p->set_score(0.0f);
      check(p->piece());
    } else if (next < pieces.size()) {
      auto* p = out.add_pieces();
      p->set_piece(pieces[next].first);
      p->set_score(pieces[next].second);
      ++next;
      check(p->piece());
    }
  }
  *out.mutable_trainer_spec() = spec;
  out.mutable_trainer_spec()->clear_input();
  for (const std::string& f : files) out.mutable_trainer_spec()->add_input(f);
  *out.mutable_normalizer_spec() = like.normalizer_spec();
  if (like.has_denormalizer_spec()) *out.mutable_denormalizer_spec() = like.denormalizer_spec();
  if (!spec.hard_vocab_limit()) {
    out.mutable_trainer_spec()->set_vocab_size(out.pieces_size());
  } else if (out.pieces_size() != spec.vocab_size() || next != pieces.size()) {
    throw Error("SentencePiece training: vocabulary size too high (" +
                std::to_string(spec.vocab_size()) + "); the text gives at most " +
                std::to_string(out.pieces_size()) +
                " pieces: set it to a value <= that, or hard_vocab_limit=false");
  }
  return out.SerializeAsString();
}

}  // namespace

std::string train_sentencepiece_like(std::string_view model_file_bytes,
                                     const std::vector<std::string>& corpus_files,
                                     const SentencePieceTrainingOverrides& overrides,
                                     const std::function<void(const std::string&)>& note) {
  ModelProto like = parse_template(model_file_bytes);
  training::apply_overrides(like, overrides);
  const training::TrainerSpec& spec = like.trainer_spec();
  const auto meta = training::meta_pieces(spec);
  const unsigned threads = overrides.threads != 0
                               ? overrides.threads
                               : std::max(1u, std::thread::hardware_concurrency());
  const bool bpe = spec.model_type() == training::TrainerSpec::BPE;
  const training::TrainingText text =
      training::load_sentences(like, meta, corpus_files, threads, /*mark_unknown=*/bpe, note);
  const training::Pieces pieces = bpe ? training::train_bpe(text, spec, meta.size(), threads, note)
                                      : training::train_unigram(text, spec, meta, threads, note);
  return serialize(like, spec, meta, pieces, corpus_files);
}

}  // namespace tokenlab
