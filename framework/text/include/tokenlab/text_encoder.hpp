// File: text_encoder.hpp
// Anything that turns lines of text into token ids and back: a tokenizer that
// tokenlab trained (Tokenizer) or a real model's tokenizer read from its own
// file (PretrainedTokenizer, in tokenlab_pretrained). The CLI's encode and
// decode, and compare's pretrained rows, work through this interface.
//
//   const TextEncoder& t = ...;
//   std::vector<TokenId> ids; t.encode("Hello world", ids);
//   t.decode(ids) == "Hello world"   (when nothing was unknown)
//
// Implementations are immutable after construction and thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

class TOKENLAB_API TextEncoder {
 public:
  virtual ~TextEncoder();

  /// Appends the ids of one line of valid UTF-8 (no special tokens added).
  virtual void encode(std::string_view text, std::vector<TokenId>& out) const = 0;
  /// The text of ids. Throws Error for an id that names no token.
  [[nodiscard]] virtual std::string decode(std::span<const TokenId> ids) const = 0;
  /// One past the largest id: the rows of an embedding matrix.
  [[nodiscard]] virtual std::size_t vocabulary_size() const = 0;
  /// A token as readable text (for --pieces and reports).
  [[nodiscard]] virtual std::string display_piece(TokenId id) const = 0;
  /// The unknown token's id, if the tokenizer has one.
  [[nodiscard]] virtual std::optional<TokenId> unknown_id() const = 0;
  /// The ids of the byte-fallback pieces <0x00>..<0xFF>, sorted; empty if none.
  /// Pure: a default of "none" made compare print byte fb% 0 for a trained model
  /// loaded from its .tkl (issue 26), a wrong number with no warning.
  [[nodiscard]] virtual std::vector<TokenId> byte_fallback_ids() const = 0;

  /// Encodes each line independently on threads threads (0 = all cores); results
  /// in input order.
  [[nodiscard]] std::vector<std::vector<TokenId>> encode_batch(std::span<const std::string> lines,
                                                               unsigned threads = 0) const;
};

}  // namespace tokenlab
