// Unigram EM and pruning over the corpus of distinct words (unigram_trainer_seeding.cpp makes
// the seed vocabulary).
#include <cmath>

#include "unigram_trainer_corpus.hpp"

namespace tokenlab::unigram {

using namespace detail;

namespace {

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

// EM and pruning over the distinct words. Each word's lattice is built once from
// the seed vocabulary and stored as a flat edge list; an M-step or a pruning step
// only deletes pieces, so it filters those lists instead of rebuilding them.
class EmTrainer {
 public:
  EmTrainer(const Corpus& corpus, const TrainerConfig& config, TrainingObserver* observer)
      : corpus_(corpus),
        config_(config),
        observer_(observer),
        threads_(std::max(1u, config.threads)),
        fixed_scale_(fixed_scale_for(corpus)) {}

  // kFixedScale, or a smaller power of two when the expected counts (at most the
  // weighted character count) would not fit in the int64 accumulators: counts
  // around 1e13 reach 2^63 at 2^20 units.
  static double fixed_scale_for(const Corpus& corpus) {
    const Uint128 weight = character_weight(corpus) + 1;
    double scale = kFixedScale;
    while (static_cast<long double>(weight) * scale >= 0x1p61L) scale /= 2;
    return scale;
  }

  std::vector<ScoredPiece> run(SeedVocabulary seeds) {
    for (std::size_t i = 0; i < seeds.pieces.size(); ++i) {
      pieces_.push_back(std::move(seeds.pieces[i].piece));
      scores_.push_back(seeds.pieces[i].score);
      required_.push_back(i < seeds.required_characters ? 1 : 0);
    }
    // The seeds now live in pieces_: release the moved-from vector (a million
    // string objects) before the lattice is built, at the training's peak.
    std::vector<ScoredPiece>().swap(seeds.pieces);
    if (corpus_.size() > 0 && !pieces_.empty()) {
      build_edges();
      const auto desired =
          std::max(config_.piece_target,
                   static_cast<std::size_t>(static_cast<double>(config_.piece_target) * 1.1));
      const double start = std::log(static_cast<double>(pieces_.size()) + 1.0);
      const double goal = std::log(static_cast<double>(desired) + 1.0);
      for (;;) {
        for (unsigned it = 0; it < config_.num_sub_iterations; ++it) {
          double objective = 0.0, tokens = 0.0;
          const auto expected = e_step(objective, tokens);
          m_step(expected);
          if (observer_ != nullptr && observer_->trace()) {
            observer_->on_step({"em",
                                em_steps_,
                                {{"size", std::to_string(pieces_.size())},
                                 {"objective", format_double(objective)},
                                 {"tokens_per_word", format_double(tokens)}}});
          }
          ++em_steps_;
        }
        if (observer_ != nullptr && start > goal) {
          const double now = std::log(static_cast<double>(pieces_.size()) + 1.0);
          observer_->on_progress("unigram em",
                                 std::clamp((start - now) / (start - goal), 0.0, 1.0));
        }
        if (pieces_.size() <= desired) break;
        const std::size_t before = pieces_.size();
        prune(desired);
        if (pieces_.size() == before) break;  // nothing left that pruning may remove
        if (config_.max_steps != 0 && prune_steps_ >= config_.max_steps) break;
      }
    }
    return finalize();
  }

 private:
  struct Chunk {
    std::vector<CompactEdge> edges;
    std::vector<std::uint32_t> word_end;  // word j of the chunk: [word_end[j-1], word_end[j])
  };

  [[nodiscard]] std::size_t chunk_count() const {
    return (corpus_.size() + kChunkWords - 1) / kChunkWords;
  }

  [[nodiscard]] double unknown_score() const {
    const double lowest = scores_.empty() ? 0.0 : *std::min_element(scores_.begin(), scores_.end());
    return lowest - kUnknownPenalty;
  }

  // Scores indexed by piece, with the unknown "piece" (index size()) appended.
  [[nodiscard]] std::vector<double> extended_scores() const {
    std::vector<double> s(scores_);
    s.push_back(unknown_score());
    return s;
  }

  template <class Fn>
  void for_each_word(const Chunk& chunk, std::size_t chunk_index, Fn&& fn) const {
    std::uint32_t begin = 0;
    for (std::size_t j = 0; j < chunk.word_end.size(); ++j) {
      const std::size_t w = chunk_index * kChunkWords + j;
      const std::span<const CompactEdge> edges(chunk.edges.data() + begin,
                                               chunk.word_end[j] - begin);
      fn(w, edges);
      begin = chunk.word_end[j];
    }
  }

  void build_edges() {
    std::vector<std::pair<std::string_view, std::uint32_t>> entries;
    entries.reserve(pieces_.size());
    for (std::size_t i = 0; i < pieces_.size(); ++i)
      entries.emplace_back(pieces_[i], static_cast<std::uint32_t>(i));
    const PieceTrie trie(std::move(entries));
    const auto unknown = static_cast<std::uint32_t>(pieces_.size());
    chunks_.assign(chunk_count(), {});
    parallel_for(chunks_.size(), threads_, [&](std::size_t ci) {
      Chunk& chunk = chunks_[ci];
      std::vector<std::size_t> offset;
      const std::size_t last = std::min(corpus_.size(), (ci + 1) * kChunkWords);
      for (std::size_t w = ci * kChunkWords; w < last; ++w) {
        const std::string_view text = corpus_.text[w];
        const std::uint32_t length = corpus_.length(w);
        offset.assign(length + 1, 0);
        for (std::uint32_t i = 0; i < length; ++i)
          offset[i + 1] = offset[i] + utf8_length(corpus_.cps[corpus_.cp_begin[w] + i]);
        for (std::uint32_t b = 0; b < length; ++b) {
          bool single = false;
          std::uint32_t e = b + 1;
          trie.common_prefixes(text, offset[b], [&](std::size_t len, std::uint32_t id) {
            const std::size_t end_byte = offset[b] + len;
            while (e < length && offset[e] < end_byte) ++e;
            if (offset[e] != end_byte) return;
            if (e == b + 1) single = true;
            chunk.edges.push_back(
                {id, static_cast<std::uint16_t>(b), static_cast<std::uint16_t>(e)});
          });
          if (!single)
            chunk.edges.push_back(
                {unknown, static_cast<std::uint16_t>(b), static_cast<std::uint16_t>(b + 1)});
        }
        chunk.word_end.push_back(static_cast<std::uint32_t>(chunk.edges.size()));
      }
    });
  }

  // Expected count of every piece under the current model; also the negative
  // mean log likelihood per word and the expected tokens per word.
  std::vector<double> e_step(double& objective, double& tokens) {
    const std::size_t n = pieces_.size();
    const std::vector<double> score = extended_scores();
    std::vector<double> prob(score.size());
    for (std::size_t i = 0; i < score.size(); ++i) prob[i] = std::exp(score[i]);
    std::vector<std::vector<std::int64_t>> acc(threads_, std::vector<std::int64_t>(n + 1, 0));
    std::vector<double> chunk_log_likelihood(chunks_.size(), 0.0);
    parallel_for_workers(chunks_.size(), threads_, [&](unsigned worker, std::size_t ci) {
      std::vector<double> alpha(kMaxWordChars + 1), beta(kMaxWordChars + 1);
      auto& a = acc[worker];
      double log_likelihood = 0.0;
      for_each_word(chunks_[ci], ci, [&](std::size_t w, std::span<const CompactEdge> edges) {
        const double c = static_cast<double>(corpus_.count[w]);
        auto add = [&](std::size_t k, double marginal) {
          a[edges[k].piece] += static_cast<std::int64_t>(c * marginal * fixed_scale_ + 0.5);
        };
        double log_z = compact_forward_backward(edges, corpus_.length(w), prob.data(), alpha.data(),
                                                beta.data(), add);
        if (std::isnan(log_z))
          log_z = compact_forward_backward_log(edges, corpus_.length(w), score.data(), alpha.data(),
                                               beta.data(), add);
        log_likelihood += c * log_z;
      });
      chunk_log_likelihood[ci] = log_likelihood;
    });
    std::vector<std::int64_t> total(n + 1, 0);
    for (const auto& a : acc)
      for (std::size_t i = 0; i <= n; ++i) total[i] += a[i];
    std::vector<double> expected(n);
    std::int64_t all = 0;
    for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<double>(total[i]) / fixed_scale_;
    for (std::size_t i = 0; i <= n; ++i) all += total[i];
    double log_likelihood = 0.0;
    for (const double v : chunk_log_likelihood) log_likelihood += v;  // chunk order: deterministic
    const auto words = static_cast<double>(corpus_.total);
    objective = -log_likelihood / words;
    tokens = static_cast<double>(all) / fixed_scale_ / words;
    return expected;
  }

  // Bayesian M-step (variational EM with a Dirichlet prior): pieces expected
  // fewer than 0.5 times go, the others get digamma(count) - digamma(total).
  // Required characters stay, with their count raised to the threshold.
  void m_step(const std::vector<double>& expected) {
    const std::size_t n = pieces_.size();
    std::vector<std::uint8_t> keep(n, 0);
    std::vector<double> count(n, 0.0);
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (required_[i] != 0) {
        count[i] = std::max(expected[i], kExpectedCountThreshold);
      } else if (expected[i] >= kExpectedCountThreshold) {
        count[i] = expected[i];
      } else {
        continue;
      }
      keep[i] = 1;
      sum += count[i];
    }
    const double log_sum = digamma(sum);
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i] != 0) scores_[i] = digamma(count[i]) - log_sum;
    remove_pieces(keep);
  }

  // SentencePiece's pruning: a piece whose own string segments better without it
  // goes; a piece with a second-best segmentation is ranked by how much the
  // likelihood drops when its Viterbi occurrences are re-segmented that way.
  void prune(std::size_t desired) {
    const std::size_t n = pieces_.size();
    const std::vector<double> score = extended_scores();
    const std::vector<double> freq = viterbi_frequencies(score);
    const Alternatives alternatives = second_best_segmentations(score);
    const std::size_t target = std::max(
        desired, static_cast<std::size_t>(config_.shrinking_factor * static_cast<double>(n)));
    remove_pieces(pieces_to_keep(freq, alternatives, target));
    if (observer_ != nullptr && observer_->trace()) {
      observer_->on_step(
          {"prune",
           prune_steps_,
           {{"size_before", std::to_string(n)}, {"size_after", std::to_string(pieces_.size())}}});
    }
    ++prune_steps_;
  }

  // How often each piece occurs in the Viterbi segmentations of the corpus,
  // weighted by word counts (summed per worker, so exact for any thread count).
  [[nodiscard]] std::vector<double> viterbi_frequencies(const std::vector<double>& score) const {
    const std::size_t n = pieces_.size();
    std::vector<std::vector<std::uint64_t>> frequency(threads_, std::vector<std::uint64_t>(n, 0));
    parallel_for_workers(chunks_.size(), threads_, [&](unsigned worker, std::size_t ci) {
      std::vector<double> best(kMaxWordChars + 1);
      std::vector<std::uint32_t> back(kMaxWordChars + 1);
      auto& f = frequency[worker];
      for_each_word(chunks_[ci], ci, [&](std::size_t w, std::span<const CompactEdge> edges) {
        const std::uint32_t length = corpus_.length(w);
        std::fill(best.begin(), best.begin() + length + 1, kNegativeInfinity);
        best[0] = 0.0;
        for (std::uint32_t k = 0; k < edges.size(); ++k) {
          const auto& e = edges[k];
          const double s = best[e.begin] + score[e.piece];
          if (s > best[e.end]) {
            best[e.end] = s;
            back[e.end] = k;
          }
        }
        for (std::uint32_t pos = length; pos > 0;) {
          const auto& e = edges[back[pos]];
          if (e.piece < n) f[e.piece] += corpus_.count[w];
          pos = e.begin;
        }
      });
    });
    std::vector<double> freq(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t v = 0;
      for (const auto& f : frequency) v += f[i];
      freq[i] = static_cast<double>(v);
    }
    return freq;
  }

  // Per piece: whether it stays a candidate at all (false when its own string
  // segments better without it) and its second-best segmentation (empty when
  // there is none, or only one through an unknown character: then it is kept).
  struct Alternatives {
    std::vector<std::uint8_t> always_keep;
    std::vector<std::vector<std::uint32_t>> pieces;
  };
  [[nodiscard]] Alternatives second_best_segmentations(const std::vector<double>& score) const {
    const std::size_t n = pieces_.size();
    std::vector<std::pair<std::string_view, std::uint32_t>> entries;
    entries.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      entries.emplace_back(pieces_[i], static_cast<std::uint32_t>(i));
    const PieceTrie trie(std::move(entries));
    Alternatives result{std::vector<std::uint8_t>(n, 1),
                        std::vector<std::vector<std::uint32_t>>(n)};
    auto& always_keep = result.always_keep;
    auto& alternatives = result.pieces;
    parallel_for((n + kChunkPieces - 1) / kChunkPieces, threads_, [&](std::size_t ci) {
      Lattice lattice;
      const std::size_t last = std::min(n, (ci + 1) * kChunkPieces);
      for (std::size_t i = ci * kChunkPieces; i < last; ++i) {
        const std::string& s = pieces_[i];
        lattice.reset(static_cast<std::uint32_t>(s.size()));
        for (std::size_t pos = 0; pos < s.size();) {
          const std::size_t clen = lead_length(static_cast<unsigned char>(s[pos]));
          bool single = false;
          trie.common_prefixes(s, pos, [&](std::size_t len, std::uint32_t id) {
            if (len == clen) single = true;
            lattice.add(static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + len), id,
                        score[id]);
          });
          if (!single)
            lattice.add(static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + clen),
                        static_cast<std::uint32_t>(n), score[n]);
          pos += clen;
        }
        lattice.finish();
        const auto nbest = nbest_paths(lattice, 2);
        if (nbest.size() < 2) continue;  // no other segmentation: keep
        if (nbest[0].edges.size() >= 2) {
          always_keep[i] = 0;  // the string is better segmented without this piece
          continue;
        }
        for (const auto k : nbest[1].edges) {
          const auto id = lattice.edges[k].id;
          if (id >= n) {
            alternatives[i].clear();  // only an unknown-character path: keep
            break;
          }
          alternatives[i].push_back(id);
        }
      }
    });
    return result;
  }

  // The required characters, the pieces without an alternative, then the
  // candidates whose removal would cost the most likelihood, up to target.
  [[nodiscard]] std::vector<std::uint8_t> pieces_to_keep(const std::vector<double>& freq,
                                                         const Alternatives& alternatives,
                                                         std::size_t target) const {
    const std::size_t n = pieces_.size();
    double sum = 0.0;
    for (const double f : freq) sum += f;
    std::vector<std::uint8_t> keep(n, 0);
    std::size_t kept = 0;
    std::vector<std::pair<double, std::uint32_t>> candidates;
    const double log_sum = std::log(sum);
    const auto words = static_cast<double>(corpus_.total);
    for (std::size_t i = 0; i < n; ++i) {
      if (required_[i] != 0) {
        keep[i] = 1;
        ++kept;
        continue;
      }
      if (freq[i] == 0.0 || alternatives.always_keep[i] == 0) continue;
      if (alternatives.pieces[i].empty()) {
        keep[i] = 1;
        ++kept;
        continue;
      }
      // Removing the piece moves its freq[i] occurrences to its alternatives.
      const double share = freq[i] / words;
      const double logprob_piece = std::log(freq[i]) - log_sum;
      const double log_sum_alt =
          std::log(sum + freq[i] * (static_cast<double>(alternatives.pieces[i].size()) - 1.0));
      double logprob_alt = 0.0;
      for (const auto a : alternatives.pieces[i])
        logprob_alt += std::log(freq[a] + freq[i]) - log_sum_alt;
      candidates.emplace_back(share * (logprob_piece - logprob_alt), static_cast<std::uint32_t>(i));
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [loss, i] : candidates) {
      if (kept >= target) break;
      keep[i] = 1;
      ++kept;
    }
    return keep;
  }

  void remove_pieces(const std::vector<std::uint8_t>& keep) {
    const std::size_t n = pieces_.size();
    std::vector<std::uint32_t> remap(n + 1, kRemoved);
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (keep[i] == 0) continue;
      remap[i] = static_cast<std::uint32_t>(m);
      if (m != i) {
        pieces_[m] = std::move(pieces_[i]);
        scores_[m] = scores_[i];
        required_[m] = required_[i];
      }
      ++m;
    }
    remap[n] = static_cast<std::uint32_t>(m);  // the unknown "piece" follows the last one
    pieces_.resize(m);
    scores_.resize(m);
    required_.resize(m);
    parallel_for(chunks_.size(), threads_, [&](std::size_t ci) {
      Chunk& chunk = chunks_[ci];
      std::uint32_t read = 0, write = 0;
      for (auto& end : chunk.word_end) {
        for (; read < end; ++read) {
          const std::uint32_t id = remap[chunk.edges[read].piece];
          if (id == kRemoved) continue;
          chunk.edges[write] = chunk.edges[read];
          chunk.edges[write].piece = id;
          ++write;
        }
        end = write;
      }
      chunk.edges.resize(write);
    });
  }

  // Required characters first (always kept), then the best scores, up to
  // piece_target; returned best score first.
  std::vector<ScoredPiece> finalize() const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < pieces_.size(); ++i)
      if (required_[i] != 0) order.push_back(i);
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < pieces_.size(); ++i)
      if (required_[i] == 0) rest.push_back(i);
    auto by_score = [&](std::size_t a, std::size_t b) {
      return scores_[a] != scores_[b] ? scores_[a] > scores_[b] : pieces_[a] < pieces_[b];
    };
    std::sort(rest.begin(), rest.end(), by_score);
    for (const auto i : rest) {
      if (order.size() >= config_.piece_target) break;
      order.push_back(i);
    }
    if (order.size() > config_.piece_target) order.resize(config_.piece_target);
    std::sort(order.begin(), order.end(), by_score);
    if (observer_ != nullptr && order.size() < config_.piece_target && config_.max_steps == 0)
      observer_->on_message("unigram: the vocabulary is smaller than requested (" +
                            std::to_string(order.size()) + " pieces instead of " +
                            std::to_string(config_.piece_target) +
                            "): EM keeps only pieces expected at least 0.5 times");
    std::vector<ScoredPiece> result;
    result.reserve(order.size());
    for (const auto i : order) result.push_back({pieces_[i], on_score_grid(scores_[i])});
    return result;
  }

  const Corpus& corpus_;
  const TrainerConfig& config_;
  TrainingObserver* observer_;
  unsigned threads_;
  double fixed_scale_;
  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  std::vector<std::uint8_t> required_;
  std::vector<Chunk> chunks_;
  std::size_t em_steps_ = 0;
  std::size_t prune_steps_ = 0;
};

}  // namespace

double on_score_grid(double score) noexcept {
  return std::round(score / kScoreGrid) * kScoreGrid;
}

double digamma(double x) noexcept {
  double result = 0.0;
  for (; x < 7.0; ++x) result -= 1.0 / x;
  x -= 0.5;
  const double xx = 1.0 / x;
  const double xx2 = xx * xx;
  const double xx4 = xx2 * xx2;
  result += std::log(x) + (1.0 / 24.0) * xx2 - (7.0 / 960.0) * xx4 + (31.0 / 8064.0) * xx4 * xx2 -
            (127.0 / 30720.0) * xx4 * xx4;
  return result;
}

bool is_valid_piece(const std::u32string& code_points) noexcept {
  int markers = 0;
  for (std::size_t i = 0; i < code_points.size(); ++i) {
    if (code_points[i] != kBoundaryMarkerCodePoint) continue;
    if ((i != 0 && i + 1 != code_points.size()) || ++markers > 1) return false;
  }
  return !code_points.empty();
}

std::vector<ScoredPiece> train_pieces(const WordCounts& counts, const TrainerConfig& config,
                                      TrainingObserver* observer) {
  if (config.shrinking_factor <= 0.0 || config.shrinking_factor >= 1.0)
    throw Error("unigram: shrinking_factor must be in (0, 1)");
  if (config.num_sub_iterations == 0) throw Error("unigram: num_sub_iterations must be at least 1");
  const Corpus corpus = load_corpus(counts);
  if (observer != nullptr && corpus.skipped > 0)
    observer->on_message("unigram: " + std::to_string(corpus.skipped) + " words longer than " +
                         std::to_string(kMaxWordChars) + " characters left out of training");
  if (observer != nullptr && corpus.scaled_by > 0)
    observer->on_message("unigram: word counts divided by 2^" + std::to_string(corpus.scaled_by) +
                         " (rounded up) so that their sums fit in 64 bits");
  const auto required = required_characters(corpus, counts, config);
  SeedVocabulary seeds = seed_from_corpus(corpus, required, config);
  if (observer != nullptr) {
    observer->on_progress("unigram seed", 1.0);
    observer->on_message("unigram: " + std::to_string(seeds.required_characters) +
                         " required characters, " + std::to_string(seeds.pieces.size()) +
                         " seed pieces");
  }
  EmTrainer trainer(corpus, config, observer);
  return trainer.run(std::move(seeds));
}

}  // namespace tokenlab::unigram
