// File: pretrained/pipeline.hpp
// The stages of a real model's tokenizer, as Hugging Face tokenizers,
// tiktoken and SentencePiece run them:
//
//   text --added tokens--> segments --normalizers--> text --pre-tokenizers-->
//   pieces --model--> ids;   ids --token strings--> decoders --> text
//
// Each stage is a small interface with one implementation per component of the
// reference libraries (pretrained/components.hpp builds them). Unlike tokenlab's
// own Normalizer/PreTokenizer, which are closed option sets chosen for fair
// training, these reproduce foreign pipelines exactly, one component at a time.
// Every stage is immutable after construction and safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

/// One normalizer (HF `normalizer`, or SentencePiece's normalizer spec).
class TOKENLAB_PRETRAINED_API NormalizerStep {
 public:
  virtual ~NormalizerStep();
  /// Rewrites text in place. text is valid UTF-8 and stays valid.
  virtual void apply(std::string& text) const = 0;
  /// What apply() does, by the step's plain algorithm alone (no fast path);
  /// the tests hold each fast path to it. Steps without fast paths just apply().
  virtual void apply_plain(std::string& text) const { apply(text); }
  /// One line for `tokenlab inspect`, e.g. `Replace(" " -> "▁")`.
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// One pre-tokenizer: cuts a piece of normalized text into smaller pieces.
class TOKENLAB_PRETRAINED_API PreTokenizerStep {
 public:
  virtual ~PreTokenizerStep();
  /// Appends the pieces of piece to out, in order. Empty pieces are not appended.
  /// at_start: piece begins where the original text begins (HF's offset 0, which
  /// Metaspace's prepend_scheme "first" asks about).
  virtual void split(std::string_view piece, bool at_start,
                     std::vector<std::string>& out) const = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// The model: one pre-tokenized piece to ids.
class TOKENLAB_PRETRAINED_API PretrainedModel {
 public:
  virtual ~PretrainedModel();
  /// Appends the ids of one piece. Thread-safe.
  virtual void encode(std::string_view piece, std::vector<TokenId>& out) const = 0;
  /// The ids encode() appends, by the model's plain algorithm alone: no cache of
  /// words, no cut of the piece into parts, no fast path. Slow; the tests hold
  /// each fast path to it. Models without fast paths just encode().
  virtual void encode_plain(std::string_view piece, std::vector<TokenId>& out) const {
    encode(piece, out);
  }
  /// Builds now, on up to threads threads, what the model would otherwise build
  /// at its first encode (a BPE model's merge table). The default: nothing.
  virtual void prepare(unsigned threads) const { (void)threads; }
  /// "BPE", "WordPiece", "Unigram", "WordLevel", "tiktoken BPE", "SentencePiece unigram"...
  [[nodiscard]] virtual std::string type() const = 0;
  /// Options worth showing in `tokenlab inspect` (may be empty).
  [[nodiscard]] virtual std::string describe() const = 0;
  /// The id of the unknown token, or kNoToken.
  [[nodiscard]] virtual TokenId unknown_id() const { return kNoToken; }

  struct Segmentation {
    std::vector<TokenId> ids;
    double score = 0.0;  // the model's own score of the path (a log probability)
  };
  /// Whether nbest() is implemented: the models whose library has n-best
  /// segmentation (SentencePiece unigram).
  [[nodiscard]] virtual bool has_nbest() const { return false; }
  /// The k best segmentations of one piece, best first, exactly as the reference
  /// library lists them. Throws Error when has_nbest() is false.
  [[nodiscard]] virtual std::vector<Segmentation> nbest(std::string_view piece,
                                                        std::size_t k) const;

  /// What the model's algorithm runs on, so that it can be run again with some
  /// entries taken out of the vocabulary (compare --allocation): a BPE's merges,
  /// a unigram model's scores, WordPiece's longest match. Kind none: the model
  /// exposes none of it.
  struct Rules {
    enum class Kind : std::uint8_t { none, merges, likelihood, longest_match };
    Kind kind = Kind::none;
    std::vector<std::pair<TokenId, TokenId>> merges{};  // lowest rank first
    std::vector<std::uint32_t> merge_ranks{};  // parallel to merges; empty: a merge's index
    std::vector<double> scores{};              // likelihood: the log probability by id
    bool whole_piece_first = false;            // a piece that is a token stays whole
    bool byte_units = false;                   // merges start from bytes, not characters
  };
  /// The default: none.
  [[nodiscard]] virtual Rules rules() const { return {}; }

  static constexpr TokenId kNoToken = 0xFFFFFFFFu;
};

/// One decoder: HF's decode chain works on the list of token strings.
class TOKENLAB_PRETRAINED_API DecoderStep {
 public:
  virtual ~DecoderStep();
  virtual void decode(std::vector<std::string>& tokens) const = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

}  // namespace tokenlab
