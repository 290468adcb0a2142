// The counting pass's per-worker word table (framework/text/src/block_table.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "block_table.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::WordCounts;
using tokenlab::detail::BlockTable;
using tokenlab::detail::CountedBlock;

namespace {

struct Counted {
  std::string word;
  std::uint64_t count;
  bool operator==(const Counted&) const = default;
};

std::vector<Counted> taken(BlockTable& table) {
  CountedBlock block;
  table.take(block);
  std::vector<Counted> out;
  for (const auto& w : block.words) {
    CHECK(w.hash == WordCounts::hash(w.word));  // what the merge relies on
    out.push_back({std::string(w.word), w.count});
  }
  return out;
}

}  // namespace

TEST_CASE("a word is one entry whether read with room after it or at the end of its text",
          "[counting][block_table]") {
  // Mid-line, a word of up to 16 bytes is read as two 8-byte loads past its end;
  // at a line's end it is copied first. Both must give the same key.
  const std::string letters = "abcdefghijklmnopqrstuvwxyz";
  for (const bool marker_after : {false, true}) {
    BlockTable table(marker_after);
    std::vector<Counted> expected;
    for (std::size_t n = 1; n <= 24; ++n) {
      const std::string line = letters.substr(0, n) + std::string(20, '#');
      const std::string_view mid(line.data(), n);
      const std::string at_end = letters.substr(0, n);
      for (const bool marked : {false, true}) {
        table.add_soon(mid, marked, line.size());
        table.flush();
        table.add_soon(at_end, marked, at_end.size());
        table.add(at_end, marked);  // the path of the other pre-tokenizers
        table.flush();
        const std::string shown = !marked ? at_end
                                          : (marker_after ? at_end + tokenlab::kBoundaryMarker
                                                          : tokenlab::kBoundaryMarker + at_end);
        expected.push_back({shown, 3});
      }
    }
    INFO("marker " << (marker_after ? "after" : "before"));
    CHECK(taken(table) == expected);
  }
}

TEST_CASE("a table reused after take forgets the last block's words, also in reused slots",
          "[counting][block_table]") {
  BlockTable table;
  for (int i = 0; i < 3000; ++i) table.add("word" + std::to_string(i));  // grows past 1024 slots
  const auto first = taken(table);
  REQUIRE(first.size() == 3000);
  CHECK(first.front() == Counted{"word0", 1});
  CHECK(first.back() == Counted{"word2999", 1});

  // Shorter words land on slots whose bytes still hold longer ones.
  const std::string text = "word1 word word12345678901234567 wor";
  table.add_soon(std::string_view(text).substr(0, 4), false, text.size());
  table.add_soon(std::string_view(text).substr(6, 4), true, text.size() - 6);
  table.add_soon(std::string_view(text).substr(11, 20), false, text.size() - 11);
  table.add_soon(std::string_view(text).substr(33, 3), false, 3);
  table.add_soon(std::string_view(text).substr(0, 4), false, text.size());
  table.flush();
  CHECK(taken(table) == std::vector<Counted>{{"word", 2},
                                             {tokenlab::kBoundaryMarker + std::string("word"), 1},
                                             {"word1234567890123456", 1},
                                             {"wor", 1}});
  CHECK(taken(table).empty());
}
