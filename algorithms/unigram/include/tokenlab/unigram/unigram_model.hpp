// File: unigram_model.hpp
// The unigram language-model segmenter (Kudo 2018, "Subword Regularization"):
// every piece has a log probability, and a word is segmented into the sequence of
// pieces with the highest total log probability (Viterbi over the word's lattice).
//
//   UnigramSegmenter s;
//   s.train(counts, TrainOptions{.vocab_size = 8000, .threads = 2}, nullptr);
//   std::vector<TokenId> ids;
//   s.encode("\u2581lowest", ids);                  // best segmentation
//   auto top = s.nbest("\u2581lowest", 3);          // 3 best, with log probabilities
//   std::uint64_t rng = 42;
//   s.encode_sampled("\u2581lowest", {.alpha = 0.1}, rng, ids);  // subword regularization
//
// Vocabulary: special tokens (default "<unk>", always present and marked unknown),
// then with byte_fallback the 256 byte tokens "<0x00>".."<0xFF>", then the pieces,
// most probable first. A character no piece covers becomes <unk> (consecutive
// ones merge into one, as SentencePiece does) or, with byte_fallback, its UTF-8
// bytes as byte tokens, which decode back to the character.
//
// Options (TrainOptions::extra): seed_size (1000000), max_piece_length (16),
// shrinking_factor (0.75), num_sub_iterations (2), byte_fallback (false).
//
// Thread-safety: const members may be called concurrently. encode() keeps a small
// per-thread cache of recent words, invalidated when the model changes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/piece_trie.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/unigram/unigram_lattice.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab::unigram {

class UnigramSegmenter final : public DescribedSegmenter<UnigramSegmenter> {
 public:
  UnigramSegmenter();
  ~UnigramSegmenter() override;

  // Written once: DescribedSegmenter and the plugin descriptor (TOKENLAB_DEFINE_PLUGIN)
  // read them.
  static constexpr const char* kName = "unigram";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr const char* kDescription =
      "Unigram language model (Kudo 2018): EM, pruning, sampling, n-best";
  static constexpr Capabilities kCapabilities =
      kCapabilitySampling | kCapabilityNBest | kCapabilityTrace;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override;
  [[nodiscard]] const Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream& out) const override;
  void load(std::istream& in) override;
  /// Format kModelDescriptionFormat: the model in neutral form, for the exporters.
  void export_model(std::ostream& out, const std::string& format) const override;
  void encode_sampled(std::string_view word, const SamplingOptions& options,
                      std::uint64_t& rng_state, std::vector<TokenId>& out) const override;
  [[nodiscard]] std::vector<ScoredSegmentation> nbest(std::string_view word,
                                                      std::size_t k) const override;

  /// Installs a model directly: specials (the first is not required to be
  /// "<unk>"; "<unk>" is added first if missing), then pieces with their log
  /// probabilities. For tests, importers and the course's hand-made examples.
  void set_model(const std::vector<std::string>& specials,
                 const std::vector<std::pair<std::string, double>>& pieces, bool byte_fallback);

  /// Log probability of each id (0 for special and byte tokens).
  [[nodiscard]] const std::vector<double>& scores() const noexcept { return scores_; }
  [[nodiscard]] bool byte_fallback() const noexcept { return byte_fallback_; }

  /// The word's lattice over byte positions, as encode() sees it: one edge per
  /// piece occurrence, plus an edge with id unknown_edge_id() for each character
  /// no single-character piece covers.
  void build_lattice(std::string_view word, Lattice& lattice) const;
  [[nodiscard]] static constexpr std::uint32_t unknown_edge_id() noexcept { return 0xFFFFFFFFu; }

 private:
  // Recomputes everything derived from vocabulary_ and scores_ (trie, unknown
  // score) and gives the model a new identity for the per-thread caches.
  void rebuild();
  void encode_uncached(std::string_view word, std::vector<TokenId>& out) const;
  // Appends the ids of one lattice edge covering word[begin, end).
  void emit(std::string_view word, std::uint32_t begin, std::uint32_t end, std::uint32_t id,
            std::vector<TokenId>& out) const;

  Vocabulary vocabulary_;
  std::vector<double> scores_;
  bool byte_fallback_ = false;
  TokenId byte_base_ = 0;  // id of <0x00> when byte_fallback_
  TokenId unknown_ = 0;
  double unknown_score_ = 0.0;
  PieceTrie trie_;
  std::uint64_t model_id_ = 0;
};

}  // namespace tokenlab::unigram
