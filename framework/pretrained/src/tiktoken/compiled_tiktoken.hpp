// File: tiktoken/compiled_tiktoken.hpp (private to tokenlab_pretrained)
// A tiktoken file (a rank file with its encoding's name, or npm tiktoken's
// encoder JSON) in the compiled-model cache (compiled/compiled_file.hpp): the
// fused encoder's tables, which are most of its load (decoding 200,000 base64
// tokens and inserting them), and its special tokens. The id -> token table
// stays deferred, filled from the byte table when asked for, as after a read.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_level/byte_level_encoder.hpp"
#include "compiled/compiled_file.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::tiktoken_detail {

struct CompiledTiktoken {
  std::shared_ptr<const ByteLevelEncoder> encoder;
  std::size_t count = 0;     // tokens with a rank
  std::size_t id_limit = 0;  // one past the largest rank
  std::vector<std::pair<std::string, TokenId>> specials;
};

/// An entry's name: the file's bytes and the encoding that gives a rank file
/// its pattern and special tokens (empty for an encoder JSON, which has both).
compiled::Digest compiled_key(std::string_view content, std::string_view encoding) noexcept;

/// The entry for key, or nullopt (none, another build's, damaged).
std::optional<CompiledTiktoken> read_compiled_tiktoken(const ModelCache& cache,
                                                       const compiled::Digest& key);

/// Writes the entry of a pipeline read from a tiktoken file with a fused
/// encoder; false when it could not (nothing is left).
bool write_compiled_tiktoken(const ModelCache& cache, const compiled::Digest& key,
                             const PretrainedPipeline& pipeline);

}  // namespace tokenlab::tiktoken_detail
