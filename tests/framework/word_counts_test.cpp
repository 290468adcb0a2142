// WordCounts and the parallel counting pass.
#include <catch2/catch.hpp>

#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/keyed_counts.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::CorpusReader;
using tokenlab::Error;
using tokenlab::WordCounts;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

using Entries = std::vector<std::pair<std::string, std::uint64_t>>;

Entries entries_of(const WordCounts& counts) {
  Entries out;
  for (const auto& e : counts.entries()) out.emplace_back(e.word, e.count);
  return out;
}

// A few MiB of text with a Zipf-like vocabulary, some of it non-ASCII, so that
// counting spans several blocks and the ICU path.
std::string synthetic_corpus() {
  const std::vector<std::string> vocabulary = {"the",
                                               "of",
                                               "and",
                                               "to",
                                               "in",
                                               "a",
                                               "is",
                                               "that",
                                               "for",
                                               "it",
                                               "as",
                                               "was",
                                               "with",
                                               "be",
                                               "by",
                                               "on",
                                               "not",
                                               "he",
                                               "I",
                                               "this",
                                               "are",
                                               "or",
                                               "his",
                                               "from",
                                               "at",
                                               "which",
                                               "caf\u00E9",
                                               "na\u00EFve",
                                               "\u0928\u092E\u0938\u094D\u0924\u0947",
                                               "\u043C\u0438\u0440",
                                               "42",
                                               "3.14",
                                               "don't",
                                               "(see",
                                               "below)",
                                               "\u65E5\u672C\u8A9E\u306E"};
  std::uint64_t state = 7;
  std::string text;
  std::string line;
  while (text.size() < (std::size_t{3} << 20)) {
    line.clear();
    const auto words = 3 + tokenlab::next_random(state) % 12;
    for (std::uint64_t w = 0; w < words; ++w) {
      // Squaring a uniform draw favours the first words, like real frequencies.
      const double u = tokenlab::next_unit(state);
      std::string word =
          vocabulary[static_cast<std::size_t>(u * u * static_cast<double>(vocabulary.size()))];
      if (tokenlab::next_random(state) % 50 == 0)
        word += std::to_string(tokenlab::next_random(state) % 5000);
      line += (w ? " " : "") + word;
    }
    if (tokenlab::next_random(state) % 10 == 0) line += ".";
    text += line + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE(
    "count_words gives the same entries in the same order at 1, 2 and 4 threads, "
    "equal to a naive count",
    "[counting]") {
  TempDir dir;
  const std::string text = synthetic_corpus();
  write_bytes(dir / "corpus.txt", text);
  const tokenlab::Normalizer normalizer;
  const tokenlab::PreTokenizer pre_tokenizer;

  WordCounts naive;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      for (const auto& word : pre_tokenizer.split(normalizer.normalize(line))) naive.add(word);
  }
  REQUIRE(naive.size() > 1000);

  const auto count_with = [&](unsigned threads) {
    CorpusReader reader({(dir / "corpus.txt").string()}, {.block_bytes = 256 << 10});
    return tokenlab::count_words(reader, normalizer, pre_tokenizer, {.threads = threads});
  };
  const WordCounts one = count_with(1);
  CHECK(entries_of(one) == entries_of(naive));
  CHECK(one.total() == naive.total());
  const unsigned threads = GENERATE(2u, 4u);
  INFO(threads << " threads");
  CHECK(entries_of(count_with(threads)) == entries_of(one));
}

TEST_CASE(
    "count_words equals a naive count for every marker style, also where a marked word "
    "and an unmarked one spell the same bytes",
    "[counting]") {
  // The unicode and whitespace pre-tokenizers count words without their marker
  // and add it per distinct word. "\u2581" is punctuation, so "a\u2581\u2581" gives
  // an unmarked "\u2581\u2581", the same bytes as a marked "\u2581": the two must
  // come out as one entry, at the first one's place.
  TempDir dir;
  std::string text = synthetic_corpus().substr(0, 600 << 10);
  for (int i = 0; i < 200; ++i)
    text += "a\u2581\u2581 \u2581 x\u2581 \u2581x \u2581\u2581\u2581 word\u2581 \u2581word " +
            std::to_string(i % 7) + "\n";
  text += std::string(40, 'z') + " " + std::string(40, 'z') + "\u2581 \u2581" +
          std::string(40, 'z') + "\n";
  write_bytes(dir / "corpus.txt", text);
  const auto options = tokenlab::PreTokenizerOptions::parse(
      GENERATE(as<std::string>{}, "unicode/prefix", "unicode/suffix", "unicode/none",
               "whitespace/prefix", "whitespace/suffix", "bert/prefix"));
  const tokenlab::Normalizer normalizer;
  const tokenlab::PreTokenizer pre_tokenizer(options);
  INFO("pre-tokenizer " << options.to_string());

  WordCounts naive;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      for (const auto& word : pre_tokenizer.split(normalizer.normalize(line))) naive.add(word);
  }
  const auto count = [&](bool by_block) {
    CorpusReader reader({(dir / "corpus.txt").string()}, {.block_bytes = 64 << 10});
    WordCounts merged;
    tokenlab::CountOptions count_options{.threads = 2};
    if (by_block) count_options.on_block_counts = [&](const WordCounts& b) { merged.merge(b); };
    WordCounts counts = tokenlab::count_words(reader, normalizer, pre_tokenizer, count_options);
    return by_block ? merged : counts;
  };
  CHECK(entries_of(count(false)) == entries_of(naive));
  CHECK(entries_of(count(true)) == entries_of(naive));
}

TEST_CASE("count_words sends lines rejected by keep_line to on_skipped_line, in corpus order",
          "[counting]") {
  TempDir dir;
  write_bytes(dir / "c.txt", "keep one\n  DROP   two \nkeep three\nDROP four\n");
  CorpusReader reader({(dir / "c.txt").string()});
  std::vector<std::string> skipped;
  std::vector<std::string> skipped_raw;
  tokenlab::CountOptions options;
  options.threads = 2;
  options.keep_line = [](std::string_view line) {
    return line.find("DROP") == std::string_view::npos;
  };
  options.on_skipped_line = [&](std::string_view raw, std::string_view line) {
    skipped_raw.emplace_back(raw);
    skipped.emplace_back(line);
  };
  const WordCounts counts =
      tokenlab::count_words(reader, tokenlab::Normalizer(), tokenlab::PreTokenizer(), options);
  CHECK(entries_of(counts) == Entries{{"\u2581keep", 2}, {"\u2581one", 1}, {"\u2581three", 1}});
  CHECK(skipped == std::vector<std::string>{"DROP two", "DROP four"});
  CHECK(skipped_raw == std::vector<std::string>{"  DROP   two ", "DROP four"});
}

TEST_CASE("WordCounts keeps first-occurrence order and 64-bit totals", "[word_counts]") {
  WordCounts counts;
  counts.add("b");
  counts.add("a", 3);
  counts.add("b", std::uint64_t{1} << 40);
  CHECK(entries_of(counts) == Entries{{"b", (std::uint64_t{1} << 40) + 1}, {"a", 3}});
  CHECK(counts.total() == (std::uint64_t{1} << 40) + 4);
  CHECK(counts.count_of("a") == 3);
  CHECK(counts.count_of("c") == 0);
}

TEST_CASE("room reserved for entries, too little or too much, changes no count and no order",
          "[word_counts]") {
  // count_words reserves by an estimate of the corpus's distinct words; the
  // table must be the same whether the estimate is short, long or absent.
  std::vector<std::string> words;
  for (int i = 0; i < 5000; ++i) words.push_back("w" + std::to_string(i * 7919 % 3001));
  WordCounts plain;
  for (const auto& w : words) plain.add(w);
  for (const std::size_t room :
       {std::size_t{0}, std::size_t{10}, std::size_t{3001}, std::size_t{1} << 20}) {
    CAPTURE(room);
    WordCounts reserved;
    reserved.reserve_entries(room);
    CHECK(reserved.entries().capacity() >= room);  // room made before any word
    for (const auto& w : words) reserved.add(w);
    CHECK(entries_of(reserved) == entries_of(plain));
    CHECK(reserved.total() == plain.total());
    CHECK(reserved.count_of("w0") == plain.count_of("w0"));
  }
}

TEST_CASE("merging counts adds the other table's words in its order", "[word_counts]") {
  WordCounts first;
  first.add("\u2581low", 5);
  first.add("\u2581lower", 2);
  WordCounts second;
  second.add("\u2581newest", 6);
  second.add("\u2581low", 1);
  second.add("\u2581widest", 3);
  first.merge(second);
  CHECK(entries_of(first) ==
        Entries{{"\u2581low", 6}, {"\u2581lower", 2}, {"\u2581newest", 6}, {"\u2581widest", 3}});
  CHECK(first.total() == 17);
}

TEST_CASE("the TSV form saves, loads and merges back to the same table", "[word_counts]") {
  TempDir dir;
  WordCounts counts;
  counts.add("\u2581low", 5);
  counts.add("\u2581caf\u00E9", 2);
  counts.add(",", std::uint64_t{1} << 33);
  counts.save_tsv(dir / "counts.tsv");
  CHECK(tokenlab::test::read_bytes(dir / "counts.tsv") ==
        "\u2581low\t5\n\u2581caf\u00E9\t2\n,\t8589934592\n");
  CHECK(dir.entries() == std::vector<std::string>{"counts.tsv"});  // no temporary file left
  const WordCounts loaded = WordCounts::load_tsv(dir / "counts.tsv");
  CHECK(entries_of(loaded) == entries_of(counts));

  SECTION("shards counted apart merge to the whole") {
    WordCounts merged = WordCounts::load_tsv(dir / "counts.tsv");
    merged.merge(loaded);
    CHECK(merged.count_of("\u2581low") == 10);
    CHECK(merged.total() == 2 * counts.total());
  }
}

TEST_CASE("malformed TSV lines are errors naming the file and the line", "[word_counts]") {
  const auto [text, line, why] = GENERATE(table<std::string, int, std::string>({
      {"a\t1\nno tab here\n", 2, "no tab"},
      {"a\t1\nb\t\n", 2, "empty count"},
      {"a\t1\nb\t-3\n", 2, "negative count"},
      {"a\t1\nb\t0\n", 2, "zero count"},
      {"a\t1\nb\t12x\n", 2, "trailing garbage"},
      {"a\t1\nb\t99999999999999999999999\n", 2, "count above 64 bits"},
      {"a\t1\n\t5\n", 2, "empty word"},
      {"ok\t1\nx\ty\t2\n", 2, "tab inside the word"},
      {"ok\t1\n\n\xC3(\t4\n", 3, "invalid UTF-8 in the word"},
  }));
  INFO(why);
  std::istringstream in(text);
  try {
    (void)WordCounts::load_tsv(in, "shard.tsv");
    FAIL("load_tsv accepted a malformed line");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("shard.tsv:" + std::to_string(line) + ":"));
  }
}

TEST_CASE("loading counts from a missing file or a directory is a clear error", "[word_counts]") {
  TempDir dir;
  CHECK_THROWS_WITH(WordCounts::load_tsv(dir / "nope.tsv"), Catch::Contains("nope.tsv"));
  CHECK_THROWS_WITH(WordCounts::load_tsv(dir.path()), Catch::Contains("directory"));
}

TEST_CASE("counts that would pass 2^64-1 are an Error naming the word, never a wrap",
          "[word_counts][hostile]") {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  SECTION("up to exactly 2^64-1 is fine") {
    WordCounts counts;
    counts.add("w", kMax - 1);
    counts.add("w", 1);
    CHECK(counts.count_of("w") == kMax);
    CHECK(counts.total() == kMax);
  }
  SECTION("one more is refused and leaves the table as it was") {
    WordCounts counts;
    counts.add("w", kMax);
    CHECK_THROWS_WITH(counts.add("w", 2), Catch::Contains("overflow") && Catch::Contains("'w'") &&
                                              Catch::Contains("18446744073709551615"));
    CHECK(counts.count_of("w") == kMax);
    CHECK(counts.total() == kMax);
    CHECK(counts.size() == 1);
  }
  SECTION("two words of 2^63 each overflow the total") {
    WordCounts counts;
    counts.add("a", std::uint64_t{1} << 63);
    CHECK_THROWS_WITH(counts.add("b", std::uint64_t{1} << 63),
                      Catch::Contains("'b'") && Catch::Contains("total"));
    CHECK(counts.size() == 1);
    CHECK(counts.total() == std::uint64_t{1} << 63);
  }
  SECTION("merging names the source and the word") {
    WordCounts a, b;
    a.add("hello", kMax);
    b.add("hello", 2);
    CHECK_THROWS_WITH(a.merge(b, "shard2.tsv"),
                      Catch::StartsWith("shard2.tsv: ") && Catch::Contains("'hello'"));
    CHECK(a.count_of("hello") == kMax);
  }
  SECTION("a counts file that repeats a word past 2^64-1 names the file and line") {
    std::istringstream in("x\t18446744073709551614\ny\t1\nx\t2\n");
    CHECK_THROWS_WITH(WordCounts::load_tsv(in, "big.tsv"),
                      Catch::StartsWith("big.tsv:3: ") && Catch::Contains("'x'"));
  }
  SECTION("a very long word is shortened in the message") {
    WordCounts counts;
    const std::string word(1000, 'a');
    counts.add(word, kMax);
    try {
      counts.add(word, 1);
      FAIL("no overflow error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).size() < 300);
      CHECK_THAT(e.what(), Catch::Contains("1000 bytes"));
    }
  }
}

TEST_CASE("words holding white space are escaped in the TSV, and only then", "[word_counts]") {
  // The regex pre-tokenizers keep white space in their pieces: " the", "\t", "\r\n".
  WordCounts counts;
  counts.add(" the", 3);
  counts.add("\t", 2);
  counts.add("a\\b", 1);
  counts.add(" \r", 1);
  std::ostringstream out;
  counts.save_tsv(out);
  CHECK(out.str() == "#tokenlab-counts escaped\n the\t3\n\\t\t2\na\\\\b\t1\n \\r\t1\n");
  std::istringstream in(out.str());
  const WordCounts loaded = WordCounts::load_tsv(in, "escaped.tsv");
  REQUIRE(loaded.size() == 4);
  CHECK(loaded.entries()[1].word == "\t");
  CHECK(loaded.entries()[2].word == "a\\b");
  CHECK(loaded.entries()[3].word == " \r");
  CHECK(loaded.count_of(" the") == 3);

  SECTION("a table without such words is written as before: no header, no escapes") {
    WordCounts plain;
    plain.add("a\\b", 1);
    std::ostringstream o;
    plain.save_tsv(o);
    CHECK(o.str() == "a\\b\t1\n");
  }
  SECTION("an escaped file with an unknown escape is an error naming the line") {
    std::istringstream bad("#tokenlab-counts escaped\nok\t1\n\\x\t2\n");
    CHECK_THROWS_WITH(WordCounts::load_tsv(bad, "bad.tsv"),
                      Catch::StartsWith("bad.tsv:3:") && Catch::Contains("backslash"));
  }
}

TEST_CASE("counts record how their words were made, and refuse to mix with other counts",
          "[word_counts]") {
  WordCounts counts;
  counts.add("\u2581the", 3);
  counts.set_settings("normalizer=nfc pre-tokenizer=unicode/prefix");
  std::ostringstream out;
  counts.save_tsv(out);
  CHECK(out.str() ==
        "#tokenlab-counts normalizer=nfc pre-tokenizer=unicode/prefix\n\u2581the\t3\n");
  std::istringstream in(out.str());
  const WordCounts loaded = WordCounts::load_tsv(in, "recorded.tsv");
  CHECK(loaded.settings() == "normalizer=nfc pre-tokenizer=unicode/prefix");
  CHECK(loaded.count_of("\u2581the") == 3);

  SECTION("with escapes the header says both") {
    WordCounts spaced;
    spaced.add(" the\t", 1);
    spaced.set_settings("normalizer=none+keep-whitespace pre-tokenizer=o200k/space");
    std::ostringstream o;
    spaced.save_tsv(o);
    CHECK(o.str().starts_with(
        "#tokenlab-counts escaped normalizer=none+keep-whitespace pre-tokenizer=o200k/space\n"));
    std::istringstream i(o.str());
    const WordCounts back = WordCounts::load_tsv(i, "spaced.tsv");
    CHECK(back.entries()[0].word == " the\t");
    CHECK(back.settings() == "normalizer=none+keep-whitespace pre-tokenizer=o200k/space");
  }
  SECTION("merging counts made another way is an error naming both ways") {
    WordCounts other;
    other.add("the", 1);
    other.set_settings("normalizer=nfc pre-tokenizer=whitespace/none");
    WordCounts merged = loaded;
    CHECK_THROWS_WITH(merged.merge(other, "shard2.tsv"),
                      Catch::StartsWith("shard2.tsv: counted with normalizer=nfc "
                                        "pre-tokenizer=whitespace/none") &&
                          Catch::Contains("pre-tokenizer=unicode/prefix"));
  }
  SECTION("counts that record nothing (older files) take the recorded settings") {
    WordCounts old;
    old.add("\u2581a", 1);
    old.merge(loaded, "new.tsv");
    CHECK(old.settings() == loaded.settings());
  }
  CHECK_THROWS(counts.set_settings("a\tb"));
}

TEST_CASE("keyed counts give the sequential merge's table whatever order the blocks arrive in",
          "[word_counts][keyed]") {
  // Twelve blocks of a real-looking text, some words in many blocks, some in one.
  std::vector<WordCounts> blocks(12);
  std::uint64_t state = 7;
  const auto below = [&](std::size_t n) { return tokenlab::next_random(state) % n; };
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (int i = 0; i < 3000; ++i) {
      const std::size_t rank = below(1 + 400 * (b + 1));
      blocks[b].add("w" + std::to_string(rank * rank % 7919), 1 + rank % 3);
    }
  WordCounts sequential;
  for (const auto& block : blocks) sequential.merge(block);

  std::vector<std::size_t> order(blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[below(i + 1)]);
  tokenlab::KeyedCounts keyed;
  for (const std::size_t b : order) {
    const auto& entries = blocks[b].entries();
    for (std::size_t i = 0; i < entries.size(); ++i)
      keyed.add(entries[i].word, entries[i].count, tokenlab::occurrence_key(b, i));
  }
  CHECK(keyed.size() == sequential.size());
  std::vector<WordCounts::Entry> entries;
  for (auto& e : std::move(keyed).take_sorted()) entries.push_back({std::move(e.word), e.count});
  const WordCounts merged = WordCounts::from_entries(std::move(entries));
  CHECK(entries_of(merged) == entries_of(sequential));
  CHECK(merged.total() == sequential.total());
  CHECK(merged.count_of(sequential.entries().front().word) == sequential.entries().front().count);
}

TEST_CASE("a table built from entries refuses a word listed twice", "[word_counts][keyed]") {
  std::vector<WordCounts::Entry> entries{{"a", 1}, {"b", 2}, {"a", 3}};
  CHECK_THROWS_WITH(WordCounts::from_entries(entries), Catch::Contains("'a' twice"));
  entries.pop_back();
  const WordCounts counts = WordCounts::from_entries(entries);
  CHECK(counts.count_of("b") == 2);
  CHECK(counts.total() == 3);
}
