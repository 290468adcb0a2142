// A tokenizer.json's merges resolved to ids (hf/merge_ids.hpp): whatever order
// the file lists them in, each merge's ids are find()'s for its left token, its
// right token and their concatenation (without the continuing prefix), and the
// first merge that names a missing token is where resolving stops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hf/merge_ids.hpp"

using tokenlab::TokenId;
using tokenlab::TokenTable;
using tokenlab::hf_detail::MergeIds;
using tokenlab::hf_detail::resolve_merges_into;
using Merge = std::pair<std::string_view, std::string_view>;

namespace {

// Every one-, two- and three-letter token over "a".."f", with and without "##"
// before it; ids in that order.
struct Letters {
  std::vector<std::string> tokens;
  TokenTable table;
  Letters() {
    std::vector<std::string> plain;
    for (char x = 'a'; x <= 'f'; ++x) plain.emplace_back(1, x);
    for (char x = 'a'; x <= 'f'; ++x)
      for (char y = 'a'; y <= 'f'; ++y) plain.push_back({x, y});
    for (char x = 'a'; x <= 'f'; ++x)
      for (char y = 'a'; y <= 'f'; ++y)
        for (char z = 'a'; z <= 'f'; ++z) plain.push_back({x, y, z});
    for (const std::string& t : plain) tokens.push_back(t);
    for (const std::string& t : plain) tokens.push_back("##" + t);
    for (TokenId id = 0; id < tokens.size(); ++id) table.insert(id, tokens[id], "test");
  }
};

// Each token's merges, as a converter writes them: every split into two tokens
// (several a token for three letters), in the order of the tokens they make.
std::vector<std::pair<std::string, std::string>> merges_in_token_order(const Letters& letters,
                                                                       const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> merges;
  for (const std::string& t : letters.tokens) {
    if (t.starts_with("##") || t.size() < 2) continue;
    for (std::size_t cut = 1; cut < t.size(); ++cut)
      merges.emplace_back(t.substr(0, cut), prefix + t.substr(cut));
  }
  return merges;
}

std::vector<MergeIds> by_find(const TokenTable& table, const std::vector<Merge>& merges,
                              std::string_view prefix) {
  std::vector<MergeIds> ids;
  for (const auto& [a, b] : merges)
    ids.push_back({*table.find(a), *table.find(b),
                   *table.find(std::string(a) + std::string(b.substr(prefix.size())))});
  return ids;
}

void check_resolved(const Letters& letters, const std::vector<Merge>& merges,
                    std::string_view prefix) {
  std::vector<MergeIds> ids(merges.size());
  REQUIRE(resolve_merges_into(letters.table, merges, prefix, ids) == merges.size());
  CHECK(ids == by_find(letters.table, merges, prefix));
}

}  // namespace

TEST_CASE("merges resolve to find()'s ids in any order", "[pretrained][tokenizer.json][merges]") {
  const Letters letters;
  for (const std::string prefix : {"", "##"}) {
    CAPTURE(prefix);
    const auto owned = merges_in_token_order(letters, prefix);
    std::vector<Merge> merges(owned.begin(), owned.end());
    check_resolved(letters, merges, prefix);  // the merged tokens in id order
    std::reverse(merges.begin(), merges.end());
    check_resolved(letters, merges, prefix);  // in reverse
    std::mt19937 random(3);
    std::shuffle(merges.begin(), merges.end(), random);
    check_resolved(letters, merges, prefix);  // at random
    // In order, then at random, then in order again: the guess is given up
    // and taken up again batch by batch.
    std::vector<Merge> mixed(owned.begin(), owned.end());
    mixed.insert(mixed.end(), merges.begin(), merges.end());
    mixed.insert(mixed.end(), owned.begin(), owned.end());
    check_resolved(letters, mixed, prefix);
  }
}

TEST_CASE("resolving stops at the first merge naming a missing token",
          "[pretrained][tokenizer.json][merges]") {
  const Letters letters;
  const auto owned = merges_in_token_order(letters, "");
  std::vector<Merge> merges(owned.begin(), owned.end());
  std::vector<MergeIds> ids(merges.size());
  for (const std::size_t at : {std::size_t{0}, std::size_t{300}, merges.size() - 1}) {
    CAPTURE(at);
    for (const Merge& bad : {Merge{"a", "x"}, Merge{"x", "a"}, Merge{"fff", "a"}}) {
      std::vector<Merge> broken = merges;
      broken[at] = bad;
      CHECK(resolve_merges_into(letters.table, broken, "", ids) == at);
    }
  }
  // A right token shorter than the prefix makes nothing.
  const std::vector<Merge> short_right{{"a", "b"}, {"a", "#"}};
  CHECK(resolve_merges_into(letters.table, short_right, "##", ids) == 0);
}
