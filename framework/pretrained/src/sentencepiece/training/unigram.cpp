// model_type=unigram: the sentences SentencePiece would train on (normalized,
// split at white space as SplitSentencesByWhitespace), trained by tokenlab's
// unigram trainer (algorithms/unigram), which follows the same method (seed
// pieces from a suffix array, EM with digamma, pruning by likelihood loss) but
// not spm's arithmetic: the result is close to spm_train's, not equal
// (docs/pretrained.md gives the measured figures and why).
#include <algorithm>

#include "sentencepiece/training/training.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/unigram/unigram_trainer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::sentencepiece_detail::training {

Pieces train_unigram(const TrainingText& text, const TrainerSpec& spec,
                     const std::map<int, MetaPiece>& meta, unsigned threads, const Note& note) {
  // Words are cut where no valid piece can cross (between scripts, around digits
  // with split_digits, at characters no piece holds): tokenlab's trainer knows
  // only the marker rule, and the lattices of the parts are the word's lattice,
  // factored.
  WordCounts counts;
  const PieceRules rules(spec);
  const std::vector<Sentence> words =
      spec.split_by_whitespace() ? split_by_whitespace(text.sentences, spec) : text.sentences;
  for (const Sentence& w : words) {
    const std::u32string chars = decode_utf8(w.text);
    std::string part;
    for (std::size_t i = 0; i < chars.size(); ++i) {
      // The boundary left by a meta piece, NUL and U+2585 are never in a piece.
      const bool never = chars[i] == kUPPBoundaryChar || chars[i] == 0 || chars[i] == kUNKChar;
      if (!part.empty() && (never || rules.separates(chars[i - 1], chars[i]))) {
        counts.add(part, static_cast<std::uint64_t>(w.count));
        part.clear();
      }
      if (!never) append_utf8(chars[i], part);
    }
    if (!part.empty()) counts.add(part, static_cast<std::uint64_t>(w.count));
  }
  unigram::TrainerConfig config;
  config.piece_target = static_cast<std::size_t>(spec.vocab_size()) - meta.size();
  config.character_coverage = spec.character_coverage();
  config.seed_size = static_cast<std::size_t>(spec.seed_sentencepiece_size());
  config.max_piece_length =
      std::min<std::size_t>(255, static_cast<std::size_t>(spec.max_sentencepiece_length()));
  config.shrinking_factor = spec.shrinking_factor();
  config.num_sub_iterations = static_cast<unsigned>(spec.num_sub_iterations());
  config.threads = std::max(1u, threads);
  for (const auto& [id, m] : meta) config.reserved.push_back(m.piece);
  config.reserved.emplace_back(kUNKStr);
  if (note) note("unigram: training on " + std::to_string(counts.size()) + " distinct words");
  const std::vector<unigram::ScoredPiece> trained = unigram::train_pieces(counts, config, nullptr);
  Pieces pieces;
  pieces.reserve(trained.size());
  for (const auto& p : trained) pieces.emplace_back(p.piece, static_cast<float>(p.score));
  // FinalizeSentencePieces' order: Sorted(), score descending, then bytes.
  std::sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  });
  return pieces;
}

}  // namespace tokenlab::sentencepiece_detail::training
