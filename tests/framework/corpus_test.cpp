// CorpusReader and HeldOutSplit: streaming corpus lines safely and splitting them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/error.hpp"

using tokenlab::CorpusBlock;
using tokenlab::CorpusOptions;
using tokenlab::CorpusRange;
using tokenlab::CorpusReader;
using tokenlab::Error;
using tokenlab::HeldOutSplit;
using tokenlab::InvalidUtf8Policy;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

struct ReadResult {
  std::vector<std::string> lines;
  std::vector<CorpusBlock> blocks;  // lines moved out; file, first_line and bytes kept
};

ReadResult read_all(std::vector<std::string> files, CorpusOptions options = {}) {
  CorpusReader reader(std::move(files), options);
  ReadResult result;
  CorpusBlock block;
  while (reader.next_block(block)) {
    for (auto& line : block.lines) result.lines.emplace_back(line);
    CorpusBlock meta;
    meta.file = block.file;
    meta.first_line = block.first_line;
    meta.bytes = block.bytes;
    meta.lines.resize(block.lines.size());
    result.blocks.push_back(std::move(meta));
  }
  return result;
}

std::vector<std::string> read_range(const CorpusRange& range, CorpusOptions options = {}) {
  options.allow_empty = true;
  CorpusReader reader = CorpusReader::of_range(range, options);
  std::vector<std::string> lines;
  CorpusBlock block;
  while (reader.next_block(block))
    for (auto& line : block.lines) lines.emplace_back(line);
  return lines;
}

std::string error_of(std::vector<std::string> files, CorpusOptions options = {}) {
  try {
    read_all(std::move(files), options);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("reading the corpus did not throw tokenlab::Error");
  return {};
}

const std::vector<std::string> kSample = {"First line.", "Second line, with \u00E9.", "",
                                          "Fourth \u0928\u092E."};

std::string sample_text() {
  std::string text;
  for (const auto& l : kSample) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("plain, gzip and xz files give the same lines", "[corpus]") {
  TempDir dir;
  write_bytes(dir / "sample.txt", sample_text());
  using tokenlab::test::quoted;
  using tokenlab::test::shell;
  shell("gzip -c " + quoted(dir / "sample.txt") + " > " + quoted(dir / "sample.txt.gz"));
  shell("xz -c " + quoted(dir / "sample.txt") + " > " + quoted(dir / "sample.txt.xz"));
  const std::string name =
      GENERATE(as<std::string>{}, "sample.txt", "sample.txt.gz", "sample.txt.xz");
  INFO(name);
  const auto result = read_all({(dir / name).string()});
  CHECK(result.lines == kSample);
}

TEST_CASE("the size hint is known before reading: plain sizes, 4x compressed, a range's span",
          "[corpus]") {
  // Counting sizes its word list by it (an estimate: room never filled costs
  // address space only), so it must not need the corpus read first.
  TempDir dir;
  write_bytes(dir / "sample.txt", sample_text());
  write_bytes(dir / "other.txt", "one more line\n");
  using tokenlab::test::quoted;
  using tokenlab::test::shell;
  shell("xz -c " + quoted(dir / "sample.txt") + " > " + quoted(dir / "sample.txt.xz"));
  shell("gzip -c " + quoted(dir / "sample.txt") + " > " + quoted(dir / "sample.txt.gz"));
  const std::uint64_t plain = sample_text().size();
  const std::uint64_t xz = std::filesystem::file_size(dir / "sample.txt.xz");
  const std::uint64_t gz = std::filesystem::file_size(dir / "sample.txt.gz");
  const auto path = [&](const char* name) { return (dir / name).string(); };
  CHECK(CorpusReader({path("sample.txt")}).size_hint() == plain);
  CHECK(CorpusReader({path("sample.txt"), path("other.txt")}).size_hint() == plain + 14);
  CHECK(CorpusReader({path("sample.txt.xz")}).size_hint() == 4 * xz);
  CHECK(CorpusReader({path("sample.txt.gz"), path("sample.txt")}).size_hint() == 4 * gz + plain);
  CHECK(CorpusReader({"-"}).size_hint() == 0);  // standard input: not read here
  CHECK(CorpusReader::of_range(CorpusRange{path("sample.txt"), 5, 12}, {}).size_hint() == 7);
  CHECK(CorpusReader::of_range(CorpusRange{path("sample.txt"), 5}, {}).size_hint() == plain - 5);
  CHECK(CorpusReader::of_range(CorpusRange{path("sample.txt"), plain + 10}, {}).size_hint() == 0);
  // Reading does not change it.
  CorpusReader reader({path("sample.txt")});
  CorpusBlock block;
  while (reader.next_block(block)) {
  }
  CHECK(reader.size_hint() == plain);
}

TEST_CASE("CRLF line ends and a missing final newline are handled", "[corpus]") {
  TempDir dir;
  write_bytes(dir / "crlf.txt", "one\r\ntwo\r\n\r\nlast without newline");
  CHECK(read_all({(dir / "crlf.txt").string()}).lines ==
        std::vector<std::string>{"one", "two", "", "last without newline"});
}

TEST_CASE("lines arrive in order, in blocks that never span two files", "[corpus]") {
  TempDir dir;
  // File a is larger than the reader's 1 MiB read buffer, so it takes several blocks.
  std::string a;
  std::string b;
  std::vector<std::string> expected;
  for (int i = 0; i < 60000; ++i) {
    std::string line = "line " + std::to_string(i) + " of file a, padded to some length";
    a += line + "\n";
    expected.push_back(std::move(line));
  }
  for (int i = 0; i < 50; ++i) {
    std::string line = "line " + std::to_string(i) + " of file b";
    b += line + "\n";
    expected.push_back(std::move(line));
  }
  write_bytes(dir / "a.txt", a);
  write_bytes(dir / "b.txt", b);
  const auto result =
      read_all({(dir / "a.txt").string(), (dir / "b.txt").string()}, {.block_bytes = 256 << 10});
  CHECK(result.lines == expected);
  CHECK(result.blocks.size() >= 3);
  std::uint64_t next_line_a = 1;
  std::uint64_t next_line_b = 1;
  for (const auto& block : result.blocks) {
    INFO("block of " << block.file << " from line " << block.first_line);
    const bool in_a = block.file == (dir / "a.txt").string();
    CHECK((in_a || block.file == (dir / "b.txt").string()));
    std::uint64_t& next = in_a ? next_line_a : next_line_b;
    CHECK(block.first_line == next);
    next += block.lines.size();
  }
  CHECK(next_line_a == 60001);
  CHECK(next_line_b == 51);
}

// CorpusOptions::block_bytes promises "approximate bytes of text per block": a
// block may overshoot by at most the line that crosses the limit.
TEST_CASE("a block holds about block_bytes of text, even when that is small", "[corpus]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "line " + std::to_string(i) + " of a small corpus\n";
  write_bytes(dir / "small.txt", text);
  const auto result = read_all({(dir / "small.txt").string()}, {.block_bytes = 1024});
  CHECK(result.blocks.size() >= 10);
  for (const auto& block : result.blocks) CHECK(block.bytes <= 1024 + 64);
}

TEST_CASE("invalid UTF-8 follows the policy: error, replace or skip", "[corpus]") {
  TempDir dir;
  const auto file = (dir / "bad.txt").string();
  write_bytes(file, "good line\nalso good\nab\xC3(cd\nafter\n");

  SECTION("error names the file, the line and the byte offset") {
    const std::string message = error_of({file});
    CHECK_THAT(message, Catch::Contains(file + ":3:"));
    CHECK_THAT(message, Catch::Contains("invalid UTF-8"));
    CHECK_THAT(message, Catch::Contains("byte offset 2"));
    CHECK(message.find('\n') == std::string::npos);
  }
  SECTION("replace puts U+FFFD in place of the bad bytes and keeps the rest") {
    CHECK(read_all({file}, {.invalid_utf8 = InvalidUtf8Policy::replace}).lines ==
          std::vector<std::string>{"good line", "also good", "ab\uFFFD(cd", "after"});
  }
  SECTION("skip drops the line but keeps the numbering of the following ones") {
    CHECK(read_all({file}, {.invalid_utf8 = InvalidUtf8Policy::skip}).lines ==
          std::vector<std::string>{"good line", "also good", "", "after"});
  }
  SECTION("the policy names parse, and anything else is refused") {
    CHECK(tokenlab::parse_invalid_utf8_policy("error") == InvalidUtf8Policy::error);
    CHECK(tokenlab::parse_invalid_utf8_policy("replace") == InvalidUtf8Policy::replace);
    CHECK(tokenlab::parse_invalid_utf8_policy("skip") == InvalidUtf8Policy::skip);
    CHECK_THROWS_WITH(tokenlab::parse_invalid_utf8_policy("ignore"),
                      Catch::Contains("error|replace|skip"));
  }
}

TEST_CASE("a binary file with NUL bytes is refused, naming file and line", "[corpus]") {
  TempDir dir;
  const auto file = (dir / "image.bin").string();
  // The start of an ELF executable: valid ASCII up to the first NUL at byte 7.
  write_bytes(file, std::string("header\n\x7F"
                                "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0",
                                27));
  const std::string message = error_of({file});
  CHECK_THAT(message, Catch::Contains(file + ":2:"));
  CHECK_THAT(message, Catch::Contains("NUL") && Catch::Contains("byte offset 7"));
}

TEST_CASE("unusable corpora fail with a clear error", "[corpus]") {
  TempDir dir;
  SECTION("an empty file") {
    write_bytes(dir / "empty.txt", "");
    CHECK_THAT(error_of({(dir / "empty.txt").string()}), Catch::Contains("empty"));
  }
  SECTION("a file of blank lines only") {
    write_bytes(dir / "blank.txt", "\n\n\r\n\n");
    CHECK_THAT(error_of({(dir / "blank.txt").string()}), Catch::Contains("empty"));
  }
  SECTION("a missing file, before anything is read") {
    const auto missing = (dir / "missing.txt").string();
    CHECK_THROWS_WITH(CorpusReader({missing}),
                      Catch::Contains(missing) && Catch::Contains("no such file"));
  }
  SECTION("a directory") {
    CHECK_THROWS_WITH(CorpusReader({dir.path().string()}),
                      Catch::Contains(dir.path().string()) && Catch::Contains("directory"));
  }
  SECTION("no file at all") {
    CHECK_THROWS_AS(CorpusReader(std::vector<std::string>{}), Error);
  }
}

TEST_CASE("byte ranges that tile a file give each line to exactly one range", "[corpus][range]") {
  TempDir dir;
  const auto file = (dir / "text.txt").string();
  // Empty lines, a CRLF, a long line, a final line without its newline.
  const std::string text = "First line.\n\nThird, with \u00E9.\r\n" + std::string(40, 'x') +
                           "\nDevanagari \u0928\u092E\n\nend";
  write_bytes(file, text);
  const std::vector<std::string> whole = read_all({file}).lines;
  for (std::uint64_t cut = 0; cut <= text.size() + 1; ++cut) {
    INFO("cut at byte " << cut);
    std::vector<std::string> joined = read_range(CorpusRange{file, 0, cut});
    for (auto& line : read_range(CorpusRange{file, cut})) joined.push_back(line);
    CHECK(joined == whole);
  }
  // Three ranges, cut inside a line, at a line start and just after a newline.
  std::vector<std::string> joined;
  for (const auto& [begin, end] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 5}, {5, 13}, {13, 200}})
    for (auto& line : read_range(CorpusRange{file, begin, end})) joined.push_back(line);
  CHECK(joined == whole);
}

TEST_CASE("a range names the line in the whole file, and refuses what cannot be cut",
          "[corpus][range]") {
  TempDir dir;
  const auto file = (dir / "bad.txt").string();
  write_bytes(file, "one\ntwo\nthree\nfour \xC3\x28 bad\nfive\n");
  try {
    read_range(CorpusRange{file, 8});  // starts at "three", the third line
    FAIL("invalid UTF-8 in a range was accepted");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains(file + ":4:") && Catch::Contains("invalid UTF-8"));
  }
  CHECK(read_range(CorpusRange{file, 5, 8}).empty());  // a range in which no line starts
  CHECK_THROWS_WITH(CorpusReader::of_range(CorpusRange{file, 3, 2}, {}),
                    Catch::Contains("ends before"));
  write_bytes(dir / "text.txt.gz", "");
  CHECK_THROWS_WITH(CorpusReader::of_range(CorpusRange{(dir / "text.txt.gz").string(), 10}, {}),
                    Catch::Contains("compressed") && Catch::Contains("whole"));
}

TEST_CASE("the held-out split is deterministic and keeps roughly the requested share",
          "[corpus][split]") {
  std::vector<std::string> lines;
  for (int i = 0; i < 10000; ++i)
    lines.push_back("sentence number " + std::to_string(i) + " of the corpus");

  SECTION("10% held out") {
    const HeldOutSplit split(0.1);
    const HeldOutSplit again(0.1);
    int held_out = 0;
    for (const auto& line : lines) {
      held_out += split.is_held_out(line);
      REQUIRE(split.is_held_out(line) == again.is_held_out(line));
    }
    CHECK(held_out > 850);
    CHECK(held_out < 1150);
  }
  SECTION("a larger fraction holds out a superset of the lines of a smaller one") {
    const HeldOutSplit small(0.05);
    const HeldOutSplit large(0.3);
    for (const auto& line : lines)
      if (small.is_held_out(line)) REQUIRE(large.is_held_out(line));
  }
  SECTION("0 keeps every line for training") {
    const HeldOutSplit none(0.0);
    for (const auto& line : lines) REQUIRE_FALSE(none.is_held_out(line));
  }
  SECTION("fractions outside [0, 1) are refused") {
    CHECK_THROWS_AS(HeldOutSplit(1.0), Error);
    CHECK_THROWS_AS(HeldOutSplit(-0.1), Error);
  }
  SECTION("the split depends on the line only, through a stable hash") {
    CHECK(tokenlab::stable_hash("abc") == tokenlab::stable_hash(std::string("abc")));
    CHECK(tokenlab::stable_hash("abc") != tokenlab::stable_hash("abd"));
  }
}
