// File: lab_catalog.hpp
// The tokenizers `tokenlab lab` offers: trained here (the five built-in
// segmenters, or models given with -m) and real models' (--tokenizer, or found
// in the reference cache), each cut into chips grouped by word.
//
//   LabCatalog catalog;
//   catalog.add_trained("bpe", tokenizer);
//   const Chips chips = catalog.find("bpe")->chips("The quick brown fox");
//
// Immutable once the server starts, so requests read it from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/tokenizer.hpp"

namespace tokenlab::lab {

struct Chip {
  TokenId id = 0;
  std::string text;      // the token as readable text (display_piece)
  std::size_t word = 0;  // index of the word it belongs to, over the whole text
  bool unknown = false;
  /// Bytes, not whole characters: a byte-fallback piece <0xNN>, or a real
  /// byte-level token holding part of a character's UTF-8 (its partial bytes
  /// shown <0xNN> too, so that the page has one notation for both).
  bool byte_fallback = false;
};

struct Chips {
  std::vector<Chip> tokens;
  std::size_t words = 0;
  std::size_t characters = 0;  // code points of the text, line breaks excluded
};

class LabTokenizer {
 public:
  /// A tokenizer trained by tokenlab: chips per pre-tokenized word.
  LabTokenizer(std::string name, std::string algorithm, std::shared_ptr<const Tokenizer> trained);
  /// A real model's: chips per word as its own pre-tokenizer marks words (a
  /// token starting with a space, ▁ or Ġ starts one).
  LabTokenizer(std::string name, std::shared_ptr<const PretrainedTokenizer> pretrained);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The plugin name, or the file format of a real model's tokenizer.
  [[nodiscard]] const std::string& algorithm() const noexcept { return algorithm_; }
  [[nodiscard]] bool pretrained() const noexcept { return trained_ == nullptr; }
  [[nodiscard]] std::size_t vocabulary_size() const { return encoder_->vocabulary_size(); }
  /// Whether sample() works: unigram sampling or BPE-dropout.
  [[nodiscard]] bool can_sample() const;

  /// text, line by line; each line encodes as `tokenlab encode` encodes it.
  [[nodiscard]] Chips chips(std::string_view text) const;
  /// count segmentations of one word drawn with the sampling capability.
  [[nodiscard]] std::vector<std::vector<std::string>> sample(std::string_view word,
                                                             std::size_t count,
                                                             std::uint64_t seed) const;

 private:
  void add_line(std::string_view line, Chips& out) const;
  Chip chip(TokenId id, std::size_t word) const;

  std::string name_;
  std::string algorithm_;
  std::shared_ptr<const Tokenizer> trained_;
  std::shared_ptr<const PretrainedTokenizer> pretrained_;
  std::shared_ptr<const TextEncoder> encoder_;
  std::optional<TokenId> unknown_;
  std::vector<TokenId> byte_ids_;
};

class LabCatalog {
 public:
  void add(LabTokenizer tokenizer);
  [[nodiscard]] const LabTokenizer* find(std::string_view name) const noexcept;
  [[nodiscard]] const std::vector<LabTokenizer>& all() const noexcept { return tokenizers_; }

 private:
  std::vector<LabTokenizer> tokenizers_;
};

}  // namespace tokenlab::lab
