// File: tokenizer.hpp
// Normalizer + PreTokenizer + Segmenter: text in, ids out, and back.
//
//   Tokenizer tok = Tokenizer::load("model.tkl", registry);
//   std::vector<TokenId> ids = tok.encode("Hello world");
//   tok.decode(ids) == "Hello world"
//
// Thread-safe for concurrent encode/decode. encode_batch spreads lines over
// threads and returns results in input order.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/text_encoder.hpp"

namespace tokenlab {

class SegmenterSource;
class WordCounts;

class TOKENLAB_API Tokenizer final : public TextEncoder {
 public:
  Tokenizer(NormalizerOptions normalizer, PreTokenizerOptions pre_tokenizer,
            std::shared_ptr<Segmenter> segmenter);

  /// Loads a model file and instantiates its plugin from the registry.
  static Tokenizer load(const std::filesystem::path& path, const SegmenterSource& registry);
  /// Saves header + payload atomically.
  void save(const std::filesystem::path& path) const;

  [[nodiscard]] std::vector<TokenId> encode(std::string_view text) const;
  void encode(std::string_view text, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  [[nodiscard]] std::size_t vocabulary_size() const override;
  [[nodiscard]] std::string display_piece(TokenId id) const override;
  [[nodiscard]] std::optional<TokenId> unknown_id() const override;
  /// The segmenter's byte pieces (byte_fallback_ids in alphabet.hpp).
  [[nodiscard]] std::vector<TokenId> byte_fallback_ids() const override;
  /// The piece as text: markers as spaces, "##" removed, byte pieces as bytes.
  [[nodiscard]] VocabularyEntry vocabulary_entry(TokenId id) const override;
  /// Whether the segmenter, given the piece itself as a word, gives exactly {id}.
  [[nodiscard]] bool encodes_to_itself(TokenId id) const override;

  /// Normalizes and pre-tokenizes text, calling fn with each word (marker included)
  /// in order: the words encode() gives the segmenter, for callers that use the
  /// segmenter another way (sampling, n-best). The view lives only during the call.
  void for_each_word(std::string_view text, const PreTokenizer::WordCallback& fn) const;

  [[nodiscard]] const Normalizer& normalizer() const noexcept { return normalizer_; }
  [[nodiscard]] const PreTokenizer& pre_tokenizer() const noexcept { return pre_tokenizer_; }
  [[nodiscard]] const Segmenter& segmenter() const noexcept { return *segmenter_; }
  [[nodiscard]] Segmenter& segmenter() noexcept { return *segmenter_; }

 private:
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  std::shared_ptr<Segmenter> segmenter_;
};

}  // namespace tokenlab
