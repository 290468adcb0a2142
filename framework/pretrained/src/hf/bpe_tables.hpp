// File: hf/bpe_tables.hpp (private to tokenlab_pretrained)
// What HF's BPE model builds before it encodes, kept in the compiled-model
// cache (compiled/compiled_file.hpp) for a file that has no fused byte-level
// encoder to keep instead: whole-line BPE (Gemma 3, Llama 2, Mistral).
//
// For Gemma 3 (262,144 tokens, 514,906 merges) that is the merge table (16 MB,
// probed at random by every merge), the one-character tokens of the BMP and
// beyond it, where a piece may be cut (merge_cuts.hpp), and the unknown and
// byte-fallback ids. Together with the entry's vocabulary and merges as ids
// (hf/compiled_json.hpp) they spare a load the parse of both lists, the
// vocabulary's table (its strings are filled in only when a token is looked
// up by its string: decoding, --pieces) and every table here.
//
//   auto tables = load_bpe_tables(in);                  // throws compiled::Stale
//   model = make_bpe_model(tokens, merges, options, where, std::move(tables));
//   save_bpe_tables(*model, out, threads);              // builds them if need be
#pragma once

#include <memory>
#include <string>

#include "compiled/compiled_file.hpp"
#include "hf/merge_ids.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab::hf_detail {

/// A BPE model's prepared tables (defined in bpe_model.cpp).
struct BpeTables;

/// Writes model's tables to out, building them first (on up to threads
/// threads) if no encode has; out views them until its commit, so model must
/// outlive it. False, and nothing written, when model is not one that
/// make_bpe_model made.
bool save_bpe_tables(const PretrainedModel& model, compiled::Writer& out, unsigned threads);

/// The tables save_bpe_tables wrote. Throws compiled::Stale on an entry of
/// another shape; like everything read, trusted only after in.finish().
std::shared_ptr<BpeTables> load_bpe_tables(compiled::Reader& in);

/// make_bpe_model with the tables of an entry written for the same file (so
/// for the same tokens, merges and options): the model looks nothing up in
/// tokens to start, and builds nothing at its first encode.
std::unique_ptr<PretrainedModel> make_bpe_model(std::shared_ptr<const TokenTable> tokens,
                                                SharedMerges merges, const BpeModelOptions& options,
                                                const std::string& where,
                                                std::shared_ptr<BpeTables> tables);

}  // namespace tokenlab::hf_detail
