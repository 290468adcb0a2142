// File: segmenter.hpp
// The one interface every segmentation algorithm implements.
//
// A Segmenter sees pre-tokenized words only: UTF-8 strings that carry the
// boundary marker U+2581 ("▁") as an ordinary character, at the start (prefix
// style) or the end (suffix style). It never sees raw text, and it never needs to
// know which style is in use: the marker is just another unit.
//
//   std::unique_ptr<Segmenter> s = registry.create("bpe");
//   s->train(counts, TrainOptions{.vocab_size = 8000}, nullptr);
//   std::vector<TokenId> ids;
//   s->encode("\u2581lowest", ids);            // appends ids
//   std::string word = s->decode(ids);          // "▁lowest"
//
// Contracts every implementation keeps (the conformance suite checks them):
//  * decode(encode(w)) == w whenever no unknown token was produced;
//  * every id produced is < vocabulary().size();
//  * train() is deterministic: same counts and options give the same vocabulary
//    and the same save() bytes, whatever options.threads is;
//  * encode() and decode() are safe to call concurrently from many threads;
//  * save() then load() into a fresh instance gives identical encodings;
//  * an unknown key in TrainOptions::extra throws Error listing the valid keys.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab {

class WordCounts;

/// Options of a stochastic encoding (BPE-dropout probability or unigram alpha).
struct SamplingOptions {
  double dropout = 0.1;  // BPE: probability of skipping a merge
  double alpha = 0.1;    // unigram: inverse temperature of the path distribution
  std::uint64_t seed = 0;
};

/// One segmentation with its model score (log probability for unigram).
struct ScoredSegmentation {
  std::vector<TokenId> ids;
  double score = 0.0;
};

class TOKENLAB_API Segmenter {
 public:
  virtual ~Segmenter();

  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string version() const = 0;
  [[nodiscard]] virtual Capabilities capabilities() const { return kCapabilityNone; }

  /// Learns a vocabulary from word counts. Throws Error on bad options or data
  /// that cannot support the special tokens. observer may be null.
  virtual void train(const WordCounts& counts, const TrainOptions& options,
                     TrainingObserver* observer) = 0;

  /// Appends the ids of one pre-tokenized word to out. Thread-safe.
  virtual void encode(std::string_view word, std::vector<TokenId>& out) const = 0;

  /// Concatenates the pieces of ids back to text (markers kept). Thread-safe.
  [[nodiscard]] virtual std::string decode(std::span<const TokenId> ids) const = 0;

  [[nodiscard]] virtual const Vocabulary& vocabulary() const = 0;

  /// Text of a piece for display (byte-level BPE shows bytes printably).
  [[nodiscard]] virtual std::string display_piece(TokenId id) const;

  /// Writes the learned model; the bytes depend only on the model.
  virtual void save(std::ostream& out) const = 0;
  /// Replaces this instance's model with one written by save(). Throws Error on
  /// malformed data.
  virtual void load(std::istream& in) = 0;

  /// Stochastic segmentation; requires kCapabilitySampling (else throws Error).
  virtual void encode_sampled(std::string_view word, const SamplingOptions& options,
                              std::uint64_t& rng_state, std::vector<TokenId>& out) const;
  /// The k best segmentations, best first; requires kCapabilityNBest (else throws Error).
  /// Implementations clamp k to kMaxNBest and throw Error rather than create more
  /// than kMaxNBestHypotheses search states for one word.
  [[nodiscard]] virtual std::vector<ScoredSegmentation> nbest(std::string_view word,
                                                              std::size_t k) const;

  /// Replaces the model with one read in a foreign format (e.g. "vocab.txt" for
  /// BERT). name is used in error messages. Default: throws Error (unsupported).
  virtual void import_model(std::istream& in, const std::string& format, const std::string& name);
  /// Writes the model in a foreign format. Default: throws Error (unsupported).
  virtual void export_model(std::ostream& out, const std::string& format) const;
};

/// name(), version() and capabilities() from Derived's static constants kName,
/// kVersion and kCapabilities, which TOKENLAB_DEFINE_PLUGIN(Derived) reads too, so
/// a plugin's identity is written once. Base is Segmenter or a class derived from it.
///
///   class Mine final : public DescribedSegmenter<Mine> {
///     static constexpr const char* kName = "mine"; ...
template <class Derived, class Base = Segmenter>
class DescribedSegmenter : public Base {
 public:
  [[nodiscard]] std::string name() const override { return Derived::kName; }
  [[nodiscard]] std::string version() const override { return Derived::kVersion; }
  [[nodiscard]] Capabilities capabilities() const override { return Derived::kCapabilities; }
};

}  // namespace tokenlab
