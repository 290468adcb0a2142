// What each language gets from a vocabulary (vocabulary_allocation.hpp), on a
// BPE of seven entries whose every figure is worked out by hand below, and the
// engine's run without entries (InferenceEngine::encode_without) that it rests on.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/vocabulary_allocation.hpp"

using namespace tokenlab;

namespace {

// The units are the whitespace words of the text; the model's own ids are the
// engine's, so nothing differs.
class WordSubject final : public InferenceSubject {
 public:
  explicit WordSubject(InferenceVocabulary v, InferenceMethod own = InferenceMethod::merges)
      : engine_(std::move(v)), own_(own) {}
  void for_each_unit(std::string_view text,
                     const std::function<void(std::string_view, std::span<const TokenId>, bool)>&
                         fn) const override {
    while (!text.empty()) {
      const std::size_t space = std::min(text.find(' '), text.size());
      if (space > 0) {
        std::vector<TokenId> own;
        engine_.encode(own_, text.substr(0, space), own);
        fn(text.substr(0, space), own, false);
      }
      text.remove_prefix(std::min(space + 1, text.size()));
    }
  }
  [[nodiscard]] const InferenceEngine& engine() const override { return engine_; }
  [[nodiscard]] std::optional<InferenceMethod> own_method() const override { return std::nullopt; }

 private:
  InferenceEngine engine_;
  InferenceMethod own_;
};

// a b c (the alphabet: no byte pieces, so never removable), then the merges
// a+b -> ab, ab+c -> abc, c+c -> cc, and bc, which no merge makes.
InferenceVocabulary tiny_bpe() {
  InferenceVocabulary v;
  v.pieces = {"a", "b", "c", "ab", "abc", "cc", "bc"};
  v.merges = {{0, 1}, {3, 2}, {2, 2}};
  return v;
}

// Language x: "abc abc ab" (3 tokens); language y: "cc abc" (2 tokens).
AllocationInput two_languages() {
  AllocationInput input;
  input.languages = {"x", "y"};
  input.texts = {{"abc abc", "ab"}, {"cc abc"}};
  input.threads = 1;
  return input;
}

const AllocationEntry& entry(const VocabularyAllocation& a, TokenId id) {
  for (const auto& e : a.entries)
    if (e.id == id) return e;
  FAIL("no entry " << id);
  return a.entries.front();
}

}  // namespace

TEST_CASE("merges without an entry: the merge that makes it and every later one that needs it",
          "[study][allocation]") {
  const InferenceEngine engine(tiny_bpe());
  std::vector<TokenId> ids, made;
  engine.encode_without(InferenceMethod::merges, "abc", {}, ids, &made);
  CHECK(ids == std::vector<TokenId>{4});
  CHECK(made == std::vector<TokenId>{0, 1, 2, 3, 4});  // a b c, then ab, then abc
  std::vector<std::uint8_t> off(7, 0);
  off[3] = 1;  // no ab: then no abc either, which is made from it
  ids.clear();
  engine.encode_without(InferenceMethod::merges, "abc", off, ids);
  CHECK(ids == std::vector<TokenId>{0, 1, 2});
  off = {0, 0, 0, 0, 1, 0, 0};  // no abc
  ids.clear();
  engine.encode_without(InferenceMethod::merges, "abc", off, ids);
  CHECK(ids == std::vector<TokenId>{3, 2});
}

TEST_CASE("per entry: its uses and the tokens each language needs more without it, by hand",
          "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  const VocabularyAllocation a = allocate_vocabulary(subject, two_languages());
  CHECK(a.method == "merges");
  CHECK(a.exact);
  CHECK(a.vocabulary_size == 7);
  CHECK(a.removable == 4);  // ab, abc, cc, bc
  CHECK(a.unused == 1);     // bc
  CHECK(a.no_savings == 0);
  CHECK(a.units == 5);
  CHECK(a.distinct_units == 3);  // abc, ab, cc
  CHECK(a.differing_units == 0);
  CHECK(a.per_language[0].tokens == 3);
  CHECK(a.per_language[1].tokens == 2);
  // Without ab: abc -> a b c (+2, twice in x, once in y), ab -> a b (+1 in x).
  CHECK(entry(a, 3).saved == std::vector<std::int64_t>{5, 2});
  CHECK(entry(a, 3).uses == std::vector<std::uint64_t>{1, 0});
  // Without abc: abc -> ab c (+1 each time).
  CHECK(entry(a, 4).saved == std::vector<std::int64_t>{2, 1});
  CHECK(entry(a, 4).uses == std::vector<std::uint64_t>{2, 1});
  // Without cc: cc -> c c.
  CHECK(entry(a, 5).saved == std::vector<std::int64_t>{0, 1});
  CHECK(entry(a, 2).saved == std::vector<std::int64_t>{0, 0});  // c is the alphabet
  CHECK_FALSE(entry(a, 2).removable);
  // Value: saved / tokens summed over languages.
  CHECK(entry(a, 3).value == Approx(5.0 / 3 + 2.0 / 2));
  CHECK(entry(a, 4).value == Approx(2.0 / 3 + 1.0 / 2));
  CHECK(entry(a, 5).value == Approx(1.0 / 2));
}

TEST_CASE("per language: each entry's savings split in proportion, summed; two languages by hand",
          "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  const VocabularyAllocation a = allocate_vocabulary(subject, two_languages());
  // ab: x (5/3) / (5/3 + 1) = 0.625; abc: x (2/3) / (2/3 + 1/2) = 4/7; cc: all y.
  CHECK(a.per_language[0].served_entries == Approx(0.625 + 4.0 / 7));
  CHECK(a.per_language[1].served_entries == Approx(0.375 + 3.0 / 7 + 1.0));
  CHECK(a.per_language[0].vocabulary_share == Approx((0.625 + 4.0 / 7) / 7));
  CHECK(a.per_language[0].entries_used == 2);  // ab, abc
  CHECK(a.per_language[1].entries_used == 2);  // cc, abc
  // Every removable entry out: x = a b c, a b c, a b (8); y = c c, a b c (5).
  CHECK(a.per_language[0].saved_by_vocabulary == 5);
  CHECK(a.per_language[1].saved_by_vocabulary == 3);
  // Not the sum of the single savings (5 + 2 = 7 for x): abc is lost with ab.
  CHECK(a.saved_per_million(0, 1000000) == Approx(5.0 / 7));  // 5 tokens, 7 x 10^6 parameters
}

TEST_CASE("the pruning curve takes out the least valuable entries first and re-encodes",
          "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  const VocabularyAllocation a = allocate_vocabulary(subject, two_languages());
  // Order: bc (never used), cc (0.5), abc (7/6), ab (8/3).
  CHECK(entry(a, 5).removal_rank == 1);
  CHECK(entry(a, 4).removal_rank == 2);
  CHECK(entry(a, 3).removal_rank == 3);
  // Sizes: 7, the powers of two between, and 3 (every removable entry out).
  REQUIRE(a.pruning.size() == 3);
  CHECK(a.pruning[0].kept == 7);
  CHECK(a.pruning[0].tokens == std::vector<std::uint64_t>{3, 2});
  CHECK(a.pruning[1].kept == 4);  // bc, cc, abc out: abc -> ab c, cc -> c c
  CHECK(a.pruning[1].tokens == std::vector<std::uint64_t>{5, 4});
  CHECK(a.pruning[2].kept == 3);
  CHECK(a.pruning[2].tokens == std::vector<std::uint64_t>{8, 5});

  AllocationInput input = two_languages();
  input.sizes = {6};
  const VocabularyAllocation six = allocate_vocabulary(subject, input);
  REQUIRE(six.pruning.size() == 3);  // 6, and the full and smallest sizes always
  CHECK(six.pruning[1].kept == 6);
  CHECK(six.pruning[1].tokens == std::vector<std::uint64_t>{3, 2});  // bc was never used
}

TEST_CASE("the allocation is the same at every thread count", "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  AllocationInput input = two_languages();
  for (int i = 0; i < 50; ++i) input.texts[i % 2].push_back(i % 3 == 0 ? "abcc cab" : "ccc abab");
  const VocabularyAllocation one = allocate_vocabulary(subject, input);
  input.threads = 3;
  const VocabularyAllocation three = allocate_vocabulary(subject, input);
  REQUIRE(one.entries.size() == three.entries.size());
  for (std::size_t i = 0; i < one.entries.size(); ++i) {
    CHECK(one.entries[i].id == three.entries[i].id);
    CHECK(one.entries[i].saved == three.entries[i].saved);
    CHECK(one.entries[i].uses == three.entries[i].uses);
    CHECK(one.entries[i].removal_rank == three.entries[i].removal_rank);
  }
  for (std::size_t k = 0; k < one.pruning.size(); ++k)
    CHECK(one.pruning[k].tokens == three.pruning[k].tokens);
}

TEST_CASE("a size the method cannot reach, or texts that do not match the languages, are errors",
          "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  AllocationInput input = two_languages();
  input.sizes = {2};
  CHECK_THROWS_WITH(allocate_vocabulary(subject, input),
                    Catch::Contains("a vocabulary size of 2 cannot be reached") &&
                        Catch::Contains("sizes run from 3 to 7"));
  input.sizes = {8};
  CHECK_THROWS_WITH(allocate_vocabulary(subject, input), Catch::Contains("size of 8"));
  input = two_languages();
  input.texts.pop_back();
  CHECK_THROWS_WITH(allocate_vocabulary(subject, input),
                    Catch::Contains("1 texts for 2 languages"));
}

TEST_CASE("unigram without an entry: Viterbi over the rest; WordPiece: the longest match left",
          "[study][allocation]") {
  InferenceVocabulary unigram;
  unigram.pieces = {"<unk>", "a", "b", "ab", "abab"};
  unigram.unknown = 0;
  unigram.scores = {0.0, -2.0, -2.0, -1.0, -1.5};
  AllocationInput input;
  input.languages = {"x"};
  input.texts = {{"abab"}};
  // abab (-1.5) beats ab ab (-2); without abab, ab ab; with nothing, a b a b.
  const WordSubject u(unigram, InferenceMethod::likelihood);
  const VocabularyAllocation a = allocate_vocabulary(u, input);
  CHECK(a.method == "likelihood");
  CHECK(a.removable == 2);  // ab, abab
  CHECK(a.per_language[0].tokens == 1);
  CHECK(entry(a, 4).saved == std::vector<std::int64_t>{1});
  CHECK(a.per_language[0].saved_by_vocabulary == 3);

  InferenceVocabulary wordpiece;
  wordpiece.pieces = {"[UNK]", "a", "##b", "ab", "##ab", "##a"};
  wordpiece.unknown = 0;
  wordpiece.continuation_prefix = "##";
  wordpiece.whole_word_unknown = true;
  // ab ##ab; without ab: a ##b ##ab; without ##ab: ab ##a ##b; with neither: a ##b ##a ##b.
  const WordSubject w(wordpiece, InferenceMethod::longest_prefix);
  const VocabularyAllocation b = allocate_vocabulary(w, input);
  CHECK(b.method == "longest-prefix");
  CHECK(b.removable == 2);
  CHECK(b.per_language[0].tokens == 2);
  CHECK(entry(b, 3).saved == std::vector<std::int64_t>{1});
  CHECK(entry(b, 4).saved == std::vector<std::int64_t>{1});
  CHECK(b.per_language[0].saved_by_vocabulary == 2);
}

TEST_CASE("held out: the order chosen on the even-numbered lines, the curve read on the odd ones",
          "[study][allocation]") {
  const WordSubject subject(tiny_bpe());
  AllocationInput input;
  input.languages = {"x"};
  input.texts = {{"cc", "abc abc", "cc", "abc abc"}};
  input.held_out_order = true;
  const VocabularyAllocation a = allocate_vocabulary(subject, input);
  // Lines 0 and 2 neither use nor build ab and abc: with bc, they go first,
  // the latest id first (what lines 1 and 3 use is not seen); then cc.
  CHECK(entry(a, 4).removal_rank == 1);
  CHECK(entry(a, 3).removal_rank == 2);
  CHECK(entry(a, 5).removal_rank == 3);
  // The per-entry and per-language figures are over every line.
  CHECK(a.per_language[0].tokens == 6);
  CHECK(entry(a, 3).saved == std::vector<std::int64_t>{8});
  CHECK(a.per_language[0].saved_by_vocabulary == 16 - 6);
  // The curve is on lines 1 and 3: four abc, then a b c each once ab and abc are out.
  REQUIRE(a.pruning.size() == 3);
  CHECK(a.pruning[0].tokens == std::vector<std::uint64_t>{4});
  CHECK(a.pruning[1].kept == 4);
  CHECK(a.pruning[1].tokens == std::vector<std::uint64_t>{12});
  CHECK(a.pruning[2].tokens == std::vector<std::uint64_t>{12});
}
