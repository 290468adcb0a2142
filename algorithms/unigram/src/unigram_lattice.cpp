#include "tokenlab/unigram/unigram_lattice.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include "tokenlab/error.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::unigram {

namespace {

// Edge indices grouped by end position: by_end[offset[j] .. offset[j + 1]).
void index_by_end(const Lattice& lattice, std::vector<std::uint32_t>& offset,
                  std::vector<std::uint32_t>& by_end) {
  offset.assign(lattice.length + 2, 0);
  for (const auto& e : lattice.edges) ++offset[e.end + 1];
  for (std::size_t j = 1; j < offset.size(); ++j) offset[j] += offset[j - 1];
  by_end.resize(lattice.edges.size());
  std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
  for (std::uint32_t k = 0; k < lattice.edges.size(); ++k) by_end[fill[lattice.edges[k].end]++] = k;
}

// Best score of any path from 0 to each position, with the edge that reaches it.
void viterbi_forward(const Lattice& lattice, std::vector<double>& best,
                     std::vector<std::uint32_t>& back) {
  best.assign(lattice.length + 1, kNegativeInfinity);
  back.assign(lattice.length + 1, 0);
  best[0] = 0.0;
  for (std::uint32_t k = 0; k < lattice.edges.size(); ++k) {
    const auto& e = lattice.edges[k];
    if (best[e.begin] == kNegativeInfinity) continue;
    const double s = best[e.begin] + e.score;
    if (s > best[e.end]) {
      best[e.end] = s;
      back[e.end] = k;
    }
  }
}

}  // namespace

void Lattice::finish() {
  std::sort(edges.begin(), edges.end(), [](const LatticeEdge& a, const LatticeEdge& b) {
    return std::tie(a.begin, a.end, a.id) < std::tie(b.begin, b.end, b.id);
  });
}

double viterbi(const Lattice& lattice, std::vector<std::uint32_t>& path) {
  path.clear();
  std::vector<double> best;
  std::vector<std::uint32_t> back;
  viterbi_forward(lattice, best, back);
  if (best[lattice.length] == kNegativeInfinity) return kNegativeInfinity;
  for (std::uint32_t pos = lattice.length; pos > 0;) {
    path.push_back(back[pos]);
    pos = lattice.edges[back[pos]].begin;
  }
  std::reverse(path.begin(), path.end());
  return best[lattice.length];
}

double forward_backward(const Lattice& lattice, std::vector<double>* marginals) {
  std::vector<double> alpha(lattice.length + 1, kNegativeInfinity);
  std::vector<double> beta(lattice.length + 1, kNegativeInfinity);
  alpha[0] = 0.0;
  for (const auto& e : lattice.edges)
    alpha[e.end] = log_add(alpha[e.end], alpha[e.begin] + e.score);
  const double log_z = alpha[lattice.length];
  if (marginals == nullptr) return log_z;
  marginals->assign(lattice.edges.size(), 0.0);
  if (log_z == kNegativeInfinity) return log_z;
  beta[lattice.length] = 0.0;
  for (std::size_t k = lattice.edges.size(); k-- > 0;) {
    const auto& e = lattice.edges[k];
    beta[e.begin] = log_add(beta[e.begin], beta[e.end] + e.score);
  }
  for (std::size_t k = 0; k < lattice.edges.size(); ++k) {
    const auto& e = lattice.edges[k];
    (*marginals)[k] = std::exp(alpha[e.begin] + e.score + beta[e.end] - log_z);
  }
  return log_z;
}

void sample_path(const Lattice& lattice, double alpha, std::uint64_t& rng_state,
                 std::vector<std::uint32_t>& path) {
  path.clear();
  // forward[j] = log sum over paths to j of exp(alpha * score). With a huge alpha
  // (1e307) alpha * score overflows to -inf and the word would vanish; then the
  // filter runs on forward / alpha instead, a soft maximum that never overflows:
  // soft(a, b) = max(a, b) + log1p(exp(-alpha |a - b|)) / alpha. The usual case
  // keeps the plain formula, so its samples stay exactly as they were.
  std::vector<double> forward(lattice.length + 1, kNegativeInfinity);
  forward[0] = 0.0;
  bool overflow = false;
  for (const auto& e : lattice.edges) {
    if (forward[e.begin] == kNegativeInfinity) continue;
    const double term = forward[e.begin] + alpha * e.score;
    if (!std::isfinite(term) && alpha > 1.0) overflow = true;
    forward[e.end] = log_add(forward[e.end], term);
  }
  const double scale = overflow ? alpha : 1.0;  // forward is in units of 1/scale
  const double weight = overflow ? 1.0 : alpha;
  if (overflow) {
    std::fill(forward.begin(), forward.end(), kNegativeInfinity);
    forward[0] = 0.0;
    for (const auto& e : lattice.edges) {
      if (forward[e.begin] == kNegativeInfinity) continue;
      const double term = forward[e.begin] + e.score;
      double& f = forward[e.end];
      if (f == kNegativeInfinity) {
        f = term;
      } else {
        const double high = std::max(f, term);
        f = high + std::log1p(std::exp(-alpha * std::abs(f - term))) / alpha;
      }
    }
  }
  if (forward[lattice.length] == kNegativeInfinity) return;

  std::vector<std::uint32_t> offset, by_end;
  index_by_end(lattice, offset, by_end);
  // Backward sampling: given the path continues from position j, the edge that
  // enters j is e with probability exp(forward[e.begin] + alpha score(e) - forward[j])
  // (in scaled units: exp(alpha (forward[e.begin] + score(e) - forward[j]))).
  for (std::uint32_t j = lattice.length; j > 0;) {
    const double u = next_unit(rng_state);
    double cumulative = 0.0;
    std::uint32_t chosen = 0;
    for (std::uint32_t k = offset[j]; k < offset[j + 1]; ++k) {
      const auto& e = lattice.edges[by_end[k]];
      if (forward[e.begin] == kNegativeInfinity) continue;
      chosen = by_end[k];  // rounding can leave cumulative a hair below 1: keep the last edge
      cumulative += std::exp(scale * (forward[e.begin] + weight * e.score - forward[j]));
      if (u < cumulative) break;
    }
    path.push_back(chosen);
    j = lattice.edges[chosen].begin;
  }
  std::reverse(path.begin(), path.end());
}

std::vector<LatticePath> nbest_paths(const Lattice& lattice, std::size_t k) {
  std::vector<LatticePath> result;
  k = std::min(k, kMaxNBest);
  if (k == 0) return result;
  std::vector<double> best;
  std::vector<std::uint32_t> back;
  viterbi_forward(lattice, best, back);
  if (best[lattice.length] == kNegativeInfinity) return result;
  std::vector<std::uint32_t> offset, by_end;
  index_by_end(lattice, offset, by_end);

  // A hypothesis is a suffix path from pos to the end, stored as a linked list
  // towards the end of the word.
  struct Hypothesis {
    std::uint32_t pos;
    std::uint32_t edge;
    std::int64_t parent;
    double suffix;
  };
  std::vector<Hypothesis> pool;
  using Entry = std::tuple<double, std::uint64_t, std::uint32_t>;  // priority, sequence, pool index
  // Equal priorities pop newest first: depth-first among ties reaches complete
  // paths without expanding every tied prefix.
  std::priority_queue<Entry> agenda;
  std::uint64_t sequence = 0;
  pool.push_back({lattice.length, 0, -1, 0.0});
  agenda.emplace(best[lattice.length], sequence++, 0);
  while (!agenda.empty() && result.size() < k) {
    const auto index = std::get<2>(agenda.top());
    agenda.pop();
    const Hypothesis h = pool[index];
    if (h.pos == 0) {
      LatticePath path;
      path.score = h.suffix;
      for (std::int64_t i = index; pool[static_cast<std::size_t>(i)].parent >= 0;
           i = pool[static_cast<std::size_t>(i)].parent)
        path.edges.push_back(pool[static_cast<std::size_t>(i)].edge);
      result.push_back(std::move(path));
      continue;
    }
    for (std::uint32_t m = offset[h.pos]; m < offset[h.pos + 1]; ++m) {
      const auto& e = lattice.edges[by_end[m]];
      if (best[e.begin] == kNegativeInfinity) continue;
      const double suffix = h.suffix + e.score;
      if (pool.size() >= kMaxNBestHypotheses)
        throw Error("n-best: the " + std::to_string(k) + " best segmentations of a word of " +
                    std::to_string(lattice.length) + " bytes need more than " +
                    std::to_string(kMaxNBestHypotheses) +
                    " search states; ask for fewer, or for a shorter word");
      pool.push_back({e.begin, by_end[m], static_cast<std::int64_t>(index), suffix});
      agenda.emplace(best[e.begin] + suffix, sequence++,
                     static_cast<std::uint32_t>(pool.size() - 1));
    }
  }
  return result;
}

}  // namespace tokenlab::unigram
