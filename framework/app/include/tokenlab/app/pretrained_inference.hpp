// File: app/pretrained_inference.hpp
// A real model's tokenizer (tokenizer.json, tiktoken, .model) as a subject of
// the inference methods (inference_encoders.hpp): its vocabulary as the file
// spells it (GPT-2's byte alphabet, tiktoken's raw bytes, U+2581), the pieces
// its own pipeline gives the model as the units.
//
//   auto subject = make_pretrained_inference_subject(gpt4o);
//   MethodEncoder greedy(gpt4o, subject, InferenceMethod::longest_prefix);
//
// The readers do not keep a BPE's merges or a unigram's scores, so "merges" on a
// BPE and "likelihood" on a unigram model are the model's own encoding, and
// neither is available on the other kinds. WordPiece's continuation prefix is
// taken to be "##". A whole-line model (no pre-tokenizer: Llama 2, Gemma 3,
// SentencePiece) has its line cut before each "▁", so that units are words.
#pragma once

#include <memory>

#include "tokenlab/inference_encoders.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab {

/// Shares tokenizer. Throws Error when its vocabulary has no piece at all.
/// with_rules: the engine also gets what the model's algorithm runs on
/// (PretrainedModel::rules: a BPE's merges, tiktoken's ranks, a unigram model's
/// scores), so that it can run it with entries left out (compare --allocation);
/// then "merges" and "likelihood" are the engine's, not the model's own encoding.
[[nodiscard]] std::shared_ptr<const InferenceSubject> make_pretrained_inference_subject(
    std::shared_ptr<const PretrainedTokenizer> tokenizer, bool with_rules = false);

}  // namespace tokenlab
