#include "tokenlab/pretrained/rank_merges.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

using Ids = std::unordered_map<std::string_view, TokenId>;

// The base units of text: bytes, or characters.
std::vector<std::string_view> units_of(std::string_view text, bool bytes) {
  std::vector<std::string_view> units;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = bytes ? 1 : std::max<std::size_t>(1, utf8::sequence_length(text, i));
    units.push_back(text.substr(i, length));
    i += length;
  }
  return units;
}

std::uint64_t pair_key(TokenId left, TokenId right) {
  return (std::uint64_t{left} << 32) | right;
}

// BPE as tokenlab runs it: only the trained pairs merge, lowest rank first,
// leftmost on ties. nullopt when a unit is not a token.
std::optional<std::vector<TokenId>> merge_by_rules(
    std::string_view text, const ModelDescription& m, const Ids& ids,
    const std::unordered_map<std::uint64_t, std::size_t>& rules) {
  std::vector<TokenId> parts;
  for (const std::string_view unit : units_of(text, m.byte_level)) {
    const auto id = ids.find(unit);
    if (id == ids.end()) return std::nullopt;
    parts.push_back(id->second);
  }
  for (;;) {
    std::size_t best = parts.size();
    std::size_t best_rank = SIZE_MAX;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const auto rule = rules.find(pair_key(parts[i], parts[i + 1]));
      if (rule != rules.end() && rule->second < best_rank) {
        best = i;
        best_rank = rule->second;
      }
    }
    if (best == parts.size()) return parts;
    const auto& [left, right] = m.merges[best_rank];
    parts[best] = ids.at(m.pieces[left] + m.pieces[right]);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

// BPE by the rank of the merged piece (a token's id is its rank).
std::optional<std::vector<TokenId>> merge_by_ranks(std::string_view text, bool bytes,
                                                   const Ids& ids, RankRule rule) {
  if (rule == RankRule::tiktoken)
    if (const auto whole = ids.find(text); whole != ids.end())
      return std::vector<TokenId>{whole->second};
  std::vector<std::string_view> parts = units_of(text, bytes);
  for (;;) {
    std::size_t best = parts.size();
    TokenId best_rank = 0;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const std::string_view joined(parts[i].data(), parts[i].size() + parts[i + 1].size());
      const auto rank = ids.find(joined);
      if (rank != ids.end() && (best == parts.size() || rank->second < best_rank)) {
        best = i;
        best_rank = rank->second;
      }
    }
    if (best == parts.size()) break;
    parts[best] = std::string_view(parts[best].data(), parts[best].size() + parts[best + 1].size());
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  std::vector<TokenId> out;
  for (const std::string_view part : parts) {
    const auto id = ids.find(part);
    if (id == ids.end()) return std::nullopt;
    out.push_back(id->second);
  }
  return out;
}

}  // namespace

RankMergeConflicts rank_merge_conflicts(const ModelDescription& m, RankRule rule) {
  std::vector<bool> special(m.pieces.size(), false);
  for (const TokenId id : m.specials) special[id] = true;
  Ids ids;
  for (TokenId id = 0; id < m.pieces.size(); ++id)
    if (!special[id]) ids.emplace(m.pieces[id], id);
  std::unordered_map<std::uint64_t, std::size_t> rules;
  for (std::size_t rank = 0; rank < m.merges.size(); ++rank)
    rules.emplace(pair_key(m.merges[rank].first, m.merges[rank].second), rank);
  RankMergeConflicts conflicts;
  for (TokenId id = 0; id < m.pieces.size(); ++id) {
    if (special[id] || units_of(m.pieces[id], m.byte_level).size() < 2) continue;
    if (merge_by_rules(m.pieces[id], m, ids, rules) ==
        merge_by_ranks(m.pieces[id], m.byte_level, ids, rule))
      continue;
    if (conflicts.count++ == 0) conflicts.example = id;
  }
  return conflicts;
}

}  // namespace tokenlab
