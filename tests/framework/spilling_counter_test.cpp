// Counting in bounded memory (spilling_counter.hpp): whatever the budget, the
// TSV is byte for byte the one the in-memory table writes.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "tokenlab/error.hpp"
#include "tokenlab/spilling_counter.hpp"
#include "tokenlab/word_counts.hpp"

using namespace tokenlab;

namespace {

// Blocks of a Zipf-like stream of words over a growing vocabulary, some of them
// holding tabs (the regex presets' pieces), deterministic from the seed.
std::vector<WordCounts> blocks(unsigned seed, std::size_t count, bool with_tabs) {
  std::mt19937_64 rng(seed);
  std::vector<WordCounts> out(count);
  std::size_t vocabulary = 50;
  for (auto& block : out) {
    for (int i = 0; i < 300; ++i) {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      const auto rank = static_cast<std::size_t>(static_cast<double>(vocabulary) * u * u * u);
      std::string word = "\u2581w" + std::to_string(rank);
      if (with_tabs && rank % 7 == 0) word += '\t';
      block.add(word, 1 + rank % 3);
    }
    vocabulary += 40;  // Heaps: new words keep coming
  }
  return out;
}

std::string in_memory(const std::vector<WordCounts>& parts, const std::string& settings) {
  WordCounts all;
  for (const auto& b : parts) all.merge(b);
  all.set_settings(settings);
  std::ostringstream out;
  all.save_tsv(out);
  return out.str();
}

}  // namespace

TEST_CASE("spilled counts write exactly the in-memory TSV, whatever the budget",
          "[word_counts][spill]") {
  const bool tabs = GENERATE(false, true);
  const auto parts = blocks(7, 60, tabs);
  const std::string expected = in_memory(parts, "normalizer=nfc pre-tokenizer=unicode/prefix");
  for (const std::uint64_t budget :
       {std::uint64_t{2000}, std::uint64_t{20000}, std::uint64_t{1} << 30}) {
    INFO("budget " << budget << ", tabs " << tabs);
    SpillingCounter counter(budget);
    counter.set_settings("normalizer=nfc pre-tokenizer=unicode/prefix", "test");
    for (const auto& b : parts) counter.add(b);
    std::ostringstream out;
    const SpillingCounter::Summary summary = counter.write_tsv(out);
    CHECK(out.str() == expected);
    if (budget == std::uint64_t{1} << 30)
      CHECK(summary.spilled_runs == 0);
    else
      CHECK(summary.spilled_runs > 1);
    std::istringstream back(out.str());
    const WordCounts loaded = WordCounts::load_tsv(back, "spilled");
    CHECK(summary.distinct == loaded.size());
    CHECK(summary.total == loaded.total());
  }
}

TEST_CASE("shards merged entry by entry in bounded memory equal WordCounts::merge",
          "[word_counts][spill]") {
  const auto shards = blocks(11, 20, false);
  SpillingCounter counter(3000);
  for (const auto& shard : shards)
    for (const auto& e : shard.entries()) counter.add_entry(e.word, e.count);
  std::ostringstream out;
  counter.write_tsv(out);
  CHECK(out.str() == in_memory(shards, ""));
}

TEST_CASE("spilling refuses what the in-memory table refuses", "[word_counts][spill]") {
  SpillingCounter counter(100);
  counter.set_settings("normalizer=nfc pre-tokenizer=unicode/prefix", "a.tsv");
  CHECK_THROWS_WITH(counter.set_settings("normalizer=nfkc pre-tokenizer=unicode/prefix", "b.tsv"),
                    Catch::StartsWith("b.tsv: counted with normalizer=nfkc") &&
                        Catch::Contains("cannot be added"));
  // Each table alone is fine; the word's sum over the runs passes 2^64-1.
  SpillingCounter overflow(100);
  overflow.add_entry("\u2581a", std::uint64_t{1} << 63);
  overflow.add_entry("\u2581filler", 1);  // the table is over budget: spilled
  overflow.add_entry("\u2581a", std::uint64_t{1} << 63);
  std::ostringstream out;
  CHECK_THROWS_WITH(overflow.write_tsv(out), Catch::Contains("passes 2^64-1"));
}

TEST_CASE("memory sizes read as the CLI takes them", "[spill]") {
  CHECK(parse_memory_size("512") == 512);
  CHECK(parse_memory_size("64K") == 64 * 1024);
  CHECK(parse_memory_size("256m") == 256ULL << 20);
  CHECK(parse_memory_size("2G") == 2ULL << 30);
  CHECK_THROWS_WITH(parse_memory_size("2GB"), Catch::Contains("K, M, G or T"));
  CHECK_THROWS_WITH(parse_memory_size("lots"), Catch::Contains("not a number"));
  CHECK_THROWS_WITH(parse_memory_size("99999999999999999999"), Catch::Contains("too large"));
}
