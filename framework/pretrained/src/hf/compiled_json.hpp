// File: hf/compiled_json.hpp (private to tokenlab_pretrained)
// A BPE or WordPiece tokenizer.json in the compiled-model cache
// (compiled/compiled_file.hpp): what its 200,000 tokens and merges cost most of
// a load to build, kept for the next load of the same bytes. Three kinds: a
// byte-level file (GPT-4o, Llama 3, Qwen, DeepSeek V3, GPT-2) keeps its fused
// encoder's tables, a whole-line one (Gemma 3, Llama 2, Mistral) the BPE
// model's (hf/bpe_tables.hpp), a WordPiece one (BERT) its two tries
// (hf/wordpiece_tables.hpp). The rest of the file
// (normalizer, pre-tokenizer, decoder, post-processor) is small, and is read from the
// file each time.
//
//   on a hit: the parser jumps over model.vocab, model.merges and added_tokens,
//   whose places in the file the entry holds (ListDivertingHandler::skip_lists),
//   and the pipeline takes
//     tokens   a deferred TokenTable, filled from the entry's rows only when a
//              token's string is looked up (decoding, --pieces), as a tiktoken
//              file's is (docs/performance.md, tenth round); a byte-level
//              file whose vocabulary is its encoder's byte table spelled in
//              GPT-2's alphabet keeps no rows, and the table is spelled from
//              the byte table instead;
//     merges   the merges as ids, for the BPE model beside the fused encoder,
//              viewed in the entry's mapping (read only if that model runs),
//              or, when they are the ones the encoder's byte table implies
//              (ByteLevelEncoder::implied_merges: GPT-4o's, Llama 3's), made
//              from it when first asked for. A load then maps and checks no
//              more than a tiktoken file's entry holds (docs/performance.md,
//              twenty-fifth round);
//     encoder  the fused encoder's tables, read into huge pages; or
//     model    the BPE model's tables, its merge table in huge pages;
//     added    the added tokens as the file's load read them: each with the
//              id HF's rules resolved (those rules look tokens up, which would
//              fill the deferred table) and its content normalized. Gemma 3's
//              6,415 were 0.9 MB of JSON, a third of its load from a stamp.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "byte_level/byte_level_encoder.hpp"
#include "compiled/compiled_file.hpp"
#include "hf/bpe_tables.hpp"
#include "hf/merge_ids.hpp"
#include "hf/streamed_lists.hpp"
#include "hf/wordpiece_tables.hpp"
#include "tokenlab/pretrained/added_tokens.hpp"
#include "tokenlab/pretrained/token_table.hpp"

namespace tokenlab::hf_detail {

struct CompiledJson {
  std::shared_ptr<TokenTable> tokens;
  SharedMerges merges;                              // viewed in the entry, or deferred
  std::shared_ptr<const ByteLevelEncoder> encoder;  // a byte-level file's, else null
  std::shared_ptr<BpeTables> model;                 // a whole-line file's, else null
  std::shared_ptr<WordPieceTables> wordpiece;       // a WordPiece file's (no merges), else null
  std::vector<AddedToken> added;                    // those with content, in file order
  ListDivertingHandler::ListSpans spans;
};

/// The entry for digest, or nullopt (none, another build's, damaged).
std::optional<CompiledJson> read_compiled_json(const ModelCache& cache,
                                               const compiled::Digest& digest);

/// Writes the entry for digest, on up to threads threads: the fused encoder's
/// tables when encoder is given, else those of model (a BPE model of
/// make_bpe_model, whose tables this builds if no encode has, or a WordPiece
/// model of make_wordpiece_model, with merges empty). False when it could not
/// (nothing is left).
bool write_compiled_json(const ModelCache& cache, const compiled::Digest& digest,
                         const TokenTable& tokens, std::span<const MergeIds> merges,
                         const ByteLevelEncoder* encoder, const PretrainedModel& model,
                         std::span<const AddedToken> added,
                         const ListDivertingHandler::ListSpans& spans, unsigned threads);

}  // namespace tokenlab::hf_detail
