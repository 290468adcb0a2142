#include "hf/merge_ids.hpp"

#include <algorithm>

#include "tokenlab/error.hpp"

namespace tokenlab::hf_detail {
namespace {

// Merges looked up together: enough for find_all to overlap their misses, few
// enough that the merged tokens' scratch copy stays small.
constexpr std::size_t kBatch = 256;

// The error of merge i, whose lookups (left, right, merged) gave ids.
[[noreturn]] void refuse(std::pair<std::string_view, std::string_view> merge, std::size_t prefix,
                         const TokenId* ids, const std::string& where, std::size_t i) {
  const auto [a, b] = merge;
  const std::string here = where + ".merges[" + std::to_string(i) + "]";
  if (ids[0] == TokenTable::kNotFound)
    throw Error(here + ": \"" + std::string(a) + "\" is not in the vocabulary");
  if (ids[1] == TokenTable::kNotFound)
    throw Error(here + ": \"" + std::string(b) + "\" is not in the vocabulary");
  if (b.size() < prefix)
    throw Error(here + ": \"" + std::string(b) +
                "\" is shorter than the continuing subword prefix");
  throw Error(here + ": the merged token \"" + std::string(a) + std::string(b.substr(prefix)) +
              "\" is not in the vocabulary");
}

}  // namespace

std::size_t resolve_merges_into(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, std::span<MergeIds> out) {
  std::vector<std::string_view> keys;
  std::vector<TokenId> ids(3 * kBatch);
  std::string merged;  // the batch's merged tokens, end to end
  for (std::size_t batch = 0; batch < merges.size(); batch += kBatch) {
    const std::size_t n = std::min(kBatch, merges.size() - batch);
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [a, b] = merges[batch + i];
      bytes += a.size() + (b.size() < prefix.size() ? 0 : b.size() - prefix.size());
    }
    merged.clear();
    merged.reserve(bytes);  // no reallocation below: the views into it stay valid
    keys.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [a, b] = merges[batch + i];
      const std::size_t start = merged.size();
      if (b.size() >= prefix.size()) merged.append(a).append(b.substr(prefix.size()));
      keys.insert(keys.end(), {a, b, std::string_view(merged).substr(start)});
    }
    tokens.find_all(keys, std::span(ids).first(keys.size()));
    for (std::size_t i = 0; i < n; ++i) {
      const TokenId* found = &ids[3 * i];
      if (found[0] == TokenTable::kNotFound || found[1] == TokenTable::kNotFound ||
          merges[batch + i].second.size() < prefix.size() || found[2] == TokenTable::kNotFound)
        return batch + i;
      out[batch + i] = {found[0], found[1], found[2]};
    }
  }
  return merges.size();
}

std::vector<MergeIds> resolve_merges(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, const std::string& where) {
  std::vector<MergeIds> out(merges.size());
  const std::size_t done = resolve_merges_into(tokens, merges, prefix, out);
  if (done < merges.size()) {
    // The lookups again, one merge, for the message.
    const auto& [a, b] = merges[done];
    const std::string m =
        std::string(a) + std::string(b.size() < prefix.size() ? "" : b.substr(prefix.size()));
    const TokenId found[3] = {tokens.find(a).value_or(TokenTable::kNotFound),
                              tokens.find(b).value_or(TokenTable::kNotFound),
                              tokens.find(m).value_or(TokenTable::kNotFound)};
    refuse(merges[done], prefix.size(), found, where, done);
  }
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> split_merge(std::string_view s) {
  const auto space = s.find(' ');
  if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos)
    return std::nullopt;
  return std::pair{s.substr(0, space), s.substr(space + 1)};
}

}  // namespace tokenlab::hf_detail
