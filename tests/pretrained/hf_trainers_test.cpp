// HF's BpeTrainer and WordPieceTrainer as train --like reproduces them. The
// first two cases are HF tokenizers' own unit tests (models/bpe/trainer.rs:
// test_train, bpe_test_max_token_length_direct_assert), expected values copied
// in; the rest follow the rules listed in hf_trainers.hpp. Byte-identity with
// HF's files on real text is tests/references/hf_trainers.sh.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/hf_trainers.hpp"

using tokenlab::HfBpeTrainerSettings;
using tokenlab::HfWordCount;
using tokenlab::train_hf_bpe;
using tokenlab::train_hf_wordpiece;
using Merges = std::vector<std::pair<std::string, std::string>>;
using Vocabulary = std::vector<std::string>;

namespace {
std::map<std::string, std::size_t> ids_of(const Vocabulary& vocabulary) {
  std::map<std::string, std::size_t> ids;
  for (std::size_t id = 0; id < vocabulary.size(); ++id) ids[vocabulary[id]] = id;
  return ids;
}
}  // namespace

TEST_CASE(
    "BpeTrainer: alphabet in code point order, then merges while a pair reaches min_frequency",
    "[pretrained][hf-trainer]") {
  const std::vector<HfWordCount> words = {{"roses", 1}, {"are", 2},  {"red", 1},  {"voilets", 1},
                                          {"blue", 1},  {"BERT", 1}, {"is", 2},   {"big", 1},
                                          {"and", 1},   {"so", 1},   {"GPT-2", 1}};
  HfBpeTrainerSettings settings;
  settings.min_frequency = 2;
  const auto result = train_hf_bpe(words, settings);
  CHECK(result.vocabulary == Vocabulary{"-", "2", "B", "E", "G",  "P",   "R", "T", "a",
                                        "b", "d", "e", "g", "i",  "l",   "n", "o", "r",
                                        "s", "t", "u", "v", "re", "are", "is"});
  // "re" (3: are x2, red) first; "are" and "is" (2 each) by smaller ids.
  CHECK(result.merges == Merges{{"r", "e"}, {"a", "re"}, {"i", "s"}});
}

TEST_CASE("BpeTrainer: max_token_length stops longer pairs from being counted, not the first ones",
          "[pretrained][hf-trainer]") {
  std::vector<HfWordCount> words;
  for (const char* w : {"sin", "Sin", "Lon", "Ano", "짧은한", "긴한글", "短字符", "长字符",
                        "短い文", "長い文", "so", "GP"})
    words.push_back({w, 2});
  HfBpeTrainerSettings settings;
  settings.max_token_length = 2;
  const auto ids = ids_of(train_hf_bpe(words, settings).vocabulary);
  const std::map<std::string, std::size_t> expected = {
      {"短", 12}, {"n", 6},     {"i", 5},     {"s", 8},   {"字符", 23}, {"長", 14},
      {"긴", 17}, {"い文", 22}, {"L", 2},     {"in", 21}, {"o", 7},     {"은한", 29},
      {"S", 4},   {"P", 3},     {"so", 27},   {"符", 13}, {"文", 11},   {"字", 10},
      {"짧", 19}, {"GP", 25},   {"글", 16},   {"G", 1},   {"An", 24},   {"长", 15},
      {"A", 0},   {"Lo", 26},   {"긴한", 28}, {"い", 9},  {"한", 20},   {"은", 18}};
  CHECK(ids == expected);
}

TEST_CASE("BpeTrainer: special tokens first, and all of them even past vocab_size",
          "[pretrained][hf-trainer]") {
  HfBpeTrainerSettings settings;
  settings.special_tokens = {"<unk>", "<s>"};
  const auto result = train_hf_bpe({{"abab", 3}}, settings);
  CHECK(result.vocabulary == Vocabulary{"<unk>", "<s>", "a", "b", "ab", "abab"});
  CHECK(result.merges == Merges{{"a", "b"}, {"ab", "ab"}});
  settings.vocab_size = 1;
  // The alphabet is laid out before the size is looked at.
  CHECK(train_hf_bpe({{"abab", 3}}, settings).vocabulary == Vocabulary{"<unk>", "<s>", "a", "b"});
  settings.special_tokens = {""};
  CHECK_THROWS_AS(train_hf_bpe({{"ab", 1}}, settings), tokenlab::Error);
}

TEST_CASE(
    "BpeTrainer: limit_alphabet keeps the most frequent characters; the others vanish from words",
    "[pretrained][hf-trainer]") {
  HfBpeTrainerSettings settings;
  settings.limit_alphabet = 2;
  settings.initial_alphabet = {U'z'};  // always kept: it counts as infinitely frequent
  const auto result = train_hf_bpe({{"abca", 5}, {"ab", 1}}, settings);
  // a: 11, b: 6, c: 5 -> z and a kept; "abca" becomes "aa", "ab" becomes "a".
  CHECK(result.vocabulary == Vocabulary{"a", "z", "aa"});
  CHECK(result.merges == Merges{{"a", "a"}});
}

TEST_CASE("BpeTrainer: an end_of_word_suffix marks last characters as symbols of their own",
          "[pretrained][hf-trainer]") {
  HfBpeTrainerSettings settings;
  settings.end_of_word_suffix = "</w>";
  const auto result = train_hf_bpe({{"low", 5}, {"lower", 2}}, settings);
  // Alphabet, then the suffixed symbols in code point order (HF: hash order).
  REQUIRE(result.vocabulary.size() >= 7);
  CHECK(Vocabulary(result.vocabulary.begin(), result.vocabulary.begin() + 7) ==
        Vocabulary{"e", "l", "o", "r", "w", "r</w>", "w</w>"});
  CHECK(result.merges.front() == std::pair<std::string, std::string>{"l", "o"});
  CHECK(ids_of(result.vocabulary).count("low</w>") == 1);
}

TEST_CASE("WordPieceTrainer: ## on every character but the first, merged tokens drop the inner ##",
          "[pretrained][hf-trainer]") {
  HfBpeTrainerSettings settings;
  const auto vocabulary = train_hf_wordpiece({{"hug", 10}, {"pug", 5}, {"hugs", 5}}, settings);
  CHECK(Vocabulary(vocabulary.begin(), vocabulary.begin() + 8) ==
        Vocabulary{"g", "h", "p", "s", "u", "##g", "##s", "##u"});
  // (##u, ##g) occurs 20 times: "##ug"; then (h, ##ug) 15: "hug"; then (p, ##ug) and
  // (hug, ##s), 5 each: the smaller ids first, (2, 8) before (9, 6).
  CHECK(Vocabulary(vocabulary.begin() + 8, vocabulary.end()) ==
        Vocabulary{"##ug", "hug", "pug", "hugs"});
}

TEST_CASE("WordPieceTrainer: symbol_order numbers the ## symbols as a given HF run did",
          "[pretrained][hf-trainer]") {
  HfBpeTrainerSettings settings;
  settings.symbol_order = [](const std::string& s) -> std::optional<std::uint32_t> {
    if (s == "##s") return 1;
    if (s == "##g") return 2;
    return std::nullopt;  // unknown ones after, in code point order
  };
  const auto vocabulary = train_hf_wordpiece({{"hug", 10}, {"hugs", 5}}, settings);
  CHECK(Vocabulary(vocabulary.begin(), vocabulary.begin() + 6) ==
        Vocabulary{"g", "h", "s", "u", "##s", "##g"});
  CHECK(vocabulary[6] == "##u");
}

TEST_CASE("BpeTrainer: words that are not UTF-8 are an error, not a crash",
          "[pretrained][hf-trainer]") {
  CHECK_THROWS_WITH(train_hf_bpe({{"ab\xff", 1}}, HfBpeTrainerSettings{}),
                    Catch::Contains("not valid UTF-8"));
}
