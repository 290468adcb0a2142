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

namespace {

// Whether tokens' token of id is left then right without its first prefix
// bytes: then find() of that concatenation is id (a token has one id).
bool spells(const TokenTable& tokens, TokenId id, std::string_view left, std::string_view right,
            std::size_t prefix) noexcept {
  const std::string* token = tokens.token(id);
  if (token == nullptr || right.size() < prefix) return false;
  const std::string_view t(*token);
  return t.size() == left.size() + right.size() - prefix && t.starts_with(left) &&
         t.substr(left.size()) == right.substr(prefix);
}

}  // namespace

std::size_t resolve_merges_into(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, std::span<MergeIds> out) {
  std::vector<std::string_view> keys;
  std::vector<TokenId> ids(2 * kBatch);
  std::vector<TokenId> merged_ids(kBatch);
  std::string merged;  // merged tokens, end to end
  const auto concatenation = [&](std::string_view a, std::string_view b) -> std::string_view {
    merged.assign(a).append(b.substr(prefix.size()));
    return merged;
  };
  // Files list the merges in the order of the tokens they make (GPT-4o's and
  // Qwen's one merge a token, Gemma's and Llama 3's several), so the merged
  // token is nearly always the last merge's or the next id: checked by
  // comparing bytes in id order rather than looked up at a cache miss. A batch
  // where that fails for more than one merge in eight looks them all up
  // together, and the next batch guesses again only if they would have done.
  bool guessing = true;
  TokenId last = TokenTable::kNotFound;
  const std::size_t p = prefix.size();
  for (std::size_t batch = 0; batch < merges.size(); batch += kBatch) {
    const std::size_t n = std::min(kBatch, merges.size() - batch);
    keys.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [a, b] = merges[batch + i];
      keys.insert(keys.end(), {a, b});
    }
    tokens.find_all(keys, std::span(ids).first(keys.size()));
    if (guessing) {
      std::size_t misses = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& [a, b] = merges[batch + i];
        if (b.size() < p) {
          merged_ids[i] = TokenTable::kNotFound;
        } else if (last != TokenTable::kNotFound && spells(tokens, last, a, b, p)) {
          merged_ids[i] = last;
        } else if (last != TokenTable::kNotFound && spells(tokens, last + 1, a, b, p)) {
          merged_ids[i] = ++last;
        } else {
          merged_ids[i] = last = tokens.find(concatenation(a, b)).value_or(TokenTable::kNotFound);
          ++misses;
        }
      }
      guessing = misses * 8 <= n;
    } else {
      std::size_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& [a, b] = merges[batch + i];
        bytes += a.size() + (b.size() < p ? 0 : b.size() - p);
      }
      merged.clear();
      merged.reserve(bytes);  // no reallocation below: the views into it stay valid
      keys.clear();
      for (std::size_t i = 0; i < n; ++i) {
        const auto& [a, b] = merges[batch + i];
        const std::size_t start = merged.size();
        if (b.size() >= p) merged.append(a).append(b.substr(p));
        keys.push_back(std::string_view(merged).substr(start));
      }
      tokens.find_all(keys, std::span(merged_ids).first(n));
      std::size_t guessable = 0;
      for (std::size_t i = 1; i < n; ++i)
        guessable += merged_ids[i] == merged_ids[i - 1] || merged_ids[i] == merged_ids[i - 1] + 1;
      guessing = (n - guessable) * 8 <= n;
      last = merged_ids[n - 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
      const TokenId left = ids[2 * i];
      const TokenId right = ids[2 * i + 1];
      if (left == TokenTable::kNotFound || right == TokenTable::kNotFound ||
          merges[batch + i].second.size() < p || merged_ids[i] == TokenTable::kNotFound)
        return batch + i;
      out[batch + i] = {left, right, merged_ids[i]};
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
