// File: byte_level/byte_level_encoder.hpp (private to tokenlab_pretrained)
// Byte-level BPE (tiktoken's encodings, and the tokenizer.json files of GPT-4o,
// Llama 3, Qwen and GPT-2) fused into one pass: the preset pattern's hand-written
// matcher cuts the text into pieces, each piece is looked up in the piece cache,
// then (tiktoken, or HF's ignore_merges) in the vocabulary as a whole, and only
// then merged; ids go straight to the output. The same ids as the pipeline of
// pre-tokenizers and model it replaces, which stays for everything else
// (`inspect --pieces`, n-best, other shapes of pipeline).
//
//   // built by make_hf_byte_level, or by tiktoken/reader.cpp from a rank file
//   p.byte_level->encode("Hello world", ids);   // [13225, 2375] with o200k_base
//
// Why each step: docs/performance.md.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_level/byte_table.hpp"
#include "byte_level/merge_table.hpp"
#include "byte_level/piece_cache.hpp"
#include "byte_level/piece_split.hpp"
#include "hf/merge_ids.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/regex.hpp"

namespace tokenlab {

class ByteLevelEncoder {
 public:
  /// The rule that picks the next merge.
  enum class Rule {
    ranks,   // tiktoken: the adjacent pair whose bytes form the lowest-ranked token
    merges,  // HF BPE: the adjacent pair of ids with the lowest-ranked merge
    // HF BPE whose merges are one a token, in the order of the tokens' ids (the
    // tokenizer.json of GPT-4o, Qwen 3, DeepSeek V3): the ranks rule, where a
    // pair merges only if it splits its token where the token's merge does.
    // The same choices as merges (use_token_splits() says why), with the byte
    // table the whole-piece lookups use instead of a merge table of its own.
    token_splits,
  };
  /// unicode: the character classes pattern splits by (tiktoken's are the
  /// library's, HF's 16.0's).
  ByteLevelEncoder(std::string_view pattern, UnicodeVersion unicode, Rule rule,
                   bool whole_piece_first, std::size_t vocabulary);
  ByteLevelEncoder(const ByteLevelEncoder&) = delete;
  ByteLevelEncoder& operator=(const ByteLevelEncoder&) = delete;

  /// Pre-tokenizes text (valid UTF-8, no added tokens in it) and appends its
  /// ids. Thread-safe.
  void encode(std::string_view text, std::vector<TokenId>& out) const;
  /// The ids of one pre-tokenized piece. Thread-safe.
  void encode_piece(std::string_view piece, std::vector<TokenId>& out) const;

  // Building (before the first encode): every byte's id, each token's bytes,
  // and for Rule::merges each merge's pair, rank and result.
  void set_byte(unsigned char byte, TokenId id) { byte_ids_[byte] = id; }
  /// Tokens' bytes (viewed only during the call), every token in one call or
  /// in several, in id order: a bytes already added keeps its first id.
  /// Returns how many tokens repeated bytes already added.
  std::size_t add_tokens(std::span<const byte_level_detail::ByteTable::Entry> tokens);
  /// Calls visit(bytes, id) for every token added, in no particular order.
  template <class Visit>
  void for_each_token(Visit&& visit) const {
    tokens_.for_each(visit);
  }
  /// The id of a token's bytes (after add_tokens), or ByteTable::kNone.
  [[nodiscard]] TokenId token_of(std::string_view bytes) const noexcept {
    return tokens_.find(bytes);
  }
  void reserve_merges(std::size_t n) { merges_.reserve(n); }
  /// Makes a Rule::merges encoder, before finish() and instead of add_merge(),
  /// a Rule::token_splits one. Contract: the merges are one a token in
  /// increasing order of the merged token's id, and split_at[id] is the byte
  /// length of the left part of token id's merge (0: no merge makes id). Then
  /// HF's lowest-ranked merge is the adjacent pair whose merged token has the
  /// lowest id and that splits it at split_at (ranks grow with the merged id,
  /// and a token has no other merge), leftmost on ties (the same merge twice).
  void use_token_splits(std::vector<std::uint8_t> split_at);
  /// Whether this Rule::merges encoder's merges (merges, the ones it was built
  /// from, in order), less those of tokens not spelled in bytes, are
  /// every_split, which implied_merges(true) gave: every way to split each of
  /// its tokens into two tokens, in increasing order of (merged id, left id),
  /// as HF's converter writes a tiktoken file's (Llama 3's). Then the ranks
  /// rule gives HF's ids (docs/performance.md, twenty-fourth round, has the
  /// proof): a pair merges exactly when its bytes are a token, and two pairs
  /// that make the same token at once are the same split.
  [[nodiscard]] bool every_split_listed(std::span<const hf_detail::MergeIds> merges,
                                        std::span<const hf_detail::MergeIds> every_split) const;
  [[nodiscard]] Rule rule() const noexcept { return rule_; }
  /// The merges its byte table implies, as a tokenizer.json lists them:
  /// every_split, every split of each token into two tokens, in increasing
  /// order of (merged id, left id) (the list every_split_listed() accepts);
  /// otherwise, for Rule::token_splits, each token's one split in increasing
  /// order of its id (the list use_token_splits() was given, less merges of
  /// tokens not spelled in bytes). What a compiled entry rebuilds instead of
  /// keeping the file's list, when the two are the same.
  [[nodiscard]] std::vector<hf_detail::MergeIds> implied_merges(bool every_split) const;
  void add_merge(TokenId left, TokenId right, std::uint32_t rank, TokenId merged);
  /// Fetches the merge table's slot for (left, right) ahead of its add_merge:
  /// the table is out of the cache, and the merges come in no order of it.
  void prefetch_merge(TokenId left, TokenId right) const noexcept;
  /// Ends building (after set_byte, add_tokens and add_merge): the table of
  /// every pair of bytes.
  void finish();

  /// The tokens whose bytes, merged by the rule (no whole-piece lookup), do
  /// not give the token back, in id order. Looking a piece up whole before
  /// merging it (tiktoken's order, whole_piece_first) gives the ids merging
  /// gives for every other token, since such a piece merges into itself: so
  /// an encoder may look up whole all but these. None in Qwen 3's file; in
  /// GPT-4o's, whose merges were derived from tiktoken's ranks, a few. Merges
  /// every token once (about 50 ms for 200,000 on one thread), on up to
  /// threads threads; the result does not depend on them.
  [[nodiscard]] std::vector<TokenId> tokens_merging_apart(unsigned threads) const;

  /// The finished encoder written to out (its tables viewed until out
  /// commits), and read back: the compiled-model cache. merging_apart: when
  /// given, the entry's encoder looks whole pieces up first except for these
  /// tokens (tokens_merging_apart(), computed by the writer); otherwise it is
  /// this encoder as it is. as_ranks: the entry's encoder takes Rule::ranks,
  /// without the merge table (every_split_listed() must hold). load throws
  /// compiled::Stale on an entry of another shape; nothing it read may be
  /// trusted before the reader's finish().
  void save(compiled::Writer& out, const std::vector<TokenId>* merging_apart,
            bool as_ranks = false) const;
  [[nodiscard]] bool whole_piece_first() const noexcept { return whole_piece_first_; }
  /// Whether id's piece is merged although whole_piece_first: one of the
  /// tokens merging apart.
  [[nodiscard]] bool merges_apart(TokenId id) const noexcept {
    return id / 64 < merging_apart_.size() && ((merging_apart_[id / 64] >> (id % 64)) & 1u) != 0;
  }
  static std::shared_ptr<ByteLevelEncoder> load(compiled::Reader& in);
  /// The pattern (or preset sequence's key, PieceSplit) that cuts its pieces.
  [[nodiscard]] const std::string& pattern() const noexcept { return split_.key(); }

 private:
  ByteLevelEncoder(std::string_view pattern, UnicodeVersion unicode, Rule rule,
                   bool whole_piece_first, byte_level_detail::ByteTable tokens);
  using Merge = byte_level_detail::MergeTable::Merge;
  // The rank and result of merging two adjacent parts: piece bytes [start, end)
  // made of left [start, mid) then right. rank UINT32_MAX: they do not merge.
  [[nodiscard]] Merge merge_of(std::string_view piece, std::uint32_t start, std::uint32_t mid,
                               std::uint32_t end, TokenId left, TokenId right) const noexcept {
    if (rule_ == Rule::merges) {
      const Merge* m = merges_.find(pack_pair(left, right));
      return m ? *m : Merge{UINT32_MAX, 0};
    }
    // One lookup for both rules: under token_splits the slot's mark is the
    // token's split (split_at_ for a token too long for a slot).
    const std::string_view bytes = piece.substr(start, end - start);
    std::uint32_t split = 0;
    const TokenId id = tokens_.find(bytes, split);
    if (id == byte_level_detail::ByteTable::kNone) return {UINT32_MAX, 0};
    if (rule_ == Rule::token_splits) {
      if (bytes.size() > byte_level_detail::ShortKey::kMaxBytes)
        split = id < split_at_.size() ? split_at_[id] : 0;
      if (split != mid - start) return {UINT32_MAX, 0};
    }
    return {id, id};
  }
  // The merge of each two bytes a, b at a << 8 | b by the ranks rule: the token
  // they make, ranked by its id, where merges(id) says the token is a merge
  // (for the rules that look pairs up in the byte table: ranks, token_splits).
  template <class Merges>
  [[nodiscard]] std::vector<Merge> byte_pairs_by_token(Merges&& merges) const {
    std::vector<Merge> pairs(std::size_t{1} << 16, Merge{UINT32_MAX, 0});
    char two[2];
    for (unsigned a = 0; a < 256; ++a)
      for (unsigned b = 0; b < 256; ++b) {
        two[0] = static_cast<char>(a);
        two[1] = static_cast<char>(b);
        if (const TokenId id = tokens_.find({two, 2});
            id != byte_level_detail::ByteTable::kNone && merges(id))
          pairs[(std::size_t{a} << 8) | b] = {id, id};
      }
    return pairs;
  }
  // merge_of through this thread's pair cache.
  [[nodiscard]] Merge cached_merge_of(byte_level_detail::PieceCache& cache, std::string_view piece,
                                      std::uint32_t start, std::uint32_t mid, std::uint32_t end,
                                      TokenId left, TokenId right) const noexcept;
  void encode_piece(std::string_view piece, std::vector<TokenId>& out,
                    byte_level_detail::PieceCache& cache) const;
  // The piece's ids by merging alone (no whole-piece lookup).
  void merge_piece(std::string_view piece, std::vector<TokenId>& out,
                   byte_level_detail::PieceCache& cache) const;
  void merge_scan(std::string_view piece, std::vector<TokenId>& out,
                  byte_level_detail::PieceCache& cache) const;
  void merge_short(std::string_view piece, std::vector<TokenId>& out,
                   byte_level_detail::PieceCache& cache) const;
  void merge_long(std::string_view piece, std::vector<TokenId>& out,
                  byte_level_detail::PieceCache& cache) const;

  PieceSplit split_;
  Rule rule_;
  bool whole_piece_first_;
  std::array<TokenId, 256> byte_ids_{};
  byte_level_detail::ByteTable tokens_;
  byte_level_detail::MergeTable merges_;
  std::vector<Merge> byte_pairs_;  // the merge of bytes a, b at a << 8 | b
  // Rule::token_splits: by id, the byte length of the left part of the token's
  // merge (0: none). A byte: a longer left part keeps the file on Rule::merges.
  // The byte table's slots hold the same as their marks, which the lookups of
  // short tokens read instead: the id and its split in one cache line. Owned
  // by split_at_owner_: the vector use_token_splits() was given, or the
  // mapping of the entry it was loaded from (viewed, as the byte table is).
  std::span<const std::uint8_t> split_at_;
  std::shared_ptr<const void> split_at_owner_;
  // A bit an id: tokens merged although whole_piece_first (merges_apart()).
  std::vector<std::uint64_t> merging_apart_;
  const std::uint64_t identity_;
};

/// The fused encoder of a tokenizer.json whose pre-tokenizer is a Split by
/// pattern (every character matched, so Isolated and inverted Removed agree)
/// then ByteLevel without prefix space or regex, and whose BPE model spells its
/// tokens in GPT-2's byte alphabet; nullptr when the model's options or
/// vocabulary do not fit (a byte without a token, prefixes, byte fallback).
/// merges: the model's merges resolved to ids (hf/merge_ids.hpp).
std::shared_ptr<const ByteLevelEncoder> make_hf_byte_level(
    std::string_view pattern, const TokenTable& tokens, std::span<const hf_detail::MergeIds> merges,
    const BpeModelOptions& options);

/// Whether pattern has a hand-written matcher (tokenlab/regex.hpp's presets,
/// or a preset sequence of splits' key, kDeepSeekV3Splits).
bool is_preset_pattern(std::string_view pattern) noexcept;

}  // namespace tokenlab
