// Fairness: every built-in algorithm starts from the same base alphabet, the one
// select_alphabet chooses from the same counts.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

using namespace tokenlab;

namespace {

// Latin letters with skewed counts, then three rare Cyrillic letters seen once
// each (non-ASCII, so that WordPiece's rule of always keeping printable ASCII does
// not apply). The larger code point comes first in the corpus: a first-seen
// tie-break and select_alphabet's smaller-code-point tie-break disagree.
WordCounts skewed_counts() {
  WordCounts counts;
  counts.add("\u2581abc", 400);
  counts.add("\u2581bcd", 200);
  counts.add("\u2581cde", 100);
  counts.add("\u2581efg", 50);
  counts.add("\u2581gab", 25);
  counts.add("\u2581c\u0438", 1);
  counts.add("\u2581b\u0437", 1);
  counts.add("\u2581a\u0436", 1);
  return counts;
}

// The characters a plugin's vocabulary holds as pieces of their own (WordPiece's
// continuation forms "##x" counted as x).
std::set<char32_t> single_characters(const Segmenter& segmenter) {
  std::set<char32_t> out;
  const Vocabulary& v = segmenter.vocabulary();
  for (TokenId id = static_cast<TokenId>(v.special_count()); id < v.size(); ++id) {
    std::string_view piece = v.piece(id);
    if (piece.starts_with("##") && piece.size() > 2) piece.remove_prefix(2);
    if (utf8::sequence_length(piece, 0) == piece.size()) out.insert(utf8::decode_at(piece, 0));
  }
  return out;
}

}  // namespace

TEST_CASE("every built-in algorithm starts from the same base alphabet", "[fairness][alphabet]") {
  PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  const WordCounts counts = skewed_counts();
  // A coverage that takes exactly one of the three tied Cyrillic letters.
  const std::uint64_t all = select_alphabet(counts, 1.0).occurrences;
  const double coverage = (static_cast<double>(all - 3) + 0.5) / static_cast<double>(all);
  const Alphabet expected = select_alphabet(counts, coverage);
  REQUIRE(expected.characters.size() == 9);  // ▁ a..g and the smallest Cyrillic letter
  const std::set<char32_t> expected_set(expected.characters.begin(), expected.characters.end());
  REQUIRE(expected_set.count(U'\u0436') == 1);
  for (const std::string name : {"bpe", "unigram", "wordpiece", "character"}) {
    CAPTURE(name);
    auto segmenter = registry.create(name);
    TrainOptions options;
    options.vocab_size = 40;
    options.character_coverage = coverage;
    options.threads = 1;
    if (name == "bpe" || name == "unigram") options.extra["byte_fallback"] = "false";
    if (name == "wordpiece") options.min_frequency = 1;
    segmenter->train(counts, options, nullptr);
    const auto got = single_characters(*segmenter);
    // Every algorithm holds exactly the alphabet's characters as units of their own.
    for (const char32_t c : expected_set) {
      CAPTURE(static_cast<std::uint32_t>(c));
      CHECK(got.count(c) == 1);
    }
    for (const char32_t c : {U'\u0437', U'\u0438'}) {
      CAPTURE(static_cast<std::uint32_t>(c));
      CHECK(got.count(c) == 0);
    }
  }
}
