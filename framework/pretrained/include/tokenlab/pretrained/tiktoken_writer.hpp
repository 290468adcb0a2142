// File: tiktoken_writer.hpp
// A byte-level BPE trained here, written for OpenAI's tiktoken: a rank file
// ("base64(token bytes) rank" per line, the format of cl100k_base.tiktoken) and
// the pattern and special tokens that go with it.
//
//   const TiktokenExport t = write_tiktoken(description, normalizer_options, pre_options);
//   file << t.ranks;                 // for tiktoken.load.load_tiktoken_bpe
//   json << t.encoder_json();        // npm tiktoken: new Tiktoken(bpe_ranks, special_tokens,
//   pat_str)
//
// The rank of a token is its tokenlab id: merges in training order, after the
// 256 bytes. tiktoken has no normalizer and no markers, and merges any two
// adjacent pieces whose bytes are a token (not only the trained pairs), so:
//   - only byte-level BPE (units=bytes) with a regex preset (gpt2, cl100k,
//     qwen2, o200k), normalization none, white space kept, is exported; other
//     settings are refused with the setting and the nearest exportable choice;
//   - a vocabulary in which a token can also be reached from a pair that was not
//     its merge could encode some text differently; rank_merge_conflicts()
//     (rank_merges.hpp) finds such tokens, and the exporter refuses them unless
//     asked to approximate.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenlab/model_description.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

struct TOKENLAB_PRETRAINED_API TiktokenExport {
  /// The rank file: one "base64 rank" line per non-special token, by rank.
  std::string ranks;
  /// The same tokens (bytes) and ranks.
  std::vector<std::pair<std::string, TokenId>> tokens;
  /// tiktoken's name for the pattern ("gpt2", "cl100k_base", "o200k_base"), or
  /// tokenlab's ("qwen2") where tiktoken has none.
  std::string pattern_name;
  /// The pattern itself (tiktoken's pat_str).
  std::string pattern;
  /// The special tokens and their ids (tiktoken's special_tokens).
  std::vector<std::pair<std::string, TokenId>> specials;

  /// npm tiktoken's encoder JSON ({"pat_str", "special_tokens", "bpe_ranks"}),
  /// one file with everything; tokenlab reads it back too.
  [[nodiscard]] std::string encoder_json() const;
};

/// Throws Error, naming the setting and the nearest exportable choice, for a
/// model or pipeline tiktoken cannot run exactly (see the file comment).
TOKENLAB_PRETRAINED_API TiktokenExport write_tiktoken(const ModelDescription& model,
                                                      const NormalizerOptions& normalizer,
                                                      const PreTokenizerOptions& pre_tokenizer);

/// Base64 with padding, as tiktoken's rank files spell token bytes.
TOKENLAB_PRETRAINED_API std::string encode_base64(std::string_view bytes);

}  // namespace tokenlab
