// SentencePiece's .model files (a protobuf ModelProto), read and run exactly as
// libsentencepiece runs them: spm_encode --output_format=id and spm_decode of
// Debian's sentencepiece 0.1.97 are the reference. Each part names the function
// of google/sentencepiece (src/, tag v0.1.97) that it reproduces, and lives in
// the file of this directory named after the reference's own:
//
//   normalizer   normalizer.cc  Normalizer::Normalize, NormalizePrefix, PrefixMatcher
//                (normalizer.hpp, normalizer.cpp)
//   unigram      unigram_model.cc  Model::EncodeOptimized (the default encoder)
//                (unigram_model.cpp)
//   bpe          bpe_model.cc  Model::SampleEncode with alpha 0 (= Encode)
//                (bpe_model.cpp)
//   word, char   word_model.cc, char_model.cc  Model::Encode (word_char_models.cpp)
//   ids          sentencepiece_processor.cc  PopulateSentencePieceText (unknown
//                pieces merged, or split into <0xNN> bytes with byte_fallback)
//                (append_ids, below)
//   decoder      sentencepiece_processor.cc  SentencePieceProcessor::Decode
//                (decoder.cpp)
//   validation   model_interface.cc  ModelInterface::InitializePieces (reader.cpp)
//
// The piece trie is double_array.hpp. This header holds what the parts share:
// the vocabulary, the segments a model produces and their ids, the models' base
// class, and the factories the reader builds the pipeline with. Internal to
// tokenlab_pretrained: nothing here is installed.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sentencepiece/double_array.hpp"
#include "sentencepiece_model.pb.h"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab::sentencepiece_detail {

using Proto = sentencepiece::ModelProto;

inline constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581, "▁"

// string_util::OneCharLen: the length a lead byte announces, whatever follows.
inline std::size_t one_char_len(char c) noexcept {
  return static_cast<std::size_t>(
      "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[static_cast<unsigned char>(c) >> 4]);
}
// The 16 payload bits of the three-byte sequence at p, of which available
// bytes are readable: a lead byte E0-EF and two continuation bytes; else -1.
// They are the code point when the sequence is well-formed (U+0800 on, not a
// surrogate). Inline for the loops that take a Devanagari or CJK character at
// a time (the walks, the normalizer's runs), where decode_sequence stayed a
// call.
inline std::int32_t three_byte_payload(const unsigned char* p, std::size_t available) noexcept {
  if ((p[0] & 0xF0) != 0xE0 || available < 3 || ((p[1] & p[2]) & 0xC0) != 0x80 ||
      ((p[1] | p[2]) & 0x40) != 0)
    return -1;
  return static_cast<std::int32_t>(((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu));
}

// As SentencePiece steps through normalized text: std::min(OneCharLen, rest).
inline std::size_t char_length_at(std::string_view s, std::size_t pos) noexcept {
  return std::min(one_char_len(s[pos]), s.size() - pos);
}

// ---- the vocabulary --------------------------------------------------------------

enum class PieceType : std::uint8_t {
  normal = Proto::SentencePiece::NORMAL,
  unknown = Proto::SentencePiece::UNKNOWN,
  control = Proto::SentencePiece::CONTROL,
  user_defined = Proto::SentencePiece::USER_DEFINED,
  unused = Proto::SentencePiece::UNUSED,
  byte = Proto::SentencePiece::BYTE,
};

// ModelInterface's tables: the pieces by id, the trie of "normal" pieces
// (NORMAL, USER_DEFINED, UNUSED; SentencePiece's pieces_) and the reserved ones
// (UNKNOWN, CONTROL, BYTE; reserved_id_map_), and the user-defined symbols'
// prefix matcher.
struct SpmVocabulary {
  std::vector<std::string> pieces;
  std::vector<PieceType> types;
  std::vector<float> scores;
  // The keys of the trie (the normal pieces, each with its id), sorted
  // bytewise; set by the reader, with pieces as it will stay.
  std::vector<DoubleArray::Key> trie_keys;
  // The trie of trie_keys, built the first time it is asked for (by any
  // thread): a unigram model that walks its character trie encodes without it,
  // and building it was a fifth of loading a Hindi .model.
  // Inline and one acquire load once built: the BPE and byte walks ask for
  // it at every step, and std::call_once there is a call each time (30% slower).
  [[nodiscard]] const DoubleArray& trie() const {
    if (!trie_ready_.load(std::memory_order_acquire)) build_trie();
    return trie_;
  }
  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> reserved;
  DoubleArray user_defined;  // PrefixMatcher: values >= 0 mark a symbol's end
  bool has_user_defined = false;
  bool has_unused = false;
  TokenId unknown = 0;
  bool byte_fallback = false;
  std::array<TokenId, 256> byte_ids{};
  std::vector<std::int16_t> byte_of;  // the byte of a BYTE piece, else -1

  // ModelInterface::PieceToId: reserved pieces first, then the others, else unknown.
  // The reader refuses a string spelling both a reserved and a normal piece, so
  // the trie may be asked first (a walk over the bytes, cheaper than a hash).
  [[nodiscard]] TokenId piece_to_id(std::string_view piece) const {
    if (const std::int32_t id = trie().find(piece); id >= 0) return static_cast<TokenId>(id);
    if (const auto it = reserved.find(piece); it != reserved.end()) return it->second;
    return unknown;
  }
  // PrefixMatcher::PrefixMatch: the longest user-defined symbol at the start of
  // text (0: none).
  [[nodiscard]] std::size_t user_defined_prefix(std::string_view text) const noexcept {
    return has_user_defined ? user_defined.longest_prefix(text) : 0;
  }

 private:
  void build_trie() const {
    std::call_once(trie_built_, [this] {
      trie_.build(trie_keys);
      trie_ready_.store(true, std::memory_order_release);
    });
  }
  mutable std::once_flag trie_built_;
  mutable std::atomic<bool> trie_ready_{false};
  mutable DoubleArray trie_;
};

// A piece of the model's segmentation: bytes [start, start + length) of the
// normalized text, and its id.
struct Segment {
  std::uint32_t start;
  std::uint32_t length;
  TokenId id;
};

// SentencePieceProcessor::PopulateSentencePieceText, ids only: a run of unknown
// pieces becomes one unknown id; with byte_fallback each unknown piece becomes
// the <0xNN> pieces of its bytes instead.
inline void append_ids(const SpmVocabulary& vocabulary, std::string_view normalized,
                       std::span<const Segment> segments, std::vector<TokenId>& out) {
  bool previous_unknown = false;
  for (const Segment& s : segments) {
    const bool unknown = vocabulary.types[s.id] == PieceType::unknown;
    if (unknown && vocabulary.byte_fallback) {
      for (std::uint32_t b = 0; b < s.length; ++b)
        out.push_back(vocabulary.byte_ids[static_cast<unsigned char>(normalized[s.start + b])]);
    } else if (!(unknown && previous_unknown)) {
      // A CONTROL id can come only from a word or character equal to a control
      // piece; SentencePiece then fails the whole line (its surface check), and
      // tokenlab keeps the id.
      out.push_back(s.id);
    }
    previous_unknown = unknown;
  }
}

// The normalizer's switches (normalizer_spec, and trainer_spec's
// treat_whitespace_as_suffix).
struct NormalizerFlags {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
  bool treat_whitespace_as_suffix = false;
};

// ---- models --------------------------------------------------------------------

class SpmModel : public PretrainedModel {
 public:
  explicit SpmModel(std::shared_ptr<const SpmVocabulary> vocabulary)
      : vocabulary_(std::move(vocabulary)) {}
  [[nodiscard]] TokenId unknown_id() const override { return vocabulary_->unknown; }
  // The pieces and their types, for PretrainedTokenizer::vocabulary_entry.
  [[nodiscard]] const SpmVocabulary& vocabulary() const noexcept { return *vocabulary_; }
  [[nodiscard]] std::string describe() const override {
    std::string d = std::to_string(vocabulary_->pieces.size()) + " pieces";
    if (vocabulary_->byte_fallback) d += ", byte fallback";
    return d;
  }

 protected:
  std::shared_ptr<const SpmVocabulary> vocabulary_;
};

// The models, one for each trainer_spec.model_type (unigram_model.cpp,
// bpe_model.cpp, word_char_models.cpp).
[[nodiscard]] std::unique_ptr<PretrainedModel> make_unigram_model(
    std::shared_ptr<const SpmVocabulary> vocabulary);
[[nodiscard]] std::unique_ptr<PretrainedModel> make_bpe_model(
    std::shared_ptr<const SpmVocabulary> vocabulary);
[[nodiscard]] std::unique_ptr<PretrainedModel> make_word_model(
    std::shared_ptr<const SpmVocabulary> vocabulary);
[[nodiscard]] std::unique_ptr<PretrainedModel> make_char_model(
    std::shared_ptr<const SpmVocabulary> vocabulary);

}  // namespace tokenlab::sentencepiece_detail
