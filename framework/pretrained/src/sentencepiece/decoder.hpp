// SentencePiece's decoder (sentencepiece_processor.cc): see decoder.cpp.
#pragma once

#include <memory>
#include <string>

#include "sentencepiece/internal.hpp"
#include "sentencepiece/normalizer.hpp"
#include "tokenlab/pretrained/components.hpp"

namespace tokenlab::sentencepiece_detail {

// SentencePieceProcessor::Decode, then the denormalizer (null: none).
[[nodiscard]] std::unique_ptr<DecoderStep> make_decoder(
    std::shared_ptr<const SpmVocabulary> vocabulary, std::string unknown_surface,
    bool add_dummy_prefix, bool remove_extra_whitespaces,
    std::unique_ptr<SpmNormalizer> denormalizer);

}  // namespace tokenlab::sentencepiece_detail
