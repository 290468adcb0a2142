// Helpers for the pretrained-tokenizer tests: readers over inline fixtures, the
// pieces a pipeline hands its model, and the message of an expected Error.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::test {

using Ids = std::vector<TokenId>;
using Pieces = std::vector<std::string>;

/// A tokenizer.json given as text, named "tokenizer.json" in messages, read on
/// threads threads (read_tokenizer_json).
inline PretrainedTokenizer tokenizer_json(std::string_view json, unsigned threads = 1) {
  return PretrainedTokenizer::from_bytes(std::string(json), "tokenizer.json", "tokenizer.json",
                                         threads);
}

/// A tokenizer.json with the given top-level members (normalizer, pre_tokenizer,
/// added_tokens...) and a WordLevel model whose only token is "[UNK]" (id 0):
/// for tests of what reaches the model, through for_each_piece.
inline PretrainedTokenizer pipeline_with(std::string_view members) {
  return tokenizer_json(
      R"({"version":"1.0","model":{"type":"WordLevel","vocab":{"[UNK]":0},"unk_token":"[UNK]"},)" +
      std::string(members) + "}");
}

/// The pieces the model sees for text, added tokens' text among them.
inline Pieces pieces(const PretrainedTokenizer& tokenizer, std::string_view text) {
  Pieces out;
  tokenizer.for_each_piece(text, [&](std::string_view piece, bool) { out.emplace_back(piece); });
  return out;
}

/// The what() of the tokenlab::Error that body throws ("" and a failure if none).
template <class Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL_CHECK("expected a tokenlab::Error");
  return "";
}

}  // namespace tokenlab::test
