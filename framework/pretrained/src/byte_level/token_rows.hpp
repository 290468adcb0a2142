// File: byte_level/token_rows.hpp (private to tokenlab_pretrained)
// A fused byte-level encoder's tokens as a token table's rows, by id: what a
// deferred TokenTable's fill inserts when no rows were read with the model (a
// tiktoken file's compiled entry; a tokenizer.json entry that left its
// vocabulary out, whose tokens are spelled in GPT-2's byte alphabet).
//
//   const TokenRows made = token_rows(encoder, id_limit, Spelling::bytes);
//   table.insert_new(made.rows);   // made.text must outlive the call
//
// The strings are written in the byte table's own order, which reads its 8 MB
// once from start to end, into one buffer the rows then view in id order. Read
// in id order, each token was a cache miss in the table: GPT-4o's first decode
// took 12 ms longer, and o200k's 6 (32.8 against 26.9 ms).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "byte_level/byte_level_encoder.hpp"
#include "tokenlab/pretrained/token_table.hpp"

namespace tokenlab::byte_level_detail {

struct TokenRows {
  std::unique_ptr<char[]> text;       // the strings, in the byte table's order
  std::vector<TokenTable::Row> rows;  // by id, viewing text
};

/// How a row spells its token: its bytes, or each byte as the letter of
/// GPT-2's byte alphabet that stands for it (UTF-8), as a tokenizer.json does.
enum class Spelling { bytes, gpt2_alphabet };

/// The encoder's tokens with ids below id_limit, in id order.
TokenRows token_rows(const ByteLevelEncoder& encoder, std::size_t id_limit, Spelling spelling);

}  // namespace tokenlab::byte_level_detail
