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

std::vector<MergeIds> resolve_merges(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, const std::string& where) {
  std::vector<MergeIds> out(merges.size());
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
        refuse(merges[batch + i], prefix.size(), found, where, batch + i);
      out[batch + i] = {found[0], found[1], found[2]};
    }
  }
  return out;
}

}  // namespace tokenlab::hf_detail
