// File: pretrained/pretrained_tokenizer.hpp
// A real model's tokenizer, read from its own file and run exactly as its own
// library runs it (Hugging Face tokenizers, tiktoken or SentencePiece).
//
//   PretrainedTokenizer gpt4o = PretrainedTokenizer::load("tokenizer.json");
//   std::vector<TokenId> ids = gpt4o.encode("Hello world");   // {13225, 2375}
//   gpt4o.decode(ids) == "Hello world"
//
// Formats (detected from the content; see pretrained/formats.hpp):
// tokenizer.json, tiktoken rank files and npm tiktoken's encoder JSON, and
// SentencePiece's .model. A component or option that tokenlab does not
// implement is an Error naming it and where it is in the file; tokenlab never
// silently builds a different tokenizer.
//
// Copies share the immutable pipeline; encode and decode are thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/pretrained/added_tokens.hpp"
#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/pretrained/model_cache.hpp"
#include "tokenlab/pretrained/pipeline.hpp"
#include "tokenlab/pretrained/token_table.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

class ByteLevelEncoder;  // internal: byte_level/byte_level_encoder.hpp

/// Everything a reader builds: the stages in order, and the id <-> token table.
struct PretrainedPipeline {
  std::string format;  // "tokenizer.json", "tiktoken", "sentencepiece"
  std::string source;  // the file it was read from
  /// The compiled-model entry (model_cache.hpp) its tables were read from;
  /// empty when they were built from the file.
  std::string compiled_entry;
  /// Whether that entry was found by the file's stamp (its device, inode,
  /// size and times) rather than by digesting its bytes: then the bytes the
  /// entry stands for (a tokenizer.json's vocabulary and merges) were not read.
  bool compiled_by_stamp = false;
  /// Whether the added tokens were that entry's, the file's list jumped over
  /// unparsed (a tokenizer.json whose entry holds them).
  bool added_from_entry = false;
  /// The model's vocabulary (what the model can emit); shared with the model.
  std::shared_ptr<const TokenTable> tokens;
  /// Tokens cut out of the text before the model; their ids may lie beyond the
  /// model's (Llama 3's specials) or coincide with model tokens.
  AddedTokens added;
  std::vector<std::unique_ptr<NormalizerStep>> normalizers;
  std::vector<std::unique_ptr<PreTokenizerStep>> pre_tokenizers;
  std::unique_ptr<PretrainedModel> model;
  std::vector<std::unique_ptr<DecoderStep>> decoders;
  /// HF joins tokens with spaces when a tokenizer has no decoder.
  bool join_with_spaces_without_decoder = true;
  /// Byte-level BPE fused into one pass, which encode() runs in place of
  /// pre_tokenizers and model with the same ids (set by the readers when they
  /// recognise the shape; null otherwise).
  std::shared_ptr<const ByteLevelEncoder> byte_level;
};

class TOKENLAB_PRETRAINED_API PretrainedTokenizer final : public TextEncoder {
 public:
  explicit PretrainedTokenizer(std::shared_ptr<const PretrainedPipeline> pipeline);

  /// Reads path in format ("auto" detects it). Throws Error naming the file and
  /// the place (JSON path, line or byte offset) of any problem. threads: how many
  /// a tokenizer.json may be read on (read_tokenizer_json); the tokenizer and
  /// the errors do not depend on it. cache: where a large byte-level BPE
  /// tokenizer.json's tables are kept between loads (model_cache.hpp); the
  /// tokenizer does not depend on it either.
  static PretrainedTokenizer load(const std::filesystem::path& path,
                                  std::string_view format = "auto", unsigned threads = 1,
                                  const ModelCache& cache = ModelCache::from_environment());
  /// The same from a file's bytes; source names it in messages. format may be
  /// "tiktoken:ENCODING" for a rank file.
  static PretrainedTokenizer from_bytes(std::string content, const std::string& source,
                                        std::string_view format = "auto", unsigned threads = 1,
                                        const ModelCache& cache = ModelCache::from_environment());

  /// Appends the ids of text (no special tokens added around it).
  void encode(std::string_view text, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::vector<TokenId> encode(std::string_view text) const;
  /// The text of ids through the decoders, special tokens included (HF's
  /// decode(ids, skip_special_tokens=false)). Throws Error on an id with no token.
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    return decode(ids, false);
  }
  [[nodiscard]] std::string decode(std::span<const TokenId> ids, bool skip_special_tokens) const;

  /// The pieces the model sees for text, with the added tokens' contents among
  /// them: what `tokenlab inspect --pieces` and the course pages show.
  void for_each_piece(std::string_view text,
                      const std::function<void(std::string_view piece, bool added)>& fn) const;

  /// For each piece the model sees in text (after added tokens, normalizers and
  /// pre-tokenizers: for SentencePiece, the whole normalized line), its k best
  /// segmentations, best first, as the reference's n-best gives them; an added
  /// token is its one segmentation. Throws Error when the model has no n-best.
  void for_each_nbest(
      std::string_view text, std::size_t k,
      const std::function<void(std::string_view piece,
                               const std::vector<PretrainedModel::Segmentation>&)>& fn) const;

  [[nodiscard]] const PretrainedPipeline& pipeline() const noexcept { return *pipeline_; }
  /// One past the largest id: the rows of the embedding matrix.
  [[nodiscard]] std::size_t vocabulary_size() const override;
  /// The token string of id as the file spells it, or "" for a gap.
  [[nodiscard]] std::string token(TokenId id) const;
  /// The token as readable text: tiktoken and byte-level (GPT-2 alphabet) tokens
  /// shown as the bytes they stand for, bytes that are not whole UTF-8
  /// characters as \xNN; other tokens as the file spells them (U+2581 kept, a
  /// byte-fallback piece <0xNN> as it is, as a trained model's display_piece
  /// shows it); an added token as its content; "" for a gap.
  [[nodiscard]] std::string display_piece(TokenId id) const override;
  /// How display_piece_as writes a byte that is not part of a whole UTF-8 character.
  enum class PartialBytes : std::uint8_t {
    backslash,  // \xE0, as display_piece
    angle       // <0xE0>, as a byte-fallback piece is spelled (the lab page's one notation)
  };
  /// display_piece, with the partial bytes of a tiktoken or byte-level token
  /// written as partial says.
  [[nodiscard]] std::string display_piece_as(TokenId id, PartialBytes partial) const;
  [[nodiscard]] std::optional<TokenId> unknown_id() const override;
  [[nodiscard]] std::vector<TokenId> byte_fallback_ids() const override;
  /// The token as the bytes it stands for (tiktoken, byte-level), or with U+2581
  /// as a space and a WordPiece "##" removed; added tokens special or added, as
  /// the file marks them; a .model's CONTROL pieces and the unknown token special,
  /// its USER_DEFINED pieces added.
  [[nodiscard]] VocabularyEntry vocabulary_entry(TokenId id) const override;

 private:
  // The bytes of a tiktoken or byte-level token; false for any other spelling.
  bool token_bytes(const std::string& token, std::string& bytes) const;

  std::shared_ptr<const PretrainedPipeline> pipeline_;
};

}  // namespace tokenlab
