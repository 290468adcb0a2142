// File: hf/wordpiece_tables.hpp (private to tokenlab_pretrained)
// What HF's WordPiece model builds before it encodes, kept in the
// compiled-model cache (compiled/compiled_file.hpp): the two tries of its
// greedy longest match (every token for a word's first piece, the tokens
// after the continuing prefix for the others) and the unknown token's id.
//
// For bert-base-uncased (30,522 tokens) building the two tries was half of its
// 8 ms load: each sorts its keys and lays out its nodes. With the entry's
// vocabulary (hf/compiled_json.hpp) a load also skips parsing model.vocab and
// filling the TokenTable, whose strings wait until a token is looked up by its
// string (decoding, --pieces).
//
//   auto tables = load_wordpiece_tables(in);           // throws compiled::Stale
//   model = make_wordpiece_model(tokens, unk, prefix, max_chars, where, std::move(tables));
//   save_wordpiece_tables(*model, out);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compiled/compiled_file.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab::hf_detail {

/// A WordPiece model's tables (defined in wordpiece_model.cpp).
struct WordPieceTables;

/// Writes model's tables to out, which views them until its commit (model must
/// outlive it). False, and nothing written, when model is not one that
/// make_wordpiece_model made.
bool save_wordpiece_tables(const PretrainedModel& model, compiled::Writer& out);

/// The tables save_wordpiece_tables wrote, for a vocabulary of ids below
/// id_limit. Throws compiled::Stale on an entry of another shape, whose tries
/// index past their arrays or whose ids reach id_limit; like everything read,
/// trusted only after in.finish().
std::shared_ptr<WordPieceTables> load_wordpiece_tables(compiled::Reader& in,
                                                       std::uint64_t id_limit);

/// make_wordpiece_model with the tables of an entry written for the same file
/// (so for the same tokens and options): it looks nothing up in tokens.
std::unique_ptr<PretrainedModel> make_wordpiece_model(std::shared_ptr<const TokenTable> tokens,
                                                      std::string unknown_token,
                                                      std::string continuing_subword_prefix,
                                                      std::size_t max_input_chars_per_word,
                                                      std::shared_ptr<WordPieceTables> tables);

}  // namespace tokenlab::hf_detail
