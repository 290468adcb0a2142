// Unigram training's entry point: the options, the vocabulary's layout (specials
// and byte pieces, vocabulary_layout.hpp), then the trainer (seeding and EM,
// unigram_trainer_seeding.cpp and unigram_trainer_em.cpp) and the model.
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/unigram/unigram_model.hpp"
#include "tokenlab/unigram/unigram_trainer.hpp"
#include "tokenlab/vocabulary_layout.hpp"

namespace tokenlab::unigram {

void UnigramSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                             TrainingObserver* observer) {
  OptionReader reader(
      "unigram", options.extra,
      {{"seed_size", "seed vocabulary size, required characters included (default 1000000)"},
       {"max_piece_length", "longest piece in code points, 1..255 (default 16)"},
       {"shrinking_factor", "share of pieces each pruning step keeps, in (0, 1) (default 0.75)"},
       {"num_sub_iterations", "EM iterations between pruning steps (default 2)"},
       {"byte_fallback",
        "auto|true|false: characters outside the alphabet become UTF-8 byte tokens; auto "
        "(the default) adds the 256 byte pieces when vocab_size has room for them beside the "
        "alphabet"}});
  TrainerConfig config;
  config.seed_size = reader.get_uint("seed_size", 1000000, 1, 1000000000);
  config.max_piece_length = reader.get_uint("max_piece_length", 16, 1, 255);
  config.shrinking_factor = reader.get_double("shrinking_factor", 0.75, 0.0, 1.0);
  if (config.shrinking_factor <= 0.0 || config.shrinking_factor >= 1.0)
    throw Error("unigram: option shrinking_factor must be strictly between 0 and 1, got " +
                reader.get_string("shrinking_factor", ""));
  config.num_sub_iterations =
      static_cast<unsigned>(reader.get_uint("num_sub_iterations", 2, 1, 1000));
  const std::string fallback =
      reader.get_choice("byte_fallback", {"auto", "true", "false"}, "auto");
  if (!(options.character_coverage > 0.0 && options.character_coverage <= 1.0))
    throw Error("unigram: character_coverage must be in (0, 1]");

  // Specials and byte pieces by the shared rule (vocabulary_layout.hpp); the
  // characters are seed pieces with scores of their own, so none are placed here.
  LayoutRule rule{.plugin = "unigram"};
  rule.byte_pieces = fallback == "true"   ? BytePieces::on
                     : fallback == "auto" ? BytePieces::automatic
                                          : BytePieces::off;
  rule.base = BaseUnits::none;
  VocabularyLayout layout = lay_out_vocabulary(counts, options, rule, observer);
  Vocabulary vocabulary = std::move(layout.vocabulary);
  const bool byte_fallback = layout.byte_fallback();
  const TokenId byte_base = layout.first_byte_piece.value_or(0);
  config.piece_target = options.vocab_size - vocabulary.size();
  config.character_coverage = options.character_coverage;
  config.min_frequency = options.min_frequency;
  config.max_steps = options.max_steps;
  config.threads = resolve_threads(options.threads);
  config.reserved = vocabulary.pieces();

  const std::vector<ScoredPiece> pieces = train_pieces(counts, config, observer);
  std::vector<double> scores(vocabulary.size(), 0.0);
  for (const auto& p : pieces) {
    vocabulary.add(p.piece);
    scores.push_back(p.score);
  }
  vocabulary_ = std::move(vocabulary);
  scores_ = std::move(scores);
  byte_fallback_ = byte_fallback;
  byte_base_ = byte_base;
  rebuild();
  if (observer != nullptr) observer->on_progress("unigram", 1.0);
}

}  // namespace tokenlab::unigram
