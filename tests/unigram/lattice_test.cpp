// The lattice algorithms against brute-force enumeration of all segmentations.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>

#include "support.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/unigram/unigram_lattice.hpp"
#include "tokenlab/unigram/unigram_model.hpp"

using namespace tokenlab;
using namespace tokenlab::unigram;
using unigram_test::kMarker;

namespace {

UnigramSegmenter make_model(const std::map<std::string, double>& vocab) {
  UnigramSegmenter model;
  std::vector<std::pair<std::string, double>> pieces(vocab.begin(), vocab.end());
  model.set_model({"<unk>"}, pieces, false);
  return model;
}

std::vector<std::string> pieces_of(const UnigramSegmenter& model, const Lattice& lattice,
                                   const std::vector<std::uint32_t>& path) {
  std::vector<std::string> out;
  for (const auto k : path) out.push_back(model.vocabulary().piece(lattice.edges[k].id));
  return out;
}

}  // namespace

TEST_CASE("The trie finds exactly the pieces that start at a position", "[unigram][trie]") {
  const std::vector<std::string> keys = {"a",   "ab",    "abc",         "b",
                                         "bcd", kMarker, kMarker + "a", "\xC3\xA9"};
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;
  for (std::uint32_t i = 0; i < keys.size(); ++i) entries.emplace_back(keys[i], i);
  const PieceTrie trie(entries);
  const std::string text = kMarker + "abcd\xC3\xA9";
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    std::vector<std::pair<std::size_t, std::uint32_t>> found;
    trie.common_prefixes(text, pos,
                         [&](std::size_t len, std::uint32_t id) { found.emplace_back(len, id); });
    std::vector<std::pair<std::size_t, std::uint32_t>> expected;
    for (std::uint32_t i = 0; i < keys.size(); ++i)
      if (text.compare(pos, keys[i].size(), keys[i]) == 0) expected.emplace_back(keys[i].size(), i);
    std::sort(expected.begin(), expected.end());
    CAPTURE(pos);
    CHECK(found == expected);
  }
  CHECK(trie.find("abc") == 2);
  CHECK(trie.find("abcd") == PieceTrie::kNone);
  CHECK(trie.find("") == PieceTrie::kNone);

  SECTION("a node with hundreds of children uses its direct table correctly") {
    std::vector<std::string> many;
    for (int c = 1; c < 256; ++c) many.push_back(std::string(1, 'x') + static_cast<char>(c));
    std::vector<std::pair<std::string_view, std::uint32_t>> wide;
    for (std::uint32_t i = 0; i < many.size(); ++i) wide.emplace_back(many[i], i);
    const PieceTrie big(wide);
    for (std::uint32_t i = 0; i < many.size(); ++i) CHECK(big.find(many[i]) == i);
    CHECK(big.find("x") == PieceTrie::kNone);
  }
  SECTION("duplicate keys are rejected") {
    std::vector<std::pair<std::string_view, std::uint32_t>> dup = {{"a", 0}, {"a", 1}};
    CHECK_THROWS_AS(PieceTrie(dup), Error);
  }
}

TEST_CASE("Lattice dynamic programs agree with brute-force enumeration", "[unigram][lattice]") {
  const auto vocab = unigram_test::small_vocabulary();
  const UnigramSegmenter model = make_model(vocab);
  const std::string word = GENERATE(as<std::string>{}, kMarker + "lowest", kMarker + "newer",
                                    kMarker + "wider", "lowlow", "e");
  CAPTURE(word);
  const auto all = unigram_test::enumerate(word, vocab);
  REQUIRE(!all.empty());
  Lattice lattice;
  model.build_lattice(word, lattice);

  SECTION("forward-backward gives log Z and every edge's marginal") {
    std::vector<double> marginals;
    const double log_z = forward_backward(lattice, &marginals);
    const double brute_log_z = unigram_test::log_sum_exp(all);
    CHECK(log_z == Approx(brute_log_z).epsilon(1e-12));
    for (std::size_t k = 0; k < lattice.edges.size(); ++k) {
      const auto& e = lattice.edges[k];
      const std::string piece = model.vocabulary().piece(e.id);
      // Paths that use this piece at this byte offset.
      double mass = 0.0;
      for (const auto& s : all) {
        std::size_t pos = 0;
        for (const auto& p : s.pieces) {
          if (pos == e.begin && p == piece) mass += std::exp(s.score - brute_log_z);
          pos += p.size();
        }
      }
      CAPTURE(piece, e.begin);
      CHECK(marginals[k] == Approx(mass).margin(1e-12));
    }
  }

  SECTION("the trainer's probability-space and log-space kernels match forward-backward") {
    // Same lattice in compact form: positions are bytes here, pieces are ids.
    std::vector<CompactEdge> compact;
    std::vector<double> score(model.vocabulary().size(), 0.0), prob(score.size());
    for (const auto& e : lattice.edges) {
      compact.push_back(
          {e.id, static_cast<std::uint16_t>(e.begin), static_cast<std::uint16_t>(e.end)});
      score[e.id] = e.score;
    }
    for (std::size_t i = 0; i < score.size(); ++i) prob[i] = std::exp(score[i]);
    std::vector<double> reference;
    const double log_z = forward_backward(lattice, &reference);
    std::vector<double> alpha(lattice.length + 1), beta(lattice.length + 1);
    std::vector<double> linear(compact.size()), logspace(compact.size());
    const double z1 =
        compact_forward_backward(compact, lattice.length, prob.data(), alpha.data(), beta.data(),
                                 [&](std::size_t k, double m) { linear[k] = m; });
    const double z2 = compact_forward_backward_log(
        compact, lattice.length, score.data(), alpha.data(), beta.data(),
        [&](std::size_t k, double m) { logspace[k] = m; });
    CHECK(z1 == Approx(log_z).epsilon(1e-12));
    CHECK(z2 == Approx(log_z).epsilon(1e-12));
    for (std::size_t k = 0; k < compact.size(); ++k) {
      CHECK(linear[k] == Approx(reference[k]).margin(1e-12));
      CHECK(logspace[k] == Approx(reference[k]).margin(1e-12));
    }
  }

  SECTION("Viterbi finds the brute-force best segmentation") {
    std::vector<std::uint32_t> path;
    const double best = viterbi(lattice, path);
    const auto it = std::max_element(
        all.begin(), all.end(), [](const auto& a, const auto& b) { return a.score < b.score; });
    CHECK(best == Approx(it->score).epsilon(1e-12));
    CHECK(pieces_of(model, lattice, path) == it->pieces);
  }

  SECTION("n-best lists every segmentation, best first, with exact scores") {
    const auto nbest = nbest_paths(lattice, all.size() + 5);
    REQUIRE(nbest.size() == all.size());
    auto sorted = all;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.score > b.score; });
    std::set<std::vector<std::string>> seen;
    for (std::size_t i = 0; i < nbest.size(); ++i) {
      CHECK(nbest[i].score == Approx(sorted[i].score).epsilon(1e-12));
      if (i > 0) CHECK(nbest[i - 1].score >= nbest[i].score);
      seen.insert(pieces_of(model, lattice, nbest[i].edges));
    }
    std::set<std::vector<std::string>> expected;
    for (const auto& s : all) expected.insert(s.pieces);
    CHECK(seen == expected);
    const auto top3 = nbest_paths(lattice, 3);
    CHECK(top3.size() == std::min<std::size_t>(3, all.size()));
    CHECK(nbest_paths(lattice, 0).empty());
  }
}

TEST_CASE("Sampling follows the exact path distribution (chi-square, fixed seed)",
          "[unigram][sampling]") {
  const auto vocab = unigram_test::small_vocabulary();
  const UnigramSegmenter model = make_model(vocab);
  const std::string word = kMarker + "lowest";
  const auto all = unigram_test::enumerate(word, vocab);
  REQUIRE(all.size() >= 10);
  const double alpha = GENERATE(0.0, 0.5, 1.0);
  CAPTURE(alpha);
  const double log_z = unigram_test::log_sum_exp(all, alpha);
  std::map<std::vector<std::string>, double> expected;
  for (const auto& s : all) expected[s.pieces] = std::exp(alpha * s.score - log_z);

  Lattice lattice;
  model.build_lattice(word, lattice);
  std::map<std::vector<std::string>, std::size_t> observed;
  const std::size_t draws = 40000;
  std::uint64_t rng = 12345;
  std::vector<std::uint32_t> path;
  for (std::size_t i = 0; i < draws; ++i) {
    sample_path(lattice, alpha, rng, path);
    ++observed[pieces_of(model, lattice, path)];
  }
  for (const auto& [pieces, n] : observed) REQUIRE(expected.count(pieces) == 1);
  // Pool segmentations expected fewer than 5 times into one cell, as the test requires.
  double chi2 = 0.0, pooled_expected = 0.0, pooled_observed = 0.0;
  std::size_t cells = 0;
  for (const auto& [pieces, p] : expected) {
    const double e = p * static_cast<double>(draws);
    const double o = static_cast<double>(observed.count(pieces) ? observed.at(pieces) : 0);
    if (e < 5.0) {
      pooled_expected += e;
      pooled_observed += o;
      continue;
    }
    chi2 += (o - e) * (o - e) / e;
    ++cells;
  }
  if (pooled_expected > 0.0) {
    chi2 +=
        (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++cells;
  }
  const double df = static_cast<double>(cells - 1);
  // Wilson-Hilferty approximation of the 99.9% quantile of chi-square(df).
  const double z = 3.090;
  const double critical =
      df * std::pow(1.0 - 2.0 / (9.0 * df) + z * std::sqrt(2.0 / (9.0 * df)), 3.0);
  CAPTURE(chi2, df, critical);
  CHECK(chi2 < critical);
}
