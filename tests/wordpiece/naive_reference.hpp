// A deliberately simple WordPiece trainer for cross-checking the fast one: every
// step recounts every unit and every pair from scratch with std::map, scores
// all pairs, merges the best one everywhere. Quadratic, obviously correct.
//
// It follows the same published rules as the fast trainer (see wordpiece_trainer.hpp):
// continuation units carry the prefix from the start; ties go to the pair that
// appeared first (a pair keeps the rank it got the first time a scan met it,
// scanning words in order, left to right); a merge whose string exists already
// adds no piece; no merge may make a special token or an initial piece that
// starts with the prefix. Coverage is 1 (every character kept). The boundary
// marker is glued to its neighbour ("▁the" -> ▁t ##h ##e, "the▁" -> t ##h ##e▁),
// and those glued units follow the alphabet, most frequent first, while they fit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/utf8.hpp"

namespace tokenlab::wordpiece::testing {

enum class Criterion { likelihood, frequency };

struct NaiveMerge {
  std::string left;
  std::string right;
  std::uint64_t count = 0;
  double score = 0.0;
};

struct NaiveResult {
  std::vector<std::string> pieces;  // ordinary pieces, specials excluded
  std::size_t initial_pieces = 0;   // how many of them come before the merges
  std::vector<NaiveMerge> merges;
};

inline NaiveResult naive_train(const std::vector<std::pair<std::string, std::uint64_t>>& corpus,
                               std::size_t vocab_size, std::uint64_t min_frequency,
                               const std::vector<std::string>& specials, Criterion criterion,
                               const std::string& prefix = "##") {
  using Pair = std::pair<std::string, std::string>;
  const std::string marker = "\u2581";
  std::vector<std::vector<std::string>> spellings;  // characters of each word
  std::vector<std::uint64_t> weights;
  // Alphabet: characters by total count, descending, ties by first appearance.
  std::vector<std::string> chars;
  std::map<std::string, std::uint64_t> char_count;
  // Glued units, the same way.
  std::vector<std::string> glued;
  std::map<std::string, std::uint64_t> glued_count;
  std::set<std::string> glued_continuation;  // suffix-glued units after the first character
  // The glued units a word would start or end with ("" = none).
  const auto glue_of = [&](const std::vector<std::string>& c) {
    const std::size_t n = c.size();
    const bool front = n >= 2 && c[0] == marker;
    const bool back = n >= 2 && c[n - 1] == marker && !(front && n < 4);
    return std::pair<std::string, std::string>{
        front ? marker + c[1] : "", back ? (n == 2 ? "" : prefix) + c[n - 2] + marker : ""};
  };
  for (const auto& [word, count] : corpus) {
    if (word.empty() || count == 0) continue;
    std::vector<std::string> spelling;
    for (auto c : utf8::split_code_points(word)) {
      std::string ch(c);
      if (char_count.find(ch) == char_count.end()) chars.push_back(ch);
      char_count[ch] += count;
      spelling.push_back(ch);
    }
    const auto [front, back] = glue_of(spelling);
    if (!back.empty() && spelling.size() > 2) glued_continuation.insert(back);
    for (const auto& g : {front, back}) {
      if (g.empty()) continue;
      if (glued_count.find(g) == glued_count.end()) glued.push_back(g);
      glued_count[g] += count;
    }
    spellings.push_back(spelling);
    weights.push_back(count);
  }
  std::stable_sort(chars.begin(), chars.end(), [&](const std::string& x, const std::string& y) {
    return char_count[x] > char_count[y];
  });
  std::stable_sort(glued.begin(), glued.end(), [&](const std::string& x, const std::string& y) {
    return glued_count[x] > glued_count[y];
  });
  NaiveResult result;
  std::set<std::string> vocabulary(specials.begin(), specials.end());
  for (const auto& ch : chars) {
    result.pieces.push_back(ch);
    result.pieces.push_back(prefix + ch);
  }
  std::size_t size = specials.size() + result.pieces.size();
  std::set<std::string> kept_glued;
  for (const auto& g : glued) {
    if (size >= vocab_size) break;
    const bool mimics = glued_continuation.count(g) == 0 && g.rfind(prefix, 0) == 0;
    if (mimics || std::find(specials.begin(), specials.end(), g) != specials.end()) continue;
    kept_glued.insert(g);
    result.pieces.push_back(g);
    ++size;
  }
  vocabulary.insert(result.pieces.begin(), result.pieces.end());
  result.initial_pieces = result.pieces.size();

  std::vector<std::vector<std::string>> words;
  for (const auto& c : spellings) {
    const auto [front, back] = glue_of(c);
    std::vector<std::string> units;
    std::size_t i = 0;
    if (kept_glued.count(front) != 0) {
      units.push_back(front);
      i = 2;
    }
    for (; i < c.size(); ++i) {
      if (i + 2 == c.size() && kept_glued.count(back) != 0) {
        units.push_back(back);
        break;
      }
      units.push_back(i == 0 ? c[i] : prefix + c[i]);
    }
    words.push_back(units);
  }

  std::map<Pair, std::size_t> rank;
  const std::uint64_t threshold = std::max<std::uint64_t>(min_frequency, 1);
  while (size < vocab_size) {
    std::map<std::string, std::uint64_t> unit_count;
    std::map<Pair, std::uint64_t> pair_count;
    for (std::size_t w = 0; w < words.size(); ++w) {
      for (std::size_t i = 0; i < words[w].size(); ++i) {
        unit_count[words[w][i]] += weights[w];
        if (i + 1 == words[w].size()) continue;
        const Pair p{words[w][i], words[w][i + 1]};
        pair_count[p] += weights[w];
        if (rank.find(p) == rank.end()) rank.emplace(p, rank.size());
      }
    }
    const Pair* best = nullptr;
    double best_score = 0;
    std::string best_text;
    for (const auto& [p, count] : pair_count) {
      if (count < threshold) continue;
      const std::string text = p.first + p.second.substr(prefix.size());
      const bool initial = p.first.rfind(prefix, 0) != 0;
      if ((initial && text.rfind(prefix, 0) == 0) ||
          std::find(specials.begin(), specials.end(), text) != specials.end())
        continue;
      const double score =
          criterion == Criterion::likelihood
              ? static_cast<double>(count) / (static_cast<double>(unit_count[p.first]) *
                                              static_cast<double>(unit_count[p.second]))
              : static_cast<double>(count);
      if (best == nullptr || score > best_score || (score == best_score && rank[p] < rank[*best])) {
        best = &p;
        best_score = score;
        best_text = text;
      }
    }
    if (best == nullptr) break;
    result.merges.push_back({best->first, best->second, pair_count[*best], best_score});
    if (vocabulary.insert(best_text).second) {
      result.pieces.push_back(best_text);
      ++size;
    }
    for (auto& units : words) {
      std::vector<std::string> out;
      for (std::size_t i = 0; i < units.size();) {
        if (i + 1 < units.size() && units[i] == best->first && units[i + 1] == best->second) {
          out.push_back(best_text);
          i += 2;
        } else {
          out.push_back(units[i++]);
        }
      }
      units = std::move(out);
    }
  }
  return result;
}

}  // namespace tokenlab::wordpiece::testing
