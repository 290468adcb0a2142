#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "naive_reference.hpp"
#include "test_options.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"
#include "tokenlab/wordpiece/wordpiece_trainer.hpp"

using tokenlab::TrainOptions;
using tokenlab::WordCounts;
using tokenlab::wordpiece::WordPieceSegmenter;
namespace testing = tokenlab::wordpiece::testing;

namespace {

using Corpus = std::vector<std::pair<std::string, std::uint64_t>>;

const std::vector<std::string> kSpecials{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

// The textbook corpus in suffix style: the boundary marker ends each word.
Corpus textbook() {
  return {{"low\u2581", 5},
          {"lower\u2581", 2},
          {"newest\u2581", 6},
          {"widest\u2581", 3},
          {"wider\u2581", 2}};
}

WordCounts to_counts(const Corpus& corpus) {
  WordCounts counts;
  for (const auto& [word, count] : corpus) counts.add(word, count);
  return counts;
}

// Words over a small alphabet with skewed counts, so scores tie and pairs recur.
Corpus random_corpus(std::uint64_t seed, std::size_t words,
                     const std::vector<std::string>& alphabet, std::size_t max_length) {
  Corpus corpus;
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < words; ++i) {
    const std::size_t length = 1 + tokenlab::next_random(state) % max_length;
    std::string word = "\u2581";
    for (std::size_t j = 0; j < length; ++j)
      word += alphabet[tokenlab::next_random(state) % alphabet.size()];
    const std::uint64_t count =
        1 + (tokenlab::next_random(state) % 4 == 0 ? tokenlab::next_random(state) % 50 : 0);
    corpus.emplace_back(word, count);
  }
  return corpus;
}

struct Recorder : tokenlab::TrainingObserver {
  std::vector<tokenlab::TrainingStep> steps;
  std::vector<std::string> messages;
  void on_step(const tokenlab::TrainingStep& step) override { steps.push_back(step); }
  void on_message(std::string_view message) override { messages.emplace_back(message); }
  [[nodiscard]] bool trace() const override { return true; }
};

std::string save_bytes(const WordPieceSegmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

// The first merge of plain frequency-based BPE over the same initial units.
std::pair<std::string, std::string> first_frequency_merge(const Corpus& corpus) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::uint64_t> count;
  for (const auto& [word, weight] : corpus) {
    const auto chars = tokenlab::utf8::split_code_points(word);
    for (std::size_t i = 0; i + 1 < chars.size(); ++i) {
      std::pair<std::string, std::string> p{
          i == 0 ? std::string(chars[i]) : "##" + std::string(chars[i]),
          "##" + std::string(chars[i + 1])};
      if (count.find(p) == count.end()) order.push_back(p);
      count[p] += weight;
    }
  }
  auto best = order.front();
  for (const auto& p : order)
    if (count[p] > count[best]) best = p;
  return best;
}

}  // namespace

TEST_CASE("The fast trainer agrees merge for merge with the naive reference",
          "[wordpiece][train]") {
  const auto [name, corpus, vocab_size, min_frequency] =
      GENERATE(table<std::string, Corpus, std::size_t, std::uint64_t>({
          {"textbook", textbook(), 60, 0},
          {"random abc", random_corpus(1, 300, {"a", "b", "c"}, 9), 200, 0},
          {"random abcde", random_corpus(2, 500, {"a", "b", "c", "d", "e"}, 7), 300, 0},
          {"random with repeats", random_corpus(3, 400, {"a", "a", "b"}, 12), 250, 0},
          {"random multibyte",
           random_corpus(4, 300, {"\u00e9", "\u4e2d", "x", "\xF0\x9F\x98\x80"}, 6), 200, 0},
          {"min_frequency 3", random_corpus(5, 400, {"a", "b", "c", "d"}, 8), 300, 3},
          {"hash marks", Corpus{{"##tag", 4}, {"#", 3}, {"a##b", 2}, {"###", 5}, {"#x", 2}}, 60, 0},
          {"special look-alikes", Corpus{{"[UNK]", 9}, {"[CLS]x", 4}, {"UNK", 2}}, 60, 0},
      }));
  CAPTURE(name);
  const auto expected = testing::naive_train(corpus, vocab_size, min_frequency, kSpecials,
                                             testing::Criterion::likelihood);
  REQUIRE(!expected.merges.empty());

  WordPieceSegmenter segmenter;
  Recorder recorder;
  // min_frequency 0 would pick a threshold automatically; 1 is the pure algorithm.
  TrainOptions options = testing::Options(vocab_size)
                             .min_frequency(std::max<std::uint64_t>(min_frequency, 1))
                             .coverage(1.0)
                             .threads(1);
  segmenter.train(to_counts(corpus), options, &recorder);
  const auto& merges = segmenter.merges();
  REQUIRE(merges.size() == expected.merges.size());
  for (std::size_t i = 0; i < merges.size(); ++i) {
    CAPTURE(i);
    CHECK(merges[i].left == expected.merges[i].left);
    CHECK(merges[i].right == expected.merges[i].right);
    CHECK(merges[i].count == expected.merges[i].count);
    CHECK(merges[i].score == expected.merges[i].score);
  }
  std::vector<std::string> pieces(segmenter.vocabulary().pieces().begin() + 5,
                                  segmenter.vocabulary().pieces().end());
  CHECK(pieces == expected.pieces);
  CHECK(recorder.steps.size() == merges.size());
}

TEST_CASE("The textbook corpus: likelihood and frequency choose different merges",
          "[wordpiece][train][textbook]") {
  const Corpus corpus = textbook();
  const auto frequency_first = first_frequency_merge(corpus);
  // BPE's choice: e + s, count 9, the first of three pairs seen 9 times.
  CHECK(frequency_first == std::pair<std::string, std::string>{"##e", "##s"});

  WordPieceSegmenter segmenter;
  Recorder recorder;
  segmenter.train(to_counts(corpus), testing::Options(40).coverage(1.0), &recorder);
  REQUIRE(!recorder.steps.empty());

  SECTION("the first merge is w + ##i: 5 / (5 x 5) = 0.2 beats e + s: 9 / (19 x 9)") {
    const auto& first = recorder.steps.front();
    CHECK(first.kind == "merge");
    CHECK(first.index == 1);
    REQUIRE(first.fields.size() == 4);
    CHECK(first.fields[0] == std::pair<std::string, std::string>{"pair", "w + ##i"});
    CHECK(first.fields[1] == std::pair<std::string, std::string>{"score", "0.2"});
    CHECK(first.fields[2] == std::pair<std::string, std::string>{"count", "5"});
    // 5 specials + 11 characters in two forms each + 3 glued marker units
    // (##t</w>, ##w</w>, ##r</w>) + the new piece.
    CHECK(first.fields[3] == std::pair<std::string, std::string>{"vocabulary", "31"});
    CHECK(segmenter.merges().front().left + " + " + segmenter.merges().front().right !=
          frequency_first.first + " + " + frequency_first.second);
  }

  SECTION("the whole vocabularies differ from BPE's") {
    const auto likelihood =
        testing::naive_train(corpus, 40, 0, kSpecials, testing::Criterion::likelihood);
    const auto frequency =
        testing::naive_train(corpus, 40, 0, kSpecials, testing::Criterion::frequency);
    CHECK(likelihood.pieces != frequency.pieces);
    CHECK(frequency.merges.front().left == "##e");
    std::vector<std::string> pieces(segmenter.vocabulary().pieces().begin() + 5,
                                    segmenter.vocabulary().pieces().end());
    CHECK(pieces == likelihood.pieces);
  }
}

TEST_CASE("Training gives identical bytes whatever the thread count",
          "[wordpiece][train][determinism]") {
  // More words than one counting chunk, so several chunks really run in parallel.
  const Corpus corpus =
      random_corpus(42, 20000, {"a", "b", "c", "d", "e", "f", "g", "\u00fc", "\u2581"}, 10);
  const WordCounts counts = to_counts(corpus);
  std::string reference;
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    CAPTURE(threads);
    WordPieceSegmenter segmenter;
    segmenter.train(counts, testing::Options(600).threads(threads), nullptr);
    const std::string bytes = save_bytes(segmenter);
    if (reference.empty()) reference = bytes;
    CHECK(bytes == reference);
  }
}

TEST_CASE("The vocabulary holds specials, then the alphabet, then merges", "[wordpiece][train]") {
  WordPieceSegmenter segmenter;
  segmenter.train(to_counts(textbook()), testing::Options(30), nullptr);
  const auto& vocabulary = segmenter.vocabulary();
  CHECK(vocabulary.size() == 30);
  CHECK(vocabulary.special_count() == 5);
  REQUIRE(vocabulary.unknown_id().has_value());
  CHECK(vocabulary.piece(*vocabulary.unknown_id()) == "[UNK]");
  CHECK(segmenter.unknown_id() == vocabulary.unknown_id());
  // The alphabet is ordered by frequency: e (19 occurrences) before the marker (18).
  CHECK(vocabulary.piece(5) == "e");
  CHECK(vocabulary.piece(6) == "##e");

  SECTION("custom special tokens: <unk> becomes the unknown token") {
    WordPieceSegmenter custom;
    custom.train(to_counts(textbook()), testing::Options(30).specials({"<pad>", "<unk>"}), nullptr);
    CHECK(custom.vocabulary().special_count() == 2);
    CHECK(custom.vocabulary().unknown_id() == tokenlab::TokenId{1});
  }
  SECTION("special tokens without an unknown token get [UNK] first, as every trainer does") {
    WordPieceSegmenter custom;
    Recorder recorder;
    custom.train(to_counts(textbook()), testing::Options(30).specials({"<s>"}), &recorder);
    CHECK(custom.vocabulary().piece(0) == "[UNK]");
    CHECK(custom.vocabulary().piece(1) == "<s>");
    CHECK(custom.vocabulary().unknown_id() == tokenlab::TokenId{0});
    CHECK(!recorder.messages.empty());
  }
  SECTION("the vocabulary must have room beyond the special tokens") {
    WordPieceSegmenter custom;
    CHECK_THROWS_WITH(custom.train(to_counts(textbook()), testing::Options(5), nullptr),
                      "wordpiece: vocabulary size 5 is too small: the 5 special tokens need it to "
                      "be at least 6");
  }
}

TEST_CASE("Training stops when no pair reaches min_frequency", "[wordpiece][train]") {
  WordPieceSegmenter segmenter;
  Recorder recorder;
  segmenter.train(to_counts(textbook()), testing::Options(1000).min_frequency(7), &recorder);
  for (const auto& m : segmenter.merges()) CHECK(m.count >= 7);
  CHECK(segmenter.vocabulary().size() < 1000);
  CHECK(!recorder.messages.empty());
}

TEST_CASE("Character coverage drops rare characters and the words holding them",
          "[wordpiece][train]") {
  Corpus corpus = random_corpus(9, 500, {"a", "b", "c"}, 6);
  corpus.emplace_back("\u2581\u0436", 1);  // a lone Cyrillic zhe
  corpus.emplace_back("\u2581~", 1);       // a lone tilde
  WordPieceSegmenter segmenter;
  segmenter.train(to_counts(corpus), testing::Options(100).coverage(0.999), nullptr);
  CHECK_FALSE(segmenter.vocabulary().contains("\u0436"));
  CHECK_FALSE(segmenter.vocabulary().contains("##\u0436"));
  std::vector<tokenlab::TokenId> ids;
  segmenter.encode("\u2581\u0436", ids);
  CHECK(ids == std::vector<tokenlab::TokenId>{*segmenter.unknown_id()});
  SECTION("but never a printable ASCII character the corpus has") {
    CHECK(segmenter.vocabulary().contains("~"));
    CHECK(segmenter.vocabulary().contains("##~"));
    ids.clear();
    segmenter.encode("\u2581a~", ids);
    CHECK(std::find(ids.begin(), ids.end(), *segmenter.unknown_id()) == ids.end());
  }
}

TEST_CASE("Bad options are rejected with a clear message", "[wordpiece][options]") {
  const WordCounts counts = to_counts(textbook());
  WordPieceSegmenter segmenter;
  TrainOptions options = testing::Options(40);

  SECTION("an unknown key lists the valid ones") {
    options.extra["max_chars"] = "5";
    try {
      segmenter.train(counts, options, nullptr);
      FAIL("no error");
    } catch (const tokenlab::Error& e) {
      const std::string message = e.what();
      CHECK_THAT(message, Catch::Contains("max_chars"));
      CHECK_THAT(message, Catch::Contains("continuation_prefix"));
      CHECK_THAT(message, Catch::Contains("max_input_chars_per_word"));
    }
  }
  SECTION("bad values") {
    const auto [key, value] = GENERATE(table<std::string, std::string>({
        {"continuation_prefix", ""},
        {"continuation_prefix", "# #"},
        {"continuation_prefix", "\xff"},
        {"max_input_chars_per_word", "0"},
        {"max_input_chars_per_word", "ten"},
        {"max_input_chars_per_word", "-3"},
    }));
    CAPTURE(key, value);
    options.extra[key] = value;
    CHECK_THROWS_AS(segmenter.train(counts, options, nullptr), tokenlab::Error);
  }
  SECTION("bad common options") {
    SECTION("coverage 0") {
      options.character_coverage = 0.0;
    }
    SECTION("coverage above 1") {
      options.character_coverage = 1.5;
    }
    SECTION("vocabulary smaller than the specials") {
      options.vocab_size = 3;
    }
    SECTION("duplicate specials") {
      options.special_tokens = std::vector<std::string>{"[UNK]", "[UNK]"};
    }
    SECTION("empty special") {
      options.special_tokens = std::vector<std::string>{"[UNK]", ""};
    }
    CHECK_THROWS_AS(segmenter.train(counts, options, nullptr), tokenlab::Error);
  }
  SECTION("a failed training keeps the previous model") {
    segmenter.train(counts, options, nullptr);
    const std::string before = save_bytes(segmenter);
    options.extra["continuation_prefix"] = "";
    CHECK_THROWS_AS(segmenter.train(counts, options, nullptr), tokenlab::Error);
    CHECK(save_bytes(segmenter) == before);
  }
}

TEST_CASE("A custom continuation prefix is used throughout", "[wordpiece][train]") {
  WordPieceSegmenter segmenter;
  TrainOptions options = testing::Options(40).coverage(1.0);
  options.extra["continuation_prefix"] = "@@";
  segmenter.train(to_counts(textbook()), options, nullptr);
  CHECK(segmenter.continuation_prefix() == "@@");
  CHECK(segmenter.vocabulary().contains("@@e"));
  CHECK_FALSE(segmenter.vocabulary().contains("##e"));
  const auto expected =
      testing::naive_train(textbook(), 40, 0, kSpecials, testing::Criterion::likelihood, "@@");
  std::vector<std::string> pieces(segmenter.vocabulary().pieces().begin() + 5,
                                  segmenter.vocabulary().pieces().end());
  CHECK(pieces == expected.pieces);
  std::vector<tokenlab::TokenId> ids;
  segmenter.encode("lowest\u2581", ids);
  CHECK(segmenter.decode(ids) == "lowest\u2581");
}

TEST_CASE("Training on an empty corpus gives the specials only", "[wordpiece][train]") {
  WordPieceSegmenter segmenter;
  segmenter.train(WordCounts{}, testing::Options(100), nullptr);
  CHECK(segmenter.vocabulary().size() == 5);
  std::vector<tokenlab::TokenId> ids;
  segmenter.encode("abc", ids);
  CHECK(ids == std::vector<tokenlab::TokenId>{1});
}

TEST_CASE("The vocabulary never exceeds vocab_size, even when the alphabet does not fit",
          "[wordpiece][train]") {
  // 40 characters, so 80 alphabet forms: more than the budget below.
  std::vector<std::string> alphabet;
  for (char32_t c = 0x4E00; c < 0x4E00 + 40; ++c) {
    std::string s;
    tokenlab::utf8::append(s, c);
    alphabet.push_back(s);
  }
  const Corpus corpus = random_corpus(11, 400, alphabet, 4);
  const std::size_t vocab_size = GENERATE(6, 7, 30, 60, 90);
  CAPTURE(vocab_size);
  WordPieceSegmenter segmenter;
  segmenter.train(to_counts(corpus), testing::Options(vocab_size).coverage(1.0), nullptr);
  CHECK(segmenter.vocabulary().size() <= vocab_size);
  // Words whose forms were all kept still round-trip; the others are unknown.
  std::size_t known = 0;
  for (const auto& [word, count] : corpus) {
    std::vector<tokenlab::TokenId> ids;
    segmenter.encode(word, ids);
    if (ids == std::vector<tokenlab::TokenId>{*segmenter.unknown_id()}) continue;
    ++known;
    CHECK(segmenter.decode(ids) == word);
  }
  if (vocab_size >= 60) CHECK(known > 0);
}

namespace {

std::vector<std::string> pieces_of(const WordPieceSegmenter& s, std::string_view word) {
  std::vector<tokenlab::TokenId> ids;
  s.encode(word, ids);
  std::vector<std::string> pieces;
  for (const auto id : ids) pieces.push_back(s.vocabulary().piece(id));
  return pieces;
}

// The size of specials + alphabet + glued units: training to it makes no merge.
std::size_t base_size(const Corpus& corpus) {
  return kSpecials.size() +
         testing::naive_train(corpus, 1000000, 0, kSpecials, testing::Criterion::likelihood)
             .initial_pieces;
}

}  // namespace

TEST_CASE("The boundary marker is glued to its neighbour in the initial segmentation",
          "[wordpiece][train][marker]") {
  SECTION("prefix style: the marker starts the first unit") {
    const Corpus corpus{{"\u2581the", 10}, {"\u2581then", 3}, {"\u2581a", 4}, {"\u2581", 2}};
    const std::size_t base = 5 + 2 * 6 + 2;  // specials, 6 characters, ▁t and ▁a
    CHECK(base_size(corpus) == base);
    WordPieceSegmenter s;
    s.train(to_counts(corpus), testing::Options(base).coverage(1.0), nullptr);
    CHECK(s.merges().empty());
    CHECK(s.vocabulary().piece(static_cast<tokenlab::TokenId>(base - 2)) == "\u2581t");
    CHECK(s.vocabulary().piece(static_cast<tokenlab::TokenId>(base - 1)) == "\u2581a");
    CHECK(pieces_of(s, "\u2581the") == std::vector<std::string>{"\u2581t", "##h", "##e"});
    CHECK(pieces_of(s, "\u2581a") == std::vector<std::string>{"\u2581a"});
    // A word that is only the marker stays the marker.
    CHECK(pieces_of(s, "\u2581") == std::vector<std::string>{"\u2581"});
    // No glued unit for a start never seen: the marker's own form takes over.
    CHECK(pieces_of(s, "\u2581hen") == std::vector<std::string>{"\u2581", "##h", "##e", "##n"});
    for (const char* w : {"\u2581the", "\u2581hen", "\u2581", "\u2581\u2581a"}) {
      std::vector<tokenlab::TokenId> ids;
      s.encode(w, ids);
      CHECK(s.decode(ids) == w);
    }
  }
  SECTION("suffix style: the marker ends the last unit") {
    const Corpus corpus{{"the\u2581", 10}, {"a\u2581", 4}, {"he\u2581", 1}};
    WordPieceSegmenter s;
    s.train(to_counts(corpus), testing::Options(base_size(corpus)).coverage(1.0), nullptr);
    CHECK(s.merges().empty());
    CHECK(s.vocabulary().contains("##e\u2581"));
    CHECK(s.vocabulary().contains("a\u2581"));  // a one-letter word: the initial form
    CHECK(pieces_of(s, "the\u2581") == std::vector<std::string>{"t", "##h", "##e\u2581"});
    CHECK(pieces_of(s, "a\u2581") == std::vector<std::string>{"a\u2581"});
    CHECK(pieces_of(s, "ta\u2581") == std::vector<std::string>{"t", "##a", "##\u2581"});
  }
  SECTION("on English-like text the marker merges into whole words") {
    // The motivating case: with a separate ▁ unit, count(▁) is the number of
    // words, every pair with it scores low, and ▁the stays ▁ ##t ##h ##e.
    Corpus corpus;
    for (const auto& [w, n] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"the", 500}, {"then", 40}, {"other", 60}, {"they", 80}, {"at", 90}, {"tea", 20}})
      corpus.emplace_back("\u2581" + w, n);
    WordPieceSegmenter s;
    s.train(to_counts(corpus), testing::Options(60).coverage(1.0), nullptr);
    CHECK(pieces_of(s, "\u2581the") == std::vector<std::string>{"\u2581the"});
  }
  SECTION("glued units are the first thing given up when vocab_size is tight") {
    const Corpus corpus{{"\u2581ab", 5}, {"\u2581ba", 3}, {"\u2581c", 1}};
    // 5 specials + 4 characters in two forms + room for one glued unit.
    WordPieceSegmenter s;
    s.train(to_counts(corpus), testing::Options(14).coverage(1.0), nullptr);
    CHECK(s.vocabulary().size() == 14);
    CHECK(s.vocabulary().piece(13) == "\u2581a");
    CHECK_FALSE(s.vocabulary().contains("\u2581b"));
    CHECK(pieces_of(s, "\u2581ba") == std::vector<std::string>{"\u2581", "##b", "##a"});
    const auto expected =
        testing::naive_train(corpus, 14, 0, kSpecials, testing::Criterion::likelihood);
    std::vector<std::string> pieces(s.vocabulary().pieces().begin() + 5,
                                    s.vocabulary().pieces().end());
    CHECK(pieces == expected.pieces);
  }
}

TEST_CASE("max_steps stops training after that many merges", "[wordpiece][train][max_steps]") {
  const WordCounts counts = to_counts(textbook());
  TrainOptions options = testing::Options(std::size_t{1} << 30).coverage(1.0).threads(1);
  const auto full =
      testing::naive_train(textbook(), 1000, 0, kSpecials, testing::Criterion::likelihood);
  REQUIRE(full.merges.size() > 8);

  SECTION("a limit below what the data supports") {
    options.max_steps = GENERATE(1, 3, 8);
    CAPTURE(options.max_steps);
    WordPieceSegmenter s;
    Recorder recorder;
    s.train(counts, options, &recorder);
    REQUIRE(s.merges().size() == options.max_steps);
    CHECK(recorder.steps.size() == options.max_steps);
    for (std::size_t i = 0; i < options.max_steps; ++i) {
      CHECK(s.merges()[i].left == full.merges[i].left);
      CHECK(s.merges()[i].right == full.merges[i].right);
    }
    CHECK(std::any_of(recorder.messages.begin(), recorder.messages.end(), [](const std::string& m) {
      return m.find("max_steps") != std::string::npos;
    }));
  }
  SECTION("a limit above it: training stops when no pair is left") {
    options.max_steps = 10000;
    WordPieceSegmenter s;
    s.train(counts, options, nullptr);
    CHECK(s.merges().size() == full.merges.size());
  }
  SECTION("vocab_size still bounds the vocabulary") {
    options.max_steps = 8;
    options.vocab_size = 32;
    WordPieceSegmenter s;
    s.train(counts, options, nullptr);
    CHECK(s.vocabulary().size() == 32);
    CHECK(s.merges().size() < 8);
  }
}

TEST_CASE("min_frequency 0 picks the largest threshold that still reaches the target",
          "[wordpiece][train][min_frequency]") {
  using tokenlab::wordpiece::train_likelihood;
  using tokenlab::wordpiece::TrainerConfig;
  const Corpus corpus = random_corpus(7, 3000, {"a", "b", "c", "d", "e", "f", "g", "h"}, 8);
  const WordCounts counts = to_counts(corpus);
  std::uint64_t occurrences = 0;
  for (const auto& [word, count] : corpus) occurrences += count;
  TrainerConfig config;
  config.vocab_size = 300;
  config.character_coverage = 1.0;
  config.special_tokens = kSpecials;
  Recorder recorder;
  const auto automatic = train_likelihood(counts, config, &recorder);
  const std::uint64_t chosen = automatic.min_frequency;
  CAPTURE(chosen, occurrences);
  CHECK(automatic.reached_target);
  CHECK(chosen > 1);
  CHECK(chosen <= occurrences / config.vocab_size);
  for (const auto& m : automatic.merges) CHECK(m.count >= chosen);
  REQUIRE(!recorder.messages.empty());
  CHECK_THAT(recorder.messages.back(),
             Catch::Contains("min_frequency 0 (automatic): " + std::to_string(chosen)));

  SECTION("it is exactly training with that min_frequency") {
    TrainerConfig fixed = config;
    fixed.min_frequency = chosen;
    const auto explicit_result = train_likelihood(counts, fixed, nullptr);
    CHECK(explicit_result.pieces == automatic.pieces);
    CHECK(explicit_result.merges.size() == automatic.merges.size());
  }
  SECTION("a threshold at most 1/16 higher no longer reaches the target") {
    bool some_fails = false;
    for (std::uint64_t t = chosen + 1; t <= chosen + std::max<std::uint64_t>(1, chosen / 16); ++t) {
      TrainerConfig higher = config;
      higher.min_frequency = t;
      some_fails = some_fails || !train_likelihood(counts, higher, nullptr).reached_target;
    }
    CHECK(some_fails);
  }
  SECTION("it beats the pure algorithm on tokens per word") {
    WordPieceSegmenter automatic_model;
    WordPieceSegmenter pure_model;
    automatic_model.train(counts, testing::Options(300).coverage(1.0), nullptr);
    pure_model.train(counts, testing::Options(300).coverage(1.0).min_frequency(1), nullptr);
    std::uint64_t automatic_tokens = 0;
    std::uint64_t pure_tokens = 0;
    for (const auto& [word, count] : corpus) {
      automatic_tokens += count * pieces_of(automatic_model, word).size();
      pure_tokens += count * pieces_of(pure_model, word).size();
    }
    CHECK(automatic_tokens < pure_tokens);
  }
  SECTION("a corpus with fewer than 2 words per vocabulary entry gets the pure algorithm") {
    TrainerConfig small = config;
    small.vocab_size = 60;
    Recorder r;
    const auto result = train_likelihood(to_counts(textbook()), small, &r);
    CHECK(result.min_frequency == 1);
    TrainerConfig pure = small;
    pure.min_frequency = 1;
    CHECK(train_likelihood(to_counts(textbook()), pure, nullptr).pieces == result.pieces);
    REQUIRE(!r.messages.empty());
    CHECK_THAT(r.messages.back(), Catch::Contains("min_frequency 0 (automatic): 1"));
  }
}

TEST_CASE("A large vocabulary holds every printable ASCII character, seen or not",
          "[wordpiece][train]") {
  // Letters and a space only: no digits, no "~", no "@".
  Corpus corpus = random_corpus(11, 300, {"a", "b", "c", "d"}, 6);
  WordPieceSegmenter segmenter;
  SECTION("at 8,000 entries the 2 forms of each missing character cost under 5%") {
    segmenter.train(to_counts(corpus), testing::Options(8000).coverage(1.0), nullptr);
    for (char c = 0x21; c <= 0x7E; ++c) {
      CAPTURE(c);
      CHECK(segmenter.vocabulary().contains(std::string(1, c)));
      CHECK(segmenter.vocabulary().contains("##" + std::string(1, c)));
    }
    std::vector<tokenlab::TokenId> ids;
    segmenter.encode("\u2581a~b@9", ids);
    CHECK(std::find(ids.begin(), ids.end(), *segmenter.unknown_id()) == ids.end());
  }
  SECTION("a small vocabulary keeps only what it saw") {
    segmenter.train(to_counts(corpus), testing::Options(100).coverage(1.0), nullptr);
    CHECK_FALSE(segmenter.vocabulary().contains("~"));
  }
}
