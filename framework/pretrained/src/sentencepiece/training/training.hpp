// The parts of train_sentencepiece_like (sentencepiece_trainer.hpp), each named
// after the function of google/sentencepiece v0.1.97 (src/) it reproduces:
//
//   spec.cpp          VerifySpec, TrainerInterface::InitMetaPieces, and spm_train's
//                     flags applied to the template's TrainerSpec
//   sentences.cpp     TrainerInterface::LoadSentences (reading, sampling, normalizing,
//                     required characters) and SplitSentencesByWhitespace
//   piece_rules.cpp   TrainerInterface::IsValidSentencePiece (unicode_script.cc)
//   bpe_trainer.cpp   bpe::Trainer::Train
//   unigram.cpp       unigram training through tokenlab's trainer (not spm's)
//   trainer.cpp       TrainerInterface::Serialize and the entry point
//
// Internal to tokenlab_pretrained.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sentencepiece_model.pb.h"
#include "tokenlab/pretrained/sentencepiece_trainer.hpp"

namespace tokenlab::sentencepiece_detail::training {

using TrainerSpec = sentencepiece::TrainerSpec;
using PieceType = sentencepiece::ModelProto::SentencePiece::Type;
using Note = std::function<void(const std::string&)>;

inline constexpr char32_t kWSChar = U'\u2581';   // "▁", the escaped space
inline constexpr char32_t kUNKChar = U'\u2585';  // "▅", a character not in the alphabet
inline constexpr char32_t kUPPBoundaryChar = U'\t';
inline constexpr std::string_view kUNKStr = "\xE2\x96\x85";

// ---- spec.cpp ----------------------------------------------------------------------

/// overrides applied to proto's trainer_spec (and normalizer_spec switches), as
/// spm_train's flags would set them; then VerifySpec's checks. Throws Error.
void apply_overrides(sentencepiece::ModelProto& proto,
                     const SentencePieceTrainingOverrides& overrides);

struct MetaPiece {
  std::string piece;
  PieceType type;
};
/// InitMetaPieces: the reserved pieces by id (unknown, bos, eos, pad, control,
/// user-defined, and <0xNN> with byte_fallback). Throws Error as spm_train fails.
std::map<int, MetaPiece> meta_pieces(const TrainerSpec& spec);

// ---- sentences.cpp -------------------------------------------------------------------

struct Sentence {
  std::string text;  // normalized, characters outside the alphabet as kUNKChar
  std::int64_t count = 1;
};

struct TrainingText {
  std::vector<Sentence> sentences;
  /// The alphabet (required_chars_) with counts, in Sorted() order: count
  /// descending, then code point.
  std::vector<std::pair<char32_t, std::int64_t>> required_chars;
};

/// LoadSentences on files, normalized by proto's normalizer_spec; characters
/// outside the alphabet become kUNKChar if mark_unknown. Throws Error naming
/// the file and line.
TrainingText load_sentences(const sentencepiece::ModelProto& proto,
                            const std::map<int, MetaPiece>& meta,
                            const std::vector<std::string>& files, unsigned threads,
                            bool mark_unknown, const Note& note);

/// SplitIntoWords (model_interface.cc) on every sentence, equal words summed;
/// sorted as Sorted(): count descending, then bytes.
std::vector<Sentence> split_by_whitespace(const std::vector<Sentence>& sentences,
                                          const TrainerSpec& spec);

/// The code points of valid UTF-8 text.
std::u32string decode_utf8(std::string_view text);
void append_utf8(char32_t c, std::string& out);

// ---- piece_rules.cpp -----------------------------------------------------------------

/// IsValidSentencePiece for the spec's settings.
class PieceRules {
 public:
  explicit PieceRules(const TrainerSpec& spec);
  [[nodiscard]] bool valid(std::span<const char32_t> piece) const;
  /// Whether no valid piece holds a immediately followed by b (a digit with
  /// split_digits; two scripts, where a's does not depend on what precedes it).
  [[nodiscard]] bool separates(char32_t a, char32_t b) const;

 private:
  std::size_t max_length_;
  bool split_by_whitespace_, treat_whitespace_as_suffix_, allow_whitespace_only_;
  bool split_by_number_, split_digits_, split_by_unicode_script_;
};

/// unicode_script::GetScript's script of c (0: Common), by sentencepiece's table.
int unicode_script(char32_t c) noexcept;

// ---- bpe_trainer.cpp, unigram.cpp ------------------------------------------------------

using Pieces = std::vector<std::pair<std::string, float>>;

/// bpe::Trainer::Train's final_pieces_: the merged pieces, then the alphabet.
Pieces train_bpe(const TrainingText& text, const TrainerSpec& spec, std::size_t meta_count,
                 unsigned threads, const Note& note);

/// Unigram pieces with scores, the alphabet included, best first.
Pieces train_unigram(const TrainingText& text, const TrainerSpec& spec,
                     const std::map<int, MetaPiece>& meta, unsigned threads, const Note& note);

}  // namespace tokenlab::sentencepiece_detail::training
