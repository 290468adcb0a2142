// File: bpe_model.hpp
// Byte-pair encoding (Sennrich et al. 2016): a vocabulary of units plus an ordered
// list of merges learned from word counts; a word is encoded by replaying the
// merges, lowest rank first.
//
//   tokenlab::bpe::BpeSegmenter bpe;
//   tokenlab::TrainOptions options{.vocab_size = 30000, .threads = 2};
//   options.extra["units"] = "bytes";          // byte-level BPE (GPT-2 style)
//   bpe.train(counts, options, nullptr);
//   std::vector<tokenlab::TokenId> ids;
//   bpe.encode("\u2581lowest", ids);
//   std::string back = bpe.decode(ids);        // "\u2581lowest"
//
// Options (TrainOptions::extra), all validated; an unknown key throws Error:
//   units            chars | bytes          base units: code points (default) or the
//                                           256 byte values (never an unknown token)
//   max_token_length 0.. (default 0)        longest piece in units; 0 = no limit
//   byte_fallback    true | false (false)   chars only: characters outside the base
//                                           alphabet encode as <0xNN> byte tokens
//                                           (SentencePiece), not as <unk>
//   tie_break        first-seen | hf        equal counts: the pair seen first when the
//                                           words are scanned in order (textbook,
//                                           default), or the smaller pair of ids
//   dropout          0..1 (default 0)       the model's default BPE-dropout, used by
//                                           encode_sampled() when given a negative p
// TrainOptions used: vocab_size (specials included), min_frequency (a pair is merged
// only while its count is at least max(1, min_frequency)), character_coverage (chars
// only: the base alphabet keeps the most frequent characters until this share of
// character occurrences is covered), threads, special_tokens.
//
// Special tokens: by default "<unk>" (chars) or none (bytes). An explicit list is
// used as given; "<unk>" in it becomes the unknown token. Without an unknown token
// and without byte fallback, characters outside the alphabet are dropped by encode().
//
// A merge whose text already exists in the vocabulary (e.g. "a"+"bc" after
// "ab"+"c") is skipped, so every merge adds exactly one piece and replaying the
// merges reproduces the trainer's segmentation of every training word.
//
// Thread safety: encode(), encode_sampled(), decode() and the accessors may be called
// concurrently; train() and load() need exclusive access.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenlab/bpe/bpe_trainer.hpp"
#include "tokenlab/segmenter.hpp"

namespace tokenlab::bpe {

enum class Units : std::uint8_t { kChars = 0, kBytes = 1 };

/// GPT-2's printable stand-in for a byte, as UTF-8: bytes 0x21-0x7E, 0xA1-0xAC and
/// 0xAE-0xFF are themselves; the other 68 map in order to U+0100.. (space: U+0120).
[[nodiscard]] std::string byte_display(std::uint8_t byte);
/// raw with every byte replaced by byte_display().
[[nodiscard]] std::string bytes_display(std::string_view raw);

class BpeSegmenter final : public DescribedSegmenter<BpeSegmenter> {
 public:
  BpeSegmenter();
  ~BpeSegmenter() override;
  BpeSegmenter(const BpeSegmenter&) = delete;  // the per-thread caches key on identity
  BpeSegmenter& operator=(const BpeSegmenter&) = delete;

  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "bpe";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr const char* kDescription =
      "Byte-pair encoding (Sennrich et al. 2016): chars or bytes, byte fallback, "
      "BPE-dropout, merge traces";
  static constexpr Capabilities kCapabilities = kCapabilitySampling | kCapabilityTrace;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  /// As train(), and also stores in final_segmentation[i] the trainer's final
  /// segmentation of counts.entries()[i] (what encode() must reproduce).
  void train(const WordCounts& counts, const TrainOptions& options, TrainingObserver* observer,
             std::vector<std::vector<TokenId>>* final_segmentation);

  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  /// BPE-dropout (Provilkov et al. 2020): each applicable merge is skipped with
  /// probability p = options.dropout (the model's default when negative), skipped
  /// merges becoming candidates again after the next merge. p = 0 is encode().
  void encode_sampled(std::string_view word, const SamplingOptions& options,
                      std::uint64_t& rng_state, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  [[nodiscard]] const Vocabulary& vocabulary() const override;
  [[nodiscard]] std::string display_piece(TokenId id) const override;

  void save(std::ostream& out) const override;
  void load(std::istream& in) override;
  /// Format kModelDescriptionFormat: the model in neutral form, for the exporters.
  void export_model(std::ostream& out, const std::string& format) const override;

  /// The merges in rank order (rank 0 first).
  [[nodiscard]] const std::vector<MergeRule>& merges() const noexcept;
  [[nodiscard]] Units units() const noexcept;
  [[nodiscard]] bool byte_fallback() const noexcept;
  [[nodiscard]] TieBreak tie_break() const noexcept;
  [[nodiscard]] double default_dropout() const noexcept;

  struct Model;  // the learned data and the tables derived from it

 private:
  void encode_impl(std::string_view word, std::vector<TokenId>& out, std::uint64_t* rng,
                   double dropout) const;

  std::unique_ptr<Model> model_;
};

}  // namespace tokenlab::bpe
