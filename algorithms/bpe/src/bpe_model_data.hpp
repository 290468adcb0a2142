// Internal: the BPE model's data, shared by the model, encoder and training files
// (as SentencePiece splits bpe_model.cc from bpe_model_trainer.cc).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/serialization/split_member.hpp>
#include <boost/serialization/version.hpp>

#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab::bpe {

inline constexpr TokenId kNone = std::numeric_limits<TokenId>::max();
// Stands where a character outside the alphabet was dropped, so that no merge spans
// it (training never saw such a pair either).
inline constexpr TokenId kBarrier = kNone;
// 3: Model in a payload archive (payload.hpp); 2 was a hand-written tagged layout,
// 1 had no plugin tag.
inline constexpr std::uint32_t kFormatVersion = 3;
inline constexpr std::size_t kBuildChunkWords = 8192;

struct BpeSegmenter::Model {
  // Learned data (saved).
  Vocabulary vocab;
  Units units = Units::kChars;
  bool byte_fallback = false;
  TieBreak tie_break = TieBreak::kFirstSeen;
  double dropout = 0.0;
  std::vector<MergeRule> merges;
  std::vector<TokenId> base_ids;      // chars: one per alphabet character; bytes: by byte value
  std::vector<TokenId> fallback_ids;  // 256 <0xNN> tokens, or none

  // The learned data as the payload holds it (units and tie_break as a byte, the
  // merges as left, right, result ids); the class version is below. load() checks
  // the settings, derive() the rest.
  void save(PayloadOArchive& ar, unsigned version) const;
  void load(PayloadIArchive& ar, unsigned version);
  BOOST_SERIALIZATION_SPLIT_MEMBER()

  // Derived by derive().
  std::uint64_t serial = 0;
  PairIndex ranks{16};               // packed pair -> rank
  std::array<TokenId, 128> ascii{};  // code point < 128 -> base id
  std::unordered_map<char32_t, TokenId> other_chars;
  std::array<TokenId, 256> byte_ids{};  // bytes: base ids; chars: fallback ids
  std::optional<TokenId> unknown;
  std::vector<std::string> surfaces;  // what decode() writes for each id

  [[nodiscard]] TokenId rank_of(TokenId left, TokenId right) const noexcept {
    if (left == kBarrier || right == kBarrier) return kNone;
    return ranks.find(pack_pair(left, right));
  }

  [[nodiscard]] TokenId char_id(char32_t cp) const noexcept {
    if (cp < 128) return ascii[cp];
    const auto it = other_chars.find(cp);
    return it == other_chars.end() ? kNone : it->second;
  }

  // Calls on_known(id) per base unit and on_unknown(bytes) per unit outside the alphabet
  // (an ill-formed UTF-8 byte is one unknown unit).
  template <class Known, class Unknown>
  void for_each_unit(std::string_view word, Known&& on_known, Unknown&& on_unknown) const {
    if (units == Units::kBytes) {
      for (const char c : word) on_known(byte_ids[static_cast<unsigned char>(c)]);
      return;
    }
    std::size_t pos = 0;
    while (pos < word.size()) {
      const auto lead = static_cast<unsigned char>(word[pos]);
      if (lead < 0x80) {
        const TokenId id = ascii[lead];
        if (id == kNone)
          on_unknown(word.substr(pos, 1));
        else
          on_known(id);
        ++pos;
        continue;
      }
      const std::size_t len = utf8::sequence_length(word, pos);
      if (len == 0) {
        on_unknown(word.substr(pos, 1));
        ++pos;
        continue;
      }
      const TokenId id = char_id(utf8::decode_at(word, pos));
      if (id == kNone)
        on_unknown(word.substr(pos, len));
      else
        on_known(id);
      pos += len;
    }
  }

  // Appends what an unknown unit encodes to.
  template <class Emit>
  void emit_unknown(std::string_view bytes, Emit&& emit) const {
    if (byte_fallback) {
      for (const char c : bytes) emit(byte_ids[static_cast<unsigned char>(c)]);
    } else if (unknown) {
      emit(*unknown);
    } else {
      emit(kBarrier);
    }
  }

  // Validates the learned data and builds the lookup tables; throws Error.
  void derive();
};

}  // namespace tokenlab::bpe

// Bump when the saved fields change, and have Model::load() read the older versions too.
BOOST_CLASS_VERSION(tokenlab::bpe::BpeSegmenter::Model, 0)
