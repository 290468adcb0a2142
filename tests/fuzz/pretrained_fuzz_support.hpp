// What the pretrained fuzz target and the regression replay do with one input:
// read it as each format of real tokenizer files (tokenizer.json, a tiktoken
// rank file or encoder JSON, a SentencePiece .model), and with whatever loads,
// encode, decode and display as the CLI does. The contract under test: this
// returns or throws tokenlab::Error; anything else is a bug.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::fuzz {

/// Text that reaches the interesting paths: spaces, digits, contractions,
/// multi-byte UTF-8, special-token look-alikes.
inline constexpr std::string_view kPretrainedProbe =
    "Hello  world, DON'T 12345 caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 <|endoftext|><s>\n\t x";
/// Ill-formed UTF-8, which encode must refuse with an Error.
inline constexpr std::string_view kIllFormedProbe = "caf\xC3 \xFF<s>";

/// Encodes, decodes and displays with a loaded tokenizer.
inline void exercise(const PretrainedTokenizer& tokenizer) {
  try {
    (void)tokenizer.encode(kIllFormedProbe);
    throw std::logic_error("ill-formed UTF-8 was encoded");  // not an Error: a finding
  } catch (const Error&) {
  }
  const std::vector<TokenId> ids = tokenizer.encode(kPretrainedProbe);
  (void)tokenizer.decode(ids);
  (void)tokenizer.decode(ids, /*skip_special_tokens=*/true);
  tokenizer.for_each_piece(kPretrainedProbe, [](std::string_view, bool) {});
  const std::size_t size = tokenizer.vocabulary_size();
  for (TokenId id = 0; id < size && id < 64; ++id) {
    (void)tokenizer.token(id);
    (void)tokenizer.display_piece(id);
  }
  (void)tokenizer.unknown_id();
  (void)tokenizer.byte_fallback_ids();
}

/// A tokenizer.json read on two threads must be the one read on one: the same
/// refusal, or the same ids for the probe (read_tokenizer_json's contract).
inline void check_two_threads(std::string_view bytes) {
  const auto read = [&](unsigned threads) -> std::pair<std::string, std::vector<TokenId>> {
    try {
      const auto tokenizer =
          PretrainedTokenizer::from_bytes(std::string(bytes), "fuzz", "tokenizer.json", threads);
      return {"", tokenizer.encode(kPretrainedProbe)};
    } catch (const Error& e) {
      return {e.what(), {}};
    }
  };
  if (read(1) != read(2))
    throw std::logic_error("a tokenizer.json read on two threads differs from one");  // a finding
}

/// bytes through from_bytes as each format ("auto" too), each load exercised.
/// Returns how many loaded.
inline int load_pretrained_bytes(std::string_view bytes) {
  check_two_threads(bytes);
  int loaded = 0;
  for (const char* format : {"auto", "tokenizer.json", "tiktoken:cl100k_base", "sentencepiece"}) {
    try {
      exercise(PretrainedTokenizer::from_bytes(std::string(bytes), "fuzz", format));
      ++loaded;
    } catch (const Error&) {
      // A clean refusal.
    }
  }
  return loaded;
}

}  // namespace tokenlab::fuzz
