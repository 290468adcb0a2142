// SentencePiece's normalizer (normalizer.cc), also its denormalizer: the
// precompiled charsmap, the user-defined symbols kept whole, and the handling of
// white space.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "precompiled.hpp"
#include "sentencepiece/internal.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::sentencepiece_detail {

// normalizer::Normalizer::Normalize, without the alignment.
class SpmNormalizer final : public NormalizerStep {
 public:
  SpmNormalizer(detail::CharsMap map, std::shared_ptr<const SpmVocabulary> matcher,
                NormalizerFlags flags, std::string name);

  void apply(std::string& text) const override;
  // NormalizePrefix at every character: no runs copied whole.
  void apply_plain(std::string& text) const override;
  void normalize(std::string_view input, std::string& out, bool runs = true) const;
  [[nodiscard]] std::string describe() const override;

 private:
  // Whether the byte at input[i] is ASCII that no rule or user-defined symbol
  // matches at (so NormalizePrefix would give it back as is), other than " ".
  bool stands_for_itself(std::string_view input, std::size_t i) const noexcept {
    const auto c = static_cast<unsigned char>(input[i]);
    if (plain_[c]) return true;
    return ascii_safe_[c] &&
           (i + 1 == input.size() || static_cast<unsigned char>(input[i + 1]) < 0x80);
  }

  // The length of the character at input[i] when it stands for itself: ASCII
  // as above, or a well-formed longer character that no rule and no
  // user-defined symbol matches at; else 0. A character that begins some
  // rule's key is looked up in the map: nmt_nfkc's keys for र and न go on
  // with a nukta (they compose to ऱ and ऩ), so one Hindi character in ten
  // ended a run, to be copied by NormalizePrefix as it stood.
  std::size_t plain_length(std::string_view input, std::size_t i) const noexcept {
    const auto c = static_cast<unsigned char>(input[i]);
    if (c < 0x80) return stands_for_itself(input, i) ? 1 : 0;
    if (user_lead_[c]) return 0;
    const utf8::Sequence s = utf8::decode_sequence(input, i);
    if (s.length == 0) return 0;
    if (map_.no_rule_at(s.code_point, c)) return s.length;
    std::string_view replacement;
    return map_.longest_match(input.substr(i), replacement) == 0 ? s.length : 0;
  }

  // Where the run of characters that stand for themselves, from input[from]
  // on, ends. A three-byte character (all of Hindi's, Chinese's and
  // Japanese's) is one test of plain_three_ here: through plain_length, GCC
  // kept decode_sequence out of line, a call per character.
  std::size_t plain_run_end(std::string_view input, std::size_t from) const noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(input.data());
    const std::size_t n = input.size();
    while (from < n) {
      if (const std::int32_t cp = three_byte_payload(p + from, n - from);
          cp >= 0 && ((plain_three_[static_cast<std::uint32_t>(cp) >> 6] >> (cp & 63)) & 1) != 0) {
        from += 3;
        continue;
      }
      const std::size_t length = plain_length(input, from);
      if (length == 0) break;
      from += length;
    }
    return from;
  }

  // Normalizer::NormalizePrefix: what the start of input becomes, and how many
  // bytes it consumes.
  std::string_view prefix(std::string_view input, std::size_t& consumed) const;

  detail::CharsMap map_;
  std::shared_ptr<const SpmVocabulary> matcher_;
  NormalizerFlags flags_;
  std::string name_;
  std::array<bool, 256> plain_{};
  std::array<bool, 256> ascii_safe_{};
  std::array<bool, 256> user_lead_{};  // a user-defined symbol starts with the byte
  // A bit per code point U+0000-FFFF: a three-byte character that plain_length
  // would give 3 without looking at what follows (see the constructor).
  std::array<std::uint64_t, 0x10000 / 64> plain_three_{};
  bool plain_space_ = false;
};

}  // namespace tokenlab::sentencepiece_detail
