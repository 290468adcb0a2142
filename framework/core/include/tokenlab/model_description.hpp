// File: model_description.hpp
// A trained model in neutral form, for exporters to other tools' formats
// (tokenizer.json, tiktoken, SentencePiece): the plugin says what its model is,
// the exporter (tokenlab_pretrained) decides how another library must be told.
//
//   // in a plugin:
//   void export_model(std::ostream& out, const std::string& format) const override {
//     if (format == kModelDescriptionFormat) return write_model_description(out, describe());
//     ...
//   // in an exporter:
//   std::stringstream s; segmenter.export_model(s, kModelDescriptionFormat);
//   const ModelDescription m = read_model_description(s);
//
// It crosses the plugin boundary as bytes (pieces hex-encoded, scores as exact
// hexadecimal floats), so no C++ type of the plugin is shared with the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab {

/// The export_model() format name for a ModelDescription.
inline constexpr const char* kModelDescriptionFormat = "tokenlab-model-description";

enum class ModelKind {
  bpe,        // merges applied by rank (lowest first, leftmost on ties)
  wordpiece,  // greedy longest match, continuation prefix
  unigram,    // Viterbi over piece log probabilities
  word,       // whole words or the unknown token
  character,  // one token per code point, or the unknown token
};

/// The kind as the description file and the plugins name it ("bpe", "wordpiece", ...).
[[nodiscard]] TOKENLAB_API const char* model_kind_name(ModelKind kind) noexcept;

struct TOKENLAB_API ModelDescription {
  ModelKind kind = ModelKind::bpe;
  /// Every piece by id, as the segmenter's bytes (byte-level BPE: raw bytes).
  std::vector<std::string> pieces;
  /// Ids of the special tokens (the unknown token among them, if there is one).
  std::vector<TokenId> specials;
  std::optional<TokenId> unknown;
  /// BPE and unigram: characters outside the vocabulary become <0xNN> pieces.
  bool byte_fallback = false;
  /// BPE: the base units are bytes (the pieces are raw bytes), not characters.
  bool byte_level = false;
  /// BPE: the model's default BPE-dropout (tokenlab applies it when sampling).
  double dropout = 0.0;
  /// BPE: the merges in rank order, as (left id, right id).
  std::vector<std::pair<TokenId, TokenId>> merges;
  /// Unigram: the log probability of every id (0 for specials and byte pieces).
  std::vector<double> scores;
  /// WordPiece: the continuation prefix and the longest word, in code points.
  std::string continuation_prefix;
  std::size_t max_input_chars_per_word = 0;
};

/// A description of kind with the vocabulary's pieces, its specials (the first
/// special_count() ids) and its unknown token; the plugin adds the rest.
TOKENLAB_API ModelDescription describe_vocabulary(ModelKind kind, const Vocabulary& vocabulary);

TOKENLAB_API void write_model_description(std::ostream& out, const ModelDescription& model);
/// Throws Error naming the line and what is wrong; checks ids against the pieces.
TOKENLAB_API ModelDescription read_model_description(std::istream& in);

}  // namespace tokenlab
