// File: unigram_lattice.hpp
// The segmentation lattice of one word and the four dynamic programs a unigram
// language model runs over it: Viterbi (best path), forward-backward (marginal
// probability of every edge), forward-filtering backward-sampling (a random path
// drawn from the model's distribution) and n-best (the k best paths, best first).
//
// Positions are abstract units (the trainer uses code points, the encoder bytes):
// the lattice spans positions 0..length and every edge covers [begin, end) with
// a log-probability score. A path is a sequence of edges from 0 to length; its
// score is the sum of its edges' scores and its probability is
// exp(score) / sum over all paths of exp(score).
//
//   Lattice lattice;
//   lattice.reset(3);
//   lattice.add(0, 1, /*id=*/4, -2.0);  lattice.add(0, 2, 7, -2.5);  ...
//   lattice.finish();                       // sorts edges by (begin, end)
//   std::vector<std::uint32_t> path;        // edge indices, left to right
//   double best = viterbi(lattice, path);
//
// These functions are exposed so the tests can compare them with brute-force
// enumeration; the encoder and trainer use allocation-free variants of the same
// recurrences. Nothing here is shared between threads.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace tokenlab::unigram {

struct LatticeEdge {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t id = 0;  // piece id (opaque to the algorithms)
  double score = 0.0;    // log probability of the piece
};

struct Lattice {
  std::uint32_t length = 0;
  std::vector<LatticeEdge> edges;  // sorted by (begin, end, id) once finish() ran

  void reset(std::uint32_t positions) {
    length = positions;
    edges.clear();
  }
  void add(std::uint32_t begin, std::uint32_t end, std::uint32_t id, double score) {
    edges.push_back({begin, end, id, score});
  }
  /// Sorts edges into the order the algorithms require (stable, deterministic).
  void finish();
};

/// One complete path: edge indices into Lattice::edges, left to right.
struct LatticePath {
  std::vector<std::uint32_t> edges;
  double score = 0.0;
};

inline constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

/// log(exp(a) + exp(b)) without overflow; exact when either side is -inf.
inline double log_add(double a, double b) noexcept {
  if (a < b) std::swap(a, b);
  if (b == kNegativeInfinity) return a;
  return a + std::log1p(std::exp(b - a));
}

/// Best path; returns its score (kNegativeInfinity and an empty path if there is
/// none). Ties go to the edge that comes first in edge order.
double viterbi(const Lattice& lattice, std::vector<std::uint32_t>& path);

/// Log of the partition function Z (sum over paths of exp(score)); when marginals
/// is not null it receives, per edge, the probability that a path uses the edge.
double forward_backward(const Lattice& lattice, std::vector<double>* marginals);

/// Draws a path with probability exp(alpha * score(path)) / Z_alpha, by
/// forward filtering then sampling backwards from the end. alpha = 0 is uniform
/// over paths; large alpha approaches Viterbi. rng_state advances (SplitMix64).
void sample_path(const Lattice& lattice, double alpha, std::uint64_t& rng_state,
                 std::vector<std::uint32_t>& path);

/// The k best distinct paths, best first (equal scores in a fixed, deterministic order). A* search
/// from the end backwards with the exact Viterbi prefix scores as heuristic, so
/// each path popped complete is the next best.
std::vector<LatticePath> nbest_paths(const Lattice& lattice, std::size_t k);

// ---------------------------------------------------------------------------
// The trainer's compact form: a word's edges, positions in code points, scores
// looked up per piece. Sorted by begin.
struct CompactEdge {
  std::uint32_t piece;
  std::uint16_t begin;
  std::uint16_t end;
};

/// Forward-backward in probability space (no exp/log per edge): prob[piece] =
/// exp(score). Calls on_edge(edge_index, marginal) for every edge and returns
/// log Z, or NaN when Z fell below the range where probability space is exact
/// (very long words); the caller then uses compact_forward_backward_log.
/// alpha and beta must hold length + 1 doubles each.
template <class OnEdge>
double compact_forward_backward(std::span<const CompactEdge> edges, std::uint32_t length,
                                const double* prob, double* alpha, double* beta, OnEdge&& on_edge) {
  for (std::uint32_t i = 0; i <= length; ++i) alpha[i] = beta[i] = 0.0;
  alpha[0] = 1.0;
  // Edges sorted by begin: when the first edge leaving b is read, every edge
  // entering b (which begins before b) has been added, so alpha[b] is final.
  for (const CompactEdge& e : edges) alpha[e.end] += alpha[e.begin] * prob[e.piece];
  const double z = alpha[length];
  if (!(z > 1e-250) || !std::isfinite(z)) return std::numeric_limits<double>::quiet_NaN();
  beta[length] = 1.0;
  for (std::size_t k = edges.size(); k-- > 0;) {
    const CompactEdge& e = edges[k];
    beta[e.begin] += beta[e.end] * prob[e.piece];
  }
  const double inv_z = 1.0 / z;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const CompactEdge& e = edges[k];
    on_edge(k, alpha[e.begin] * prob[e.piece] * beta[e.end] * inv_z);
  }
  return std::log(z);
}

/// The same in log space, for words too long for probability space. score is
/// indexed by piece. Returns log Z (kNegativeInfinity when no path exists).
template <class OnEdge>
double compact_forward_backward_log(std::span<const CompactEdge> edges, std::uint32_t length,
                                    const double* score, double* alpha, double* beta,
                                    OnEdge&& on_edge) {
  for (std::uint32_t i = 0; i <= length; ++i) alpha[i] = beta[i] = kNegativeInfinity;
  alpha[0] = 0.0;
  for (const CompactEdge& e : edges)
    alpha[e.end] = log_add(alpha[e.end], alpha[e.begin] + score[e.piece]);
  const double log_z = alpha[length];
  if (log_z == kNegativeInfinity) return log_z;
  beta[length] = 0.0;
  for (std::size_t k = edges.size(); k-- > 0;) {
    const CompactEdge& e = edges[k];
    beta[e.begin] = log_add(beta[e.begin], beta[e.end] + score[e.piece]);
  }
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const CompactEdge& e = edges[k];
    on_edge(k, std::exp(alpha[e.begin] + score[e.piece] + beta[e.end] - log_z));
  }
  return log_z;
}

}  // namespace tokenlab::unigram
