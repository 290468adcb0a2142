// Where a piece may be cut before byte-pair merging without changing the result:
// whole-line BPE (SentencePiece's, and HF tokenizer.json files converted from
// it: Llama 2, Mistral, Gemma) merges a whole line at once, and a cut lets each
// part be merged alone and found in the word cache the next time it comes.
// Internal to tokenlab_pretrained: nothing here is installed.
//
// Why a cut between characters a and b is exact: every merge makes a token of
// the vocabulary, so a merge across the cut would make a token holding "ab"; if
// no token holds "ab", no merge crosses, and the merges on each side are the
// same, in the same relative order (rank or score, then position), as on the
// whole. a and b must also be spelled by tokens of their own: a character
// spelled by byte-fallback or unknown tokens is not itself in those tokens, and
// runs of unknown characters fuse across a cut.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "compiled/compiled_file.hpp"
#include "compiled/pair_map_section.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::pretrained_detail {

class MergeCuts {
 public:
  MergeCuts() = default;
  /// tokens: every token a merge can make (the whole vocabulary will do).
  /// own: the characters that are a token of their own, each a one-character
  /// string.
  MergeCuts(const std::vector<std::string_view>& tokens, const std::vector<std::string_view>& own)
      : own_(kCodePoints / 64, 0) {
    for (const std::string_view character : own)
      if (const utf8::Sequence s = utf8::decode_sequence(character, 0); s.length != 0)
        own_[s.code_point / 64] |= std::uint64_t{1} << (s.code_point % 64);
    bool inserted = false;
    joined_.reserve(tokens.size() / 8);  // Gemma 3: 30,506 pairs in 262,144 tokens
    for (const std::string_view token : tokens) {
      char32_t previous = kNoCharacter;
      for (std::size_t i = 0; i < token.size();) {
        std::size_t length = 1;
        const char32_t c = character_at(token, i, length);
        if (previous != kNoCharacter && c != kNoCharacter) {
          if (previous < 0x80 && c < 0x80)
            ascii_joined_[previous * 2 + c / 64] |= std::uint64_t{1} << (c % 64);
          else
            joined_.insert(pack_pair(previous, c), 1, inserted);
        }
        previous = c;
        i += length;
      }
    }
    joined_view_ = joined_.view();
  }
  // A copy's view would see the other's slots.
  MergeCuts(const MergeCuts&) = delete;
  MergeCuts& operator=(const MergeCuts&) = delete;
  MergeCuts(MergeCuts&&) noexcept = default;  // the slots move with the map
  MergeCuts& operator=(MergeCuts&&) noexcept = default;

  /// Calls part(view) for the parts of piece, in order; they cover it.
  template <class Part>
  void for_each_part(std::string_view piece, Part&& part) const {
    std::size_t start = 0;
    char32_t previous = kNoCharacter;
    for (std::size_t i = 0; i < piece.size();) {
      std::size_t length = 1;
      char32_t c = character_at(piece, i, length);
      if (c != kNoCharacter && !is_own(c)) c = kNoCharacter;
      if (previous != kNoCharacter && c != kNoCharacter && !is_joined(previous, c)) {
        part(piece.substr(start, i - start));
        start = i;
      }
      previous = c;
      i += length;
    }
    part(piece.substr(start));
  }

  [[nodiscard]] bool empty() const noexcept { return own_.empty(); }

  /// Writes the cuts to a compiled-model entry (compiled/compiled_file.hpp);
  /// out views them until its commit. load reads them back, the pairs' table
  /// viewed in the entry (inserting Gemma 3's 30,506 pairs again was a
  /// twentieth of its load), and throws compiled::Stale on an entry of
  /// another shape. The table's slots are those of one thread inserting the
  /// vocabulary's pairs in id order: the same bytes at every thread count.
  void save(compiled::Writer& out) const {
    out.value(static_cast<std::uint64_t>(own_.size()));
    out.bytes(own_.data(), own_.size() * sizeof(std::uint64_t));
    out.bytes(ascii_joined_, sizeof ascii_joined_);
    compiled::save_pair_map(out, joined_view_);
  }
  static MergeCuts load(compiled::Reader& in) {
    MergeCuts cuts;
    const auto own_words = in.value<std::uint64_t>();
    if (own_words != 0 && own_words != kCodePoints / 64) throw compiled::Stale("merge cuts");
    in.expect(own_words, sizeof(std::uint64_t));
    cuts.own_.resize(own_words);
    in.read(cuts.own_.data(), own_words * sizeof(std::uint64_t));
    in.read(cuts.ascii_joined_, sizeof cuts.ascii_joined_);
    cuts.joined_view_ = compiled::view_pair_map<Joined>(in, "merge cuts");
    cuts.mapping_ = in.mapping();
    return cuts;
  }

 private:
  static constexpr char32_t kCodePoints = 0x110000;
  static constexpr char32_t kNoCharacter = 0xFFFFFFFFu;

  // The character at text[i] and its length in bytes; kNoCharacter, 1 byte
  // long, for a byte that starts no valid sequence. ASCII without the
  // decoder's call: most characters of most vocabularies and pieces.
  static char32_t character_at(std::string_view text, std::size_t i, std::size_t& length) noexcept {
    const char32_t byte = static_cast<unsigned char>(text[i]);
    length = 1;
    if (byte < 0x80) return byte;
    const utf8::Sequence s = utf8::decode_sequence(text, i);
    if (s.length == 0) return kNoCharacter;
    length = s.length;
    return s.code_point;
  }
  [[nodiscard]] bool is_own(char32_t c) const noexcept {
    return c < kCodePoints && ((own_[c / 64] >> (c % 64)) & 1) != 0;
  }
  [[nodiscard]] bool is_joined(char32_t a, char32_t b) const noexcept {
    if (a < 0x80 && b < 0x80) return ((ascii_joined_[a * 2 + b / 64] >> (b % 64)) & 1) != 0;
    return joined_view_.find(pack_pair(a, b)) != nullptr;
  }

  // A set of pairs; a 64-bit value, so that a slot has no padding to save
  // (a one-byte value's slot is as large).
  using Joined = PairMap<std::uint64_t>;
  std::vector<std::uint64_t> own_;         // bit per code point: a token of its own
  std::uint64_t ascii_joined_[128 * 2]{};  // bit per ASCII pair: some token holds it
  Joined joined_;                          // the other pairs some token holds, when built
  Joined::View joined_view_;               // what is looked up: joined_, or an entry's
  std::shared_ptr<const void> mapping_;    // the entry's, which joined_view_ may view
};

}  // namespace tokenlab::pretrained_detail
