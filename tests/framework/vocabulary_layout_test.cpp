// The layout rule every trainer starts from (vocabulary_layout.hpp): special
// tokens, then byte pieces, then the base alphabet, with each algorithm's part of
// the rule (its default specials, unknown spellings, byte pieces and base units).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/vocabulary_layout.hpp"

namespace {

using tokenlab::BaseUnits;
using tokenlab::BytePieces;
using tokenlab::LayoutRule;
using tokenlab::TrainOptions;
using tokenlab::UnknownToken;
using tokenlab::Vocabulary;
using tokenlab::WordCounts;

// The textbook corpus: 10 distinct characters (d e i l n o r s t w).
WordCounts textbook() {
  WordCounts counts;
  counts.add("low", 5);
  counts.add("lower", 2);
  counts.add("newest", 6);
  counts.add("widest", 3);
  return counts;
}

struct Messages final : tokenlab::TrainingObserver {
  std::vector<std::string> seen;
  void on_message(std::string_view text) override { seen.emplace_back(text); }
};

TrainOptions sized(std::size_t vocab_size) {
  TrainOptions options;
  options.vocab_size = vocab_size;
  return options;
}

std::vector<std::string> pieces(const Vocabulary& vocabulary) {
  return vocabulary.pieces();
}

}  // namespace

TEST_CASE("layout: the default specials, then the alphabet in code point order") {
  const auto layout = lay_out_vocabulary(textbook(), sized(100), {.plugin = "t"}, nullptr);
  CHECK(pieces(layout.vocabulary) ==
        std::vector<std::string>{"<unk>", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w"});
  CHECK(layout.vocabulary.unknown_id() == 0u);
  CHECK(layout.vocabulary.is_special(0));
  CHECK(layout.base_ids.size() == 10);
  CHECK_FALSE(layout.byte_fallback());
}

TEST_CASE("layout: the unknown token is inserted first when a given list lacks it") {
  TrainOptions options = sized(100);
  options.special_tokens = std::vector<std::string>{"<pad>", "<s>"};
  Messages messages;
  const auto layout = lay_out_vocabulary(textbook(), options, {.plugin = "t"}, &messages);
  CHECK(pieces(layout.vocabulary).front() == "<unk>");
  CHECK(layout.vocabulary.piece(1) == "<pad>");
  CHECK(layout.vocabulary.unknown_id() == 0u);
  REQUIRE(messages.seen.size() == 1);
  CHECK(messages.seen[0] ==
        "t: added <unk> to the special tokens, first: the model needs an "
        "unknown token");
}

TEST_CASE("layout: the first listed unknown spelling is the unknown token, wherever it is") {
  TrainOptions options = sized(100);
  options.special_tokens = std::vector<std::string>{"[PAD]", "<unk>", "[CLS]"};
  const LayoutRule wordpiece{
      .plugin = "wordpiece", .unknown_spellings = {"[UNK]", "<unk>"}, .base = BaseUnits::none};
  const auto layout = lay_out_vocabulary(textbook(), options, wordpiece, nullptr);
  CHECK(pieces(layout.vocabulary) == std::vector<std::string>{"[PAD]", "<unk>", "[CLS]"});
  CHECK(layout.vocabulary.unknown_id() == 1u);
}

TEST_CASE("layout: when_listed keeps an explicit list without the unknown token as given") {
  TrainOptions options = sized(100);
  options.special_tokens = std::vector<std::string>{};
  const LayoutRule bpe{.plugin = "bpe", .unknown = UnknownToken::when_listed};
  const auto layout = lay_out_vocabulary(textbook(), options, bpe, nullptr);
  CHECK(layout.vocabulary.special_count() == 0);
  CHECK_FALSE(layout.vocabulary.unknown_id().has_value());
  CHECK(pieces(layout.vocabulary).front() == "d");
  // Without a list, the default one (with "<unk>") applies.
  const auto defaulted = lay_out_vocabulary(textbook(), sized(100), bpe, nullptr);
  CHECK(defaulted.vocabulary.unknown_id() == 0u);
}

TEST_CASE("layout: byte pieces follow the specials when on, or automatic with room") {
  const LayoutRule automatic{.plugin = "t", .byte_pieces = BytePieces::automatic};
  // 1 special + 256 + 10 characters = 267.
  const auto roomy = lay_out_vocabulary(textbook(), sized(267), automatic, nullptr);
  REQUIRE(roomy.byte_fallback());
  CHECK(*roomy.first_byte_piece == 1u);
  CHECK(roomy.vocabulary.piece(1) == "<0x00>");
  CHECK(roomy.vocabulary.piece(256) == "<0xFF>");
  CHECK(roomy.vocabulary.piece(257) == "d");
  CHECK(roomy.vocabulary.size() == 267);

  Messages messages;
  const auto tight = lay_out_vocabulary(textbook(), sized(266), automatic, &messages);
  CHECK_FALSE(tight.byte_fallback());
  REQUIRE(messages.seen.size() == 1);
  CHECK(messages.seen[0] ==
        "t: byte_fallback off: vocab_size 266 is below the 267 entries that "
        "the special tokens, 256 byte pieces and the alphabet need");

  // Step-limited runs (the textbook traces) never get them automatically.
  TrainOptions stepped = sized(1000);
  stepped.max_steps = 3;
  CHECK_FALSE(lay_out_vocabulary(textbook(), stepped, automatic, nullptr).byte_fallback());

  const LayoutRule on{.plugin = "t", .byte_pieces = BytePieces::on};
  CHECK_THROWS_WITH(lay_out_vocabulary(textbook(), sized(257), on, nullptr),
                    Catch::Contains("t: vocabulary size 257 is too small: the special tokens and "
                                    "the 256 byte pieces need it to be at least 258"));
}

TEST_CASE("layout: a small vocabulary keeps the most frequent characters and says so") {
  // Counts: e 17, w 16, s 9, t 9, l 7, o 7, n 6, d 3, i 3, r 2 (ties: lower code point).
  Messages messages;
  const auto layout = lay_out_vocabulary(textbook(), sized(4), {.plugin = "t"}, &messages);
  CHECK(pieces(layout.vocabulary) == std::vector<std::string>{"<unk>", "e", "s", "w"});
  CHECK(layout.alphabet_wanted == 10);
  REQUIRE(messages.seen.size() == 1);
  CHECK(messages.seen[0] ==
        "t: vocab_size 4 keeps only the 3 most frequent of 10 characters: the "
        "alphabet needs at least 11 entries; the other characters are unknown");
}

TEST_CASE("layout: byte units are the 256 single bytes, with no unknown token") {
  const LayoutRule bytes{.plugin = "bpe",
                         .default_specials = {},
                         .unknown = UnknownToken::none,
                         .base = BaseUnits::bytes};
  const auto layout = lay_out_vocabulary(textbook(), sized(300), bytes, nullptr);
  CHECK(layout.vocabulary.size() == 256);
  CHECK(layout.vocabulary.piece(0x61) == "a");
  CHECK_FALSE(layout.vocabulary.unknown_id().has_value());
  CHECK_THROWS_WITH(lay_out_vocabulary(textbook(), sized(255), bytes, nullptr),
                    Catch::Contains("the special tokens and the 256 bytes need it to be at "
                                    "least 256"));
}

TEST_CASE("layout: selected units are chosen but left for the algorithm to place") {
  const auto layout = lay_out_vocabulary(
      textbook(), sized(3), {.plugin = "character", .base = BaseUnits::selected}, nullptr);
  CHECK(layout.vocabulary.size() == 1);
  CHECK(layout.alphabet.characters == std::vector<char32_t>{U'e', U'w'});
  CHECK(layout.base_ids.empty());
}

TEST_CASE("layout: the specials are checked and need room beyond them") {
  TrainOptions twice = sized(100);
  twice.special_tokens = std::vector<std::string>{"<s>", "<s>"};
  CHECK_THROWS_WITH(lay_out_vocabulary(textbook(), twice, {.plugin = "t"}, nullptr),
                    "t: special token '<s>' given twice");
  TrainOptions empty = sized(100);
  empty.special_tokens = std::vector<std::string>{"<s>", ""};
  CHECK_THROWS_WITH(lay_out_vocabulary(textbook(), empty, {.plugin = "t"}, nullptr),
                    "t: a special token is empty");
  CHECK_THROWS_WITH(lay_out_vocabulary(textbook(), sized(1), {.plugin = "t"}, nullptr),
                    "t: vocabulary size 1 is too small: the 1 special tokens need it to be at "
                    "least 2");
}

TEST_CASE("layout: a special token that spells a character stands for it") {
  TrainOptions options = sized(100);
  options.special_tokens = std::vector<std::string>{"<unk>", "e"};
  const auto layout = lay_out_vocabulary(textbook(), options, {.plugin = "t"}, nullptr);
  CHECK(layout.vocabulary.size() == 11);  // 2 specials + 9 other characters
  CHECK(layout.base_ids[1] == 1u);        // "e" is the special's id
}
