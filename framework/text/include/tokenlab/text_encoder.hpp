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
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

/// What kind of thing a vocabulary entry is (vocabulary audits, overlap).
enum class EntryKind : std::uint8_t {
  normal,         // a piece the model emits for text
  byte_fallback,  // one of <0x00>..<0xFF>: stands for that one byte
  special,        // a control token (<unk>, <s>, <|endoftext|>): never text
  added,          // a non-special added token, cut out of the text before the model
  gap             // no token has this id
};

/// A vocabulary entry as the bytes it stands for in text, so that entries of
/// different tokenizers compare: raw bytes for tiktoken and byte-level pieces
/// (GPT-2's "Ġ" is a space), the boundary marker U+2581 read as a space, a
/// WordPiece "##" prefix removed (continuation set), a byte-fallback piece as
/// its byte; a special or added token as its spelling; "" for a gap.
struct VocabularyEntry {
  std::string text;
  EntryKind kind = EntryKind::gap;
  bool continuation = false;  // WordPiece "##": only ever glued to a previous piece
};

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

  /// The entry id as text bytes and kind. The default decodes {id} alone (a
  /// tokenizer whose pieces may be partial UTF-8 must override it, as Tokenizer
  /// and PretrainedTokenizer do); the unknown id is special, an id that does not
  /// decode is a gap.
  [[nodiscard]] virtual VocabularyEntry vocabulary_entry(TokenId id) const;
  /// Whether encoding the entry's own text gives exactly {id} (Land & Bartolo
  /// 2024's reachability). Meaningful for normal entries whose text is valid
  /// UTF-8 and not a continuation. The default tries the text, the text without
  /// its leading space (tokenizers that add a word-initial marker themselves)
  /// and the text after "\n" (a piece that cannot start a line), checking that
  /// the last gives encode("\n") then id.
  [[nodiscard]] virtual bool encodes_to_itself(TokenId id) const;

  /// Encodes each line independently on threads threads (0 = all cores); results
  /// in input order.
  [[nodiscard]] std::vector<std::vector<TokenId>> encode_batch(std::span<const std::string> lines,
                                                               unsigned threads = 0) const;
};

}  // namespace tokenlab
