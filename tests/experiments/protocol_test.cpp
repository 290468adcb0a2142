// Evaluation protocols (issue 26): what one call of a tokenizer sees, what a
// word is, swiss-ai's line cleaning, tokens per line, rows pooled over
// languages, NSL and paired bootstrap intervals.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/temp_files.hpp"
#include "experiments_support.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/compare_tables.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/evaluation_protocol.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/text_encoder.hpp"

using namespace tokenlab;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

const std::string& kData = tokenlab::test::kExperimentsData;

const PluginRegistry& registry() {
  return tokenlab::test::experiments_registry();
}

// A whole-text tokenizer whose token count is easy to compute by hand: one
// token per started group of three bytes of whatever one call is given, so
// the number of calls (the unit) shows in the count.
class ByteTriplets final : public TextEncoder {
 public:
  void encode(std::string_view text, std::vector<TokenId>& out) const override {
    for (std::size_t i = 0; i < text.size(); i += 3)
      out.push_back(static_cast<unsigned char>(text[i]));
  }
  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    return std::string(ids.size() * 3, 'x');
  }
  [[nodiscard]] std::size_t vocabulary_size() const override { return 256; }
  [[nodiscard]] std::string display_piece(TokenId id) const override {
    return std::string(1, static_cast<char>(id));
  }
  [[nodiscard]] std::optional<TokenId> unknown_id() const override { return std::nullopt; }
  [[nodiscard]] std::vector<TokenId> byte_fallback_ids() const override { return {}; }
};

std::uint64_t triplets(std::string_view text) {
  return (text.size() + 2) / 3;
}

const CompareRow& row_of(const std::vector<CompareRow>& rows, const std::string& label,
                         const std::string& language) {
  for (const auto& row : rows)
    if (row.algorithm == label && row.language == language) return row;
  FAIL("no row for " << label << " / " << language);
  return rows.front();
}

// Two aligned languages, evaluated whole, with the triplet tokenizer beside
// one trained algorithm.
CompareOptions aligned_evaluation(const TempDir& dir, EvaluationUnit unit) {
  write_bytes(dir / "en.txt", "a bb  ccc\n  dddd eeeee\nf\n");
  write_bytes(dir / "de.txt", "aa bbb cccc\nddddd eeeeee\ng h\n");
  CompareOptions o;
  o.languages = {{"en", {(dir / "en.txt").string()}}, {"de", {(dir / "de.txt").string()}}};
  o.aligned = true;
  o.evaluate_every_line = true;
  o.evaluate_only = true;
  o.pretrained.push_back({"triplets", "test", std::make_shared<ByteTriplets>(), nullptr});
  o.protocol.unit = unit;
  o.training.threads = 1;
  return o;
}

}  // namespace

TEST_CASE("Whitespace words are what Python's str.split() finds", "[experiments][protocol]") {
  CHECK(count_whitespace_words("") == 0);
  CHECK(count_whitespace_words("  one  two\tthree\n") == 3);
  // No-break space, ideographic space, en quad and the information separators
  // split; a zero-width space (U+200B) does not (str.isspace() is False for it).
  CHECK(count_whitespace_words("a\u00A0b\u3000c\u2000d\x1F"
                               "e") == 5);
  CHECK(count_whitespace_words("a\u200Bb") == 1);
  std::vector<std::string> words;
  (void)for_each_whitespace_word(" x\u3000yz ", [&](std::string_view w) { words.emplace_back(w); });
  CHECK(words == std::vector<std::string>{"x", "yz"});
  // Invalid UTF-8 is part of a word, never a separator.
  CHECK(count_whitespace_words("a\xFF b") == 2);
}

TEST_CASE("squeeze_spaces collapses runs of spaces and trims as swiss-ai's loader does",
          "[experiments][protocol]") {
  CHECK(squeeze_spaces("  a   b  ") == "a b");
  CHECK(squeeze_spaces("\u00A0a b\t") == "a b");
  // Only U+0020 runs are collapsed inside the line ('re.sub(r" +", " ")').
  CHECK(squeeze_spaces("a\t\tb") == "a\t\tb");
  CHECK(squeeze_spaces("   ") == "");
}

TEST_CASE("Protocol names parse, and an unknown one is an error naming the choices",
          "[experiments][protocol]") {
  CHECK(parse_evaluation_unit("document") == EvaluationUnit::document);
  CHECK(parse_word_definition("whitespace") == WordDefinition::whitespace);
  CHECK_THROWS_WITH(parse_evaluation_unit("sentence"),
                    Catch::Contains("auto, word, line or document"));
  CHECK_THROWS_WITH(parse_word_definition("spaces"), Catch::Contains("pretokenizer or whitespace"));
  EvaluationProtocol p;
  p.unit = EvaluationUnit::line;
  p.words = WordDefinition::whitespace;
  p.squeeze_spaces = true;
  CHECK(p.to_string() == "unit=line words=whitespace squeeze-spaces");
}

TEST_CASE("The unit decides what one call of a real tokenizer is given",
          "[experiments][protocol]") {
  TempDir dir;
  const std::vector<std::string> en = {"a bb  ccc", "  dddd eeeee", "f"};
  SECTION("line: each line alone") {
    const auto r = run_compare(registry(), aligned_evaluation(dir, EvaluationUnit::line));
    CHECK(row_of(r.rows, "triplets", "en").metrics.tokens ==
          triplets(en[0]) + triplets(en[1]) + triplets(en[2]));
  }
  SECTION("word: each whitespace word alone") {
    const auto r = run_compare(registry(), aligned_evaluation(dir, EvaluationUnit::word));
    CHECK(row_of(r.rows, "triplets", "en").metrics.tokens == 1 + 1 + 1 + 2 + 2 + 1);
  }
  SECTION("document: the file's lines joined by one space, in one call") {
    const auto r = run_compare(registry(), aligned_evaluation(dir, EvaluationUnit::document));
    CHECK(row_of(r.rows, "triplets", "en").metrics.tokens ==
          triplets(en[0] + " " + en[1] + " " + en[2]));
    // One call per file: no tokens per line to resample.
    CHECK_FALSE(row_of(r.rows, "triplets", "de").premium_interval);
    CHECK_THAT(r.bootstrap_note, Catch::Contains("--unit document"));
  }
  SECTION("squeeze-spaces cleans each line before the tokenizer sees it") {
    auto o = aligned_evaluation(dir, EvaluationUnit::line);
    o.protocol.squeeze_spaces = true;
    const auto r = run_compare(registry(), o);
    CHECK(row_of(r.rows, "triplets", "en").metrics.tokens ==
          triplets("a bb ccc") + triplets("dddd eeeee") + triplets("f"));
  }
}

TEST_CASE("Tokens per line and tokens per word follow the chosen definitions",
          "[experiments][protocol]") {
  TempDir dir;
  auto o = aligned_evaluation(dir, EvaluationUnit::line);
  o.evaluate_only = false;
  o.algorithms = {"character"};
  o.training_counts = std::make_shared<WordCounts>();
  {
    WordCounts counts;
    for (const char* w : {"abc", "def", "ghi"}) counts.add(w, 5);
    o.training_counts = std::make_shared<WordCounts>(std::move(counts));
  }
  const auto r = run_compare(registry(), o);
  const auto& m = row_of(r.rows, "triplets", "en").metrics;
  CHECK(m.lines == 3);
  CHECK(m.whitespace_words == 6);
  CHECK(m.tokens_per_line() == Approx(static_cast<double>(m.tokens) / 3));
  CHECK(m.whitespace_fertility() == Approx(static_cast<double>(m.tokens) / 6));
  // The character model's words are the pre-tokenizer's, the same six here.
  CHECK(row_of(r.rows, "character", "en").metrics.words == 6);
}

TEST_CASE("A trained model gets the same tokens whatever the unit", "[experiments][protocol]") {
  CompareOptions o;
  o.languages = {{"en", {kData + "/parallel/en.txt"}}, {"de", {kData + "/parallel/de.txt"}}};
  o.aligned = true;
  o.training.vocab_size = 120;
  o.training.threads = 2;
  o.algorithms = {"bpe"};
  std::vector<std::uint64_t> tokens;
  for (const auto unit : {EvaluationUnit::word, EvaluationUnit::line, EvaluationUnit::document}) {
    o.protocol.unit = unit;
    const auto r = run_compare(registry(), o);
    tokens.push_back(row_of(r.rows, "bpe", "de").metrics.tokens);
  }
  CHECK(tokens[0] == tokens[1]);
  CHECK(tokens[1] == tokens[2]);
}

TEST_CASE("Rows pooled over languages add the languages' counts up", "[experiments][protocol]") {
  TempDir dir;
  const auto r = run_compare(registry(), aligned_evaluation(dir, EvaluationUnit::line));
  REQUIRE(r.pooled.size() == 1);
  const auto& all = r.pooled.front();
  CHECK(all.language == "all");
  CHECK(all.metrics.tokens == row_of(r.rows, "triplets", "en").metrics.tokens +
                                  row_of(r.rows, "triplets", "de").metrics.tokens);
  CHECK(all.metrics.lines == 6);
  const auto table = pooled_table(r);
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0][0] == "triplets (pretrained)");
}

TEST_CASE("NSL divides by the baseline row, and an unknown baseline is an error",
          "[experiments][protocol]") {
  CompareOptions o;
  o.languages = {{"en", {kData + "/parallel/en.txt"}}, {"de", {kData + "/parallel/de.txt"}}};
  o.aligned = true;
  o.held_out = 0.3;
  o.training.vocab_size = 120;
  o.training.threads = 2;
  o.algorithms = {"character", "bpe"};
  o.baseline = "character";
  const auto r = run_compare(registry(), o);
  for (const std::string language : {"en", "de"}) {
    const auto& bpe = row_of(r.rows, "bpe", language);
    const auto& character = row_of(r.rows, "character", language);
    REQUIRE(bpe.nsl);
    CHECK(*bpe.nsl == Approx(static_cast<double>(bpe.metrics.tokens) /
                             static_cast<double>(character.metrics.tokens)));
    CHECK(*character.nsl == 1.0);
    REQUIRE(bpe.nsl_interval);
    CHECK(bpe.nsl_interval->low <= *bpe.nsl);
    CHECK(*bpe.nsl <= bpe.nsl_interval->high);
  }
  o.baseline = "gpt5";
  CHECK_THROWS_WITH(run_compare(registry(), o), Catch::Contains("'gpt5' is not a row"));
}

TEST_CASE("Bootstrap intervals are paired, bracket the estimate and ignore the thread count",
          "[experiments][protocol]") {
  CompareOptions o;
  o.languages = {{"en", {kData + "/parallel/en.txt"}}, {"de", {kData + "/parallel/de.txt"}}};
  o.aligned = true;
  o.evaluate_every_line = true;
  o.training.vocab_size = 150;
  o.algorithms = {"character", "bpe"};
  o.training_counts = [] {
    WordCounts counts;
    for (const char* w : {"the", "river", "der", "fluss", "und", "and"}) counts.add(w, 3);
    return std::make_shared<WordCounts>(std::move(counts));
  }();
  o.baseline = "character";
  o.bootstrap_samples = 500;
  o.training.threads = 1;
  const auto one = run_compare(registry(), o);
  o.training.threads = 4;
  const auto four = run_compare(registry(), o);
  for (const auto& row : one.rows) {
    const auto& other = row_of(four.rows, row.algorithm, row.language);
    REQUIRE(row.premium_interval);
    CHECK(row.premium_interval->low == other.premium_interval->low);
    CHECK(row.premium_interval->high == other.premium_interval->high);
    CHECK(row.premium_interval->low <= *row.premium);
    CHECK(*row.premium <= row.premium_interval->high);
    if (row.language == "en") {
      // The reference resampled with itself: exactly 1 in every replicate.
      CHECK(row.premium_interval->low == 1.0);
      CHECK(row.premium_interval->high == 1.0);
    }
  }
  // Paired: the baseline's premium minus itself is 0 in every replicate.
  const auto& base = row_of(one.rows, "character", "de");
  REQUIRE(base.premium_difference_interval);
  CHECK(base.premium_difference_interval->low == 0.0);
  CHECK(base.premium_difference_interval->high == 0.0);
  // Another seed draws other lines.
  o.training.seed = 7;
  const auto reseeded = run_compare(registry(), o);
  CHECK(row_of(reseeded.rows, "bpe", "de").premium_interval->low !=
        row_of(one.rows, "bpe", "de").premium_interval->low);
}
