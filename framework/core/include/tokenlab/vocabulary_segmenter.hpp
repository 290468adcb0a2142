// File: vocabulary_segmenter.hpp
// A base class for segmenters whose model is a vocabulary of pieces (plus, at
// most, a few fields of their own): the plugin SDK's starting point.
//
// What the base does (VocabularySegmenterBase):
//   * owns the Vocabulary; new_vocabulary(options) starts one with the special
//     tokens (options.special_tokens, or "<unk>"), the unknown token marked;
//     new_vocabulary(options, counts) adds the shared base alphabet, so that a
//     comparison with the built-in algorithms is fair. Both follow the layout rule
//     of vocabulary_layout.hpp, the one every built-in trainer uses;
//   * decode(): concatenates the pieces (decode_pieces: the unknown token becomes
//     "⁇", other specials vanish), after checking every id is in range;
//   * display_piece(): the piece, after the same check;
//   * check_ids(): throws an Error naming the plugin and the first bad id;
//   * save()/load(): a checked payload (PayloadOArchive/PayloadIArchive, Boost
//     binary archives) tagged with name() and kFormatVersion: a payload of another
//     plugin or format version is refused with a message naming both. The subclass
//     adds its own fields through save_fields()/load_fields(). load() commits
//     nothing unless all of it is valid.
//   * with VocabularySegmenter<Derived>: name(), version() and capabilities() from
//     Derived's static constants, which TOKENLAB_DEFINE_PLUGIN(Derived) reads too.
//
// What the subclass does:
//   * declares kName (= the plugin file's base name), kVersion, kDescription,
//     kCapabilities (and kFormatVersion if it adds fields: bump it when they change);
//   * train(): validate options.extra (OptionReader), build a Vocabulary from
//     new_vocabulary(options), then set_vocabulary() it; throw before committing,
//     so a failed train() keeps the previous model;
//   * encode(): append ids; every id must be < vocabulary().size();
//     find_piece() looks up ordinary pieces only (a user typing "<unk>" is text);
//   * optionally save_fields()/load_fields() for members beyond the vocabulary.
//
// Thread-safety: the base's const members only read, so encode/decode/display_piece
// may run concurrently as long as the subclass's encode() writes nothing shared
// (no mutable caches without their own synchronisation). train() and load() need
// exclusive access.
//
// This header is the SDK in one include (Segmenter, PayloadIArchive/OArchive,
// OptionReader, utf8, WordCounts, TOKENLAB_DEFINE_PLUGIN). Example (a whole
// plugin, minus the algorithm):
//
//   class Mine final : public tokenlab::VocabularySegmenter<Mine> {
//    public:
//     static constexpr const char* kName = "mine";
//     static constexpr const char* kVersion = "0.1.0";
//     static constexpr const char* kDescription = "my segmenter";
//     static constexpr tokenlab::Capabilities kCapabilities = tokenlab::kCapabilityNone;
//     void train(const tokenlab::WordCounts& counts, const tokenlab::TrainOptions& options,
//                tokenlab::TrainingObserver*) override {
//       tokenlab::OptionReader("mine", options.extra, {});   // no options of its own
//       tokenlab::Vocabulary v = new_vocabulary(options, counts);  // specials, alphabet
//       ... v.add(piece) ...
//       set_vocabulary(std::move(v));
//     }
//     void encode(std::string_view word, std::vector<tokenlab::TokenId>& out) const override {
//       ... out.push_back(find_piece(text).value_or(unknown_id())) ...
//     }
//   };
//   TOKENLAB_DEFINE_PLUGIN(Mine)
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// The plugin SDK in one include: what a plugin's train() and encode() need.
#include "tokenlab/error.hpp"
#include "tokenlab/export.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {

/// Throws Error naming plugin and the first id >= vocabulary_size. Every host path
/// that receives ids from a plugin calls it before using them.
TOKENLAB_API void check_ids(std::span<const TokenId> ids, std::size_t vocabulary_size,
                            const std::string& plugin);

class TOKENLAB_API VocabularySegmenterBase : public Segmenter {
 public:
  [[nodiscard]] const Vocabulary& vocabulary() const override { return vocabulary_; }
  /// Checks the ids, then decode_pieces().
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  /// Checks the id, then the piece.
  [[nodiscard]] std::string display_piece(TokenId id) const override;
  /// Layout: tag (name(), format_version()), vocabulary, save_fields().
  void save(std::ostream& out) const final;
  /// Reads what save() wrote; throws Error and keeps the current model on any flaw.
  void load(std::istream& in) final;

 protected:
  /// The vocabulary before training, by the rule every built-in trainer follows
  /// (vocabulary_layout.hpp): the special tokens (options.special_tokens, else
  /// "<unk>"; "<unk>" is added first when missing, and marked unknown). Throws
  /// Error if vocab_size leaves no room beyond them.
  [[nodiscard]] Vocabulary new_vocabulary(const TrainOptions& options) const;
  /// The same, then the base alphabet: one piece per character of
  /// select_alphabet(counts, options.character_coverage), in code point order,
  /// the most frequent ones when vocab_size has no room for all (said through
  /// observer, if given). Comparisons with the built-ins are fair from this start.
  [[nodiscard]] Vocabulary new_vocabulary(const TrainOptions& options, const WordCounts& counts,
                                          TrainingObserver* observer = nullptr) const;
  /// Replaces the model's vocabulary (call at the end of train()). Throws Error if it
  /// has no unknown token.
  void set_vocabulary(Vocabulary vocabulary);
  /// The id of an ordinary (non-special) piece equal to text, if any.
  [[nodiscard]] std::optional<TokenId> find_piece(std::string_view text) const noexcept;
  /// The unknown token's id (the vocabulary always has one).
  [[nodiscard]] TokenId unknown_id() const noexcept { return vocabulary_.unknown_id().value_or(0); }
  /// Throws Error naming this plugin and the first id out of range.
  void check_ids(std::span<const TokenId> ids) const;

  /// Hooks for fields beyond the vocabulary, written and read with the archive
  /// (ar << value, ar >> value; names through boost::serialization::make_nvp show
  /// in error messages). load_fields() reads and validates them (ar.fail("why") on
  /// bad values) without touching members, and returns what commits them: it runs
  /// only once the whole payload is known to be valid.
  [[nodiscard]] virtual std::uint32_t format_version() const { return 1; }
  virtual void save_fields(PayloadOArchive& ar) const;
  [[nodiscard]] virtual std::function<void()> load_fields(PayloadIArchive& ar,
                                                          const Vocabulary& vocabulary);

 private:
  Vocabulary vocabulary_;
};

/// name(), version(), capabilities() and format_version() from Derived's static
/// constants kName, kVersion, kCapabilities and (optional) kFormatVersion.
template <class Derived>
class VocabularySegmenter : public DescribedSegmenter<Derived, VocabularySegmenterBase> {
 protected:
  [[nodiscard]] std::uint32_t format_version() const override {
    if constexpr (requires { Derived::kFormatVersion; })
      return Derived::kFormatVersion;
    else
      return 1;
  }
};

}  // namespace tokenlab
