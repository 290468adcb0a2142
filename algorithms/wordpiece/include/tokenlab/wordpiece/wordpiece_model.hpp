// File: wordpiece_model.hpp
// The WordPiece segmenter: likelihood-trained vocabulary, BERT-exact encoding.
//
//   WordPieceSegmenter wp;
//   wp.train(counts, TrainOptions{.vocab_size = 30000}, nullptr);
//   std::vector<TokenId> ids;
//   wp.encode("\u2581unaffable", ids);   // e.g. ▁un ##aff ##able
//   wp.decode(ids);                      // "▁unaffable"
//
// Training: see trainer.hpp (score = count(ab) / (count(a) x count(b))).
// TrainOptions::extra keys:
//   continuation_prefix       prefix of non-initial pieces (default "##")
//   max_input_chars_per_word  longer words encode to [UNK] (default 100)
// Special tokens default to [PAD] [UNK] [CLS] [SEP] [MASK]. The unknown token is
// "[UNK]" if listed, else "<unk>" if listed, else "[UNK]" is appended to them.
//
// Encoding (BERT's WordpieceTokenizer): from the start of the word take the
// longest vocabulary piece; from then on take the longest continuation piece
// (stored with the prefix, matched without it). If no piece matches at some
// position, or the word has more than max_input_chars_per_word code points, the
// whole word is one unknown token. Special tokens are never matched in text.
//
// Decoding strips the prefix from continuation pieces and concatenates. A
// vocabulary imported from a BERT vocab.txt has no boundary marker, so it sets
// bert_spacing(): decode then puts one space before every piece that starts a
// word (except the first), the way BERT's own decoder joins tokens.
//
// Thread safety: const members may be called concurrently; encode() keeps a
// small per-thread cache of recent words. train(), load() and import replace
// the model and must not race with anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/segmenter.hpp"
#include "tokenlab/wordpiece/wordpiece_trainer.hpp"

namespace tokenlab::wordpiece {

/// The largest max_input_chars_per_word a model may have (train option or file).
inline constexpr std::uint64_t kMaxInputCharsLimit = 1u << 20;

class WordPieceSegmenter final : public DescribedSegmenter<WordPieceSegmenter> {
 public:
  WordPieceSegmenter();
  ~WordPieceSegmenter() override;
  WordPieceSegmenter(WordPieceSegmenter&&) noexcept;
  WordPieceSegmenter& operator=(WordPieceSegmenter&&) noexcept;

  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "wordpiece";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr const char* kDescription =
      "WordPiece: likelihood-trained merges, BERT greedy longest-match encoding";
  static constexpr Capabilities kCapabilities = kCapabilityTrace;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  [[nodiscard]] const Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream& out) const override;
  void load(std::istream& in) override;

  /// Replaces the model with a BERT vocab.txt: id = line number, exactly. The
  /// leading run of reserved tokens ([PAD], [unused0]...) becomes the
  /// vocabulary's special tokens; reserved tokens later in the file keep their
  /// ids and are never matched either. Requires an "[UNK]" (or "<unk>") line.
  /// Sets continuation prefix "##", max_input_chars_per_word 100, and
  /// bert_spacing unless some token holds the boundary marker U+2581 (a
  /// vocabulary tokenlab exported). Throws Error naming `name` and the line.
  void import_vocab_txt(std::istream& in, const std::string& name);
  /// Writes the vocabulary as vocab.txt, one piece per line in id order.
  void export_vocab_txt(std::ostream& out) const;

  /// Format "vocab.txt" only: import_vocab_txt / export_vocab_txt. Any other
  /// format throws Error naming it and listing "vocab.txt".
  void import_model(std::istream& in, const std::string& format, const std::string& name) override;
  void export_model(std::ostream& out, const std::string& format) const override;

  [[nodiscard]] const std::string& continuation_prefix() const noexcept { return prefix_; }
  [[nodiscard]] std::size_t max_input_chars_per_word() const noexcept { return max_chars_; }
  [[nodiscard]] bool bert_spacing() const noexcept { return bert_spacing_; }
  /// The unknown token's id; unlike vocabulary().unknown_id() it is also set when
  /// an imported file lists [UNK] after ordinary tokens.
  [[nodiscard]] std::optional<TokenId> unknown_id() const noexcept { return unknown_; }
  /// Whether decode() glues this piece to the one before it.
  [[nodiscard]] bool is_continuation(TokenId id) const;
  /// The merges of the last train() in this process (not saved with the model).
  [[nodiscard]] const std::vector<Merge>& merges() const noexcept { return merges_; }

 private:
  void install(Vocabulary vocabulary, std::string prefix, std::size_t max_chars, bool bert_spacing,
               bool bert_lookup, std::optional<TokenId> unknown, std::vector<TokenId> reserved);
  void encode_uncached(std::string_view word, std::vector<TokenId>& out) const;

  Vocabulary vocabulary_;
  std::string prefix_ = "##";
  std::size_t max_chars_ = 100;
  bool bert_spacing_ = false;
  // BERT looks a word's first piece up in the whole vocabulary, "##" pieces
  // included; a trained model leaves those out so that decoding is lossless.
  bool bert_lookup_ = false;
  std::optional<TokenId> unknown_;
  std::vector<TokenId> reserved_;  // sorted ids never matched in text
  std::vector<Merge> merges_;

  // Derived on install(): tries, per-id continuation flags, cache stamp.
  std::vector<std::uint8_t> continuation_;
  struct Tries;
  std::unique_ptr<Tries> tries_;
  std::uint64_t stamp_ = 0;
};

}  // namespace tokenlab::wordpiece
