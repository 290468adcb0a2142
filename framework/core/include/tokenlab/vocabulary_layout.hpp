// File: vocabulary_layout.hpp
// The first step of every trainer: the vocabulary before anything is learned.
// One rule, written once, for every built-in algorithm and for plugins through
// VocabularySegmenter::new_vocabulary (the role of SentencePiece's
// TrainerInterface, which lays out meta pieces, byte pieces and required
// characters before the model-specific trainer runs).
//
//   VocabularyLayout base = lay_out_vocabulary(counts, options,
//       {.plugin = "bpe", .byte_pieces = BytePieces::automatic}, observer);
//   base.vocabulary   // specials, then <0x00>..<0xFF>, then the alphabet
//
// The rule, in id order:
//  1. Special tokens: options.special_tokens when given, else rule.default_specials,
//     in that order; none empty, none twice. The unknown token is the first of
//     rule.unknown_spellings in the list; when none is there:
//       UnknownToken::required   -> unknown_spellings[0] is inserted first;
//       UnknownToken::when_listed -> only a default list gets one inserted; an
//                                   explicit list without it means the model has
//                                   no unknown token (BPE's textbook traces);
//       UnknownToken::none        -> the model has none (byte-level BPE).
//     vocab_size must leave room for at least one piece beyond the specials.
//  2. Byte pieces "<0x00>".."<0xFF>" (SentencePiece's byte_fallback), when
//     BytePieces::on, or BytePieces::automatic and the run is not step-limited
//     (max_steps == 0) and vocab_size holds the specials, the 256 byte pieces and
//     the whole alphabet. Automatic and off says why through the observer.
//  3. The base alphabet (alphabet.hpp's select_alphabet at
//     options.character_coverage), trimmed to the most frequent characters that
//     fit the room left, with a message through the observer when trimmed:
//       BaseUnits::characters -> one piece per character, code point order;
//       BaseUnits::bytes      -> the 256 single bytes, byte order;
//       BaseUnits::selected   -> selected but not placed: the algorithm makes its
//                                own units of them (character's frequency order);
//       BaseUnits::none       -> nothing selected (the algorithm seeds its own).
//     A piece that a special token already spells is not added twice.
//
// Deterministic whatever options.threads is. Throws Error naming rule.plugin.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

enum class UnknownToken { required, when_listed, none };
enum class BytePieces { off, on, automatic };
enum class BaseUnits { characters, bytes, selected, none };

/// What differs between algorithms; everything else in the rule is shared.
struct LayoutRule {
  std::string plugin;  // names the algorithm in messages
  std::vector<std::string> default_specials{"<unk>"};
  std::vector<std::string> unknown_spellings{"<unk>"};
  UnknownToken unknown = UnknownToken::required;
  BytePieces byte_pieces = BytePieces::off;
  BaseUnits base = BaseUnits::characters;
};

struct TOKENLAB_API VocabularyLayout {
  Vocabulary vocabulary;
  /// The id of "<0x00>" when byte pieces were laid out ("<0xNN>" is that + NN).
  std::optional<TokenId> first_byte_piece;
  /// The base pieces' ids, in alphabet (or byte) order; a special token that
  /// spells a character stands for it.
  std::vector<TokenId> base_ids;
  /// The alphabet as selected and trimmed (empty for BaseUnits::bytes and none).
  Alphabet alphabet;
  /// Characters the alphabet would have kept with room for all of them.
  std::size_t alphabet_wanted = 0;

  [[nodiscard]] bool byte_fallback() const noexcept { return first_byte_piece.has_value(); }
};

/// Lays out the vocabulary by the rule above. observer may be null.
[[nodiscard]] TOKENLAB_API VocabularyLayout lay_out_vocabulary(const WordCounts& counts,
                                                               const TrainOptions& options,
                                                               const LayoutRule& rule,
                                                               TrainingObserver* observer);

/// Step 1 alone, for models assembled from a list rather than trained (imports).
/// vocab_size is not checked.
TOKENLAB_API void lay_out_special_tokens(Vocabulary& vocabulary,
                                         const std::vector<std::string>& specials,
                                         const LayoutRule& rule);

}  // namespace tokenlab
