#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_options.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"
#include "tokenlab/wordpiece/wordpiece_vocab_txt.hpp"

using tokenlab::TokenId;
using tokenlab::TrainOptions;
using tokenlab::WordCounts;
using tokenlab::wordpiece::WordPieceSegmenter;
using tokenlab::wordpiece::testing::Options;

namespace {

// Lines of a vocab.txt; id = line number.
WordPieceSegmenter import_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  std::istringstream in(text);
  WordPieceSegmenter s;
  s.import_vocab_txt(in, "test-vocab.txt");
  return s;
}

std::vector<std::string> pieces_of(const WordPieceSegmenter& s, std::string_view word) {
  std::vector<TokenId> ids;
  s.encode(word, ids);
  std::vector<std::string> pieces;
  for (const TokenId id : ids) pieces.push_back(s.vocabulary().piece(id));
  return pieces;
}

std::vector<std::string> pieces_of_words(const WordPieceSegmenter& s,
                                         const std::vector<std::string>& words) {
  std::vector<std::string> pieces;
  for (const auto& w : words) {
    auto p = pieces_of(s, w);
    pieces.insert(pieces.end(), p.begin(), p.end());
  }
  return pieces;
}

// A small English-like corpus in prefix style.
WordCounts english_counts() {
  const char* text =
      "the quick brown fox jumps over the lazy dog while the lazier dogs sleep and "
      "foxes jump quickly over sleeping dogs the unaffable fox was unable to jump "
      "running runner runs ran unwanted wanted wanting affable able ably";
  WordCounts counts;
  std::istringstream in(text);
  std::string word;
  std::uint64_t state = 3;
  while (in >> word) counts.add("\u2581" + word, 1 + tokenlab::next_random(state) % 20);
  return counts;
}

std::string save_bytes(const WordPieceSegmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

}  // namespace

TEST_CASE("Encoding follows BERT's greedy longest match first", "[wordpiece][encode][bert]") {
  // The vocabulary of BERT's own WordpieceTokenizer test, plus the paper's example.
  const WordPieceSegmenter bert =
      import_lines({"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn",
                    "##ing", "##aff", "##able", "u", "##n", "ab", "a", "##bc"});
  const TokenId unk = 0;
  REQUIRE(bert.unknown_id() == unk);

  SECTION("unaffable -> un ##aff ##able") {
    CHECK(pieces_of(bert, "unaffable") == std::vector<std::string>{"un", "##aff", "##able"});
  }
  SECTION("BERT's test sentence") {
    CHECK(pieces_of_words(bert, {"unwanted", "running"}) ==
          std::vector<std::string>{"un", "##want", "##ed", "runn", "##ing"});
  }
  SECTION("the longest prefix wins over a shorter one that would also lead somewhere") {
    // "un" is taken although "u" + "##n" exists.
    CHECK(pieces_of(bert, "un") == std::vector<std::string>{"un"});
  }
  SECTION("an unmatchable position makes the whole word one [UNK]") {
    CHECK(pieces_of_words(bert, {"unwantedX", "running"}) ==
          std::vector<std::string>{"[UNK]", "runn", "##ing"});
    CHECK(pieces_of(bert, "xyz") == std::vector<std::string>{"[UNK]"});
    // Greedy matching never backtracks: "ab" then nothing for "c", although
    // "a" + "##bc" would have covered the word.
    CHECK(pieces_of(bert, "abc") == std::vector<std::string>{"[UNK]"});
  }
  SECTION("special tokens are never matched inside text") {
    CHECK(pieces_of(bert, "[CLS]") == std::vector<std::string>{"[UNK]"});
  }
  SECTION("the empty word encodes to nothing") {
    std::vector<TokenId> ids;
    bert.encode("", ids);
    CHECK(ids.empty());
  }
  SECTION("decode glues continuations and spaces words apart (bert_spacing)") {
    CHECK(bert.bert_spacing());
    std::vector<TokenId> ids;
    for (const char* w : {"unwanted", "running", "unaffable"}) bert.encode(w, ids);
    CHECK(bert.decode(ids) == "unwanted running unaffable");
  }
}

TEST_CASE("Words longer than max_input_chars_per_word are one unknown token",
          "[wordpiece][encode]") {
  SECTION("imported vocabulary: BERT's default of 100 code points") {
    const WordPieceSegmenter s = import_lines({"[UNK]", "\u00e9", "##\u00e9"});
    CHECK(s.max_input_chars_per_word() == 100);
    std::string word;
    for (int i = 0; i < 100; ++i) word += "\u00e9";  // 200 bytes, 100 code points
    std::vector<TokenId> ids;
    s.encode(word, ids);
    CHECK(ids.size() == 100);
    ids.clear();
    s.encode(word + "\u00e9", ids);
    CHECK(ids == std::vector<TokenId>{0});
  }
  SECTION("trained vocabulary with the option") {
    WordPieceSegmenter s;
    TrainOptions options = Options(60);
    options.extra["max_input_chars_per_word"] = "6";
    s.train(english_counts(), options, nullptr);
    CHECK(s.max_input_chars_per_word() == 6);
    CHECK(pieces_of(s, "\u2581jumps").size() >= 1);
    CHECK(pieces_of(s, "\u2581jumps").front() != "[UNK]");
    CHECK(pieces_of(s, "\u2581quickly") == std::vector<std::string>{"[UNK]"});
  }
}

TEST_CASE("A trained model decodes every known word back exactly",
          "[wordpiece][encode][roundtrip]") {
  const WordCounts counts = english_counts();
  const std::size_t vocab_size = GENERATE(40, 80, 200);
  CAPTURE(vocab_size);
  WordPieceSegmenter s;
  s.train(counts, Options(vocab_size), nullptr);
  CHECK_FALSE(s.bert_spacing());
  for (const auto& entry : counts.entries()) {
    std::vector<TokenId> ids;
    s.encode(entry.word, ids);
    CAPTURE(entry.word);
    REQUIRE(!ids.empty());
    for (const TokenId id : ids) CHECK(id < s.vocabulary().size());
    CHECK(s.decode(ids) == entry.word);
  }
  SECTION("unseen words made of known characters round-trip too") {
    for (const char* w : {"\u2581flowery", "\u2581zebra", "\u2581unrunnable"}) {
      std::vector<TokenId> ids;
      s.encode(w, ids);
      CAPTURE(w);
      const bool unknown = std::find(ids.begin(), ids.end(), *s.unknown_id()) != ids.end();
      if (!unknown) CHECK(s.decode(ids) == w);
    }
  }
  SECTION("words that start with the continuation prefix stay lossless") {
    WordCounts hashes;
    hashes.add("##tag", 5);
    hashes.add("#", 3);
    hashes.add("a##b", 2);
    WordPieceSegmenter h;
    h.train(hashes, Options(100).coverage(1.0), nullptr);
    for (const char* w : {"##tag", "#", "a##b", "###", "##"}) {
      std::vector<TokenId> ids;
      h.encode(w, ids);
      CAPTURE(w);
      CHECK(h.decode(ids) == w);
    }
  }
  SECTION("a word spelling a special token is not encoded as that token") {
    WordCounts specials;
    specials.add("[CLS]", 10);
    WordPieceSegmenter h;
    h.train(specials, Options(100).coverage(1.0), nullptr);
    std::vector<TokenId> ids;
    h.encode("[CLS]", ids);
    CHECK(ids.size() > 1);
    CHECK(h.decode(ids) == "[CLS]");
  }
}

TEST_CASE("Encoding is the same from many threads", "[wordpiece][encode][threads]") {
  const WordCounts counts = english_counts();
  WordPieceSegmenter s;
  s.train(counts, Options(80), nullptr);
  std::vector<std::vector<TokenId>> expected;
  for (const auto& e : counts.entries()) {
    expected.emplace_back();
    s.encode(e.word, expected.back());
  }
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      bool all = true;
      for (int round = 0; round < 50; ++round) {
        for (std::size_t i = 0; i < counts.size(); ++i) {
          std::vector<TokenId> ids;
          s.encode(counts.entries()[i].word, ids);
          all = all && ids == expected[i];
        }
      }
      ok[static_cast<std::size_t>(t)] = all ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == std::vector<int>(4, 1));
}

TEST_CASE("Save and load keep the model exactly", "[wordpiece][io]") {
  WordPieceSegmenter s;
  TrainOptions options = Options(90);
  options.extra["max_input_chars_per_word"] = "12";
  const WordCounts corpus = english_counts();
  s.train(corpus, options, nullptr);
  const std::string bytes = save_bytes(s);
  CHECK(save_bytes(s) == bytes);

  WordPieceSegmenter loaded;
  std::istringstream in(bytes);
  loaded.load(in);
  CHECK(loaded.vocabulary().pieces() == s.vocabulary().pieces());
  CHECK(loaded.vocabulary().special_count() == s.vocabulary().special_count());
  CHECK(loaded.vocabulary().unknown_id() == s.vocabulary().unknown_id());
  CHECK(loaded.max_input_chars_per_word() == 12);
  CHECK(save_bytes(loaded) == bytes);
  for (const auto& e : corpus.entries()) {
    std::vector<TokenId> a;
    std::vector<TokenId> b;
    s.encode(e.word, a);
    loaded.encode(e.word, b);
    CHECK(a == b);
  }

  SECTION("garbage and truncated input throw Error and keep the old model") {
    const std::string garbage[] = {"", "not a model at all", bytes.substr(0, bytes.size() / 2),
                                   bytes.substr(0, 40), std::string(200, '\xff')};
    for (const auto& g : garbage) {
      std::istringstream bad(g);
      CHECK_THROWS_AS(loaded.load(bad), tokenlab::Error);
      CHECK(save_bytes(loaded) == bytes);
    }
  }
  SECTION("an untrained segmenter refuses to encode or save") {
    WordPieceSegmenter empty;
    std::vector<TokenId> ids;
    CHECK_THROWS_AS(empty.encode("a", ids), tokenlab::Error);
    std::ostringstream out;
    CHECK_THROWS_AS(empty.save(out), tokenlab::Error);
  }
  SECTION("decode rejects ids outside the vocabulary") {
    const std::vector<TokenId> ids{static_cast<TokenId>(s.vocabulary().size())};
    CHECK_THROWS_AS(s.decode(ids), tokenlab::Error);
  }
}

TEST_CASE("vocab.txt export and import round-trip", "[wordpiece][vocab_txt]") {
  WordPieceSegmenter trained;
  const WordCounts corpus = english_counts();
  trained.train(corpus, Options(120), nullptr);
  std::ostringstream exported;
  trained.export_vocab_txt(exported);
  const std::string text = exported.str();
  CHECK(text.rfind("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", 0) == 0);
  CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) ==
        trained.vocabulary().size());

  WordPieceSegmenter imported;
  std::istringstream in(text);
  imported.import_vocab_txt(in, "exported.txt");
  CHECK(imported.vocabulary().pieces() == trained.vocabulary().pieces());
  CHECK(imported.vocabulary().special_count() == 5);
  CHECK(imported.vocabulary().unknown_id() == trained.vocabulary().unknown_id());
  // A vocabulary with boundary markers is tokenlab's own: no BERT spacing.
  CHECK_FALSE(imported.bert_spacing());
  for (const auto& e : corpus.entries()) {
    std::vector<TokenId> a;
    std::vector<TokenId> b;
    trained.encode(e.word, a);
    imported.encode(e.word, b);
    CHECK(a == b);
  }
  std::ostringstream again;
  imported.export_vocab_txt(again);
  CHECK(again.str() == text);

  SECTION("imported models save and load like trained ones") {
    const std::string bytes = save_bytes(imported);
    WordPieceSegmenter loaded;
    std::istringstream model(bytes);
    loaded.load(model);
    CHECK(save_bytes(loaded) == bytes);
  }
}

TEST_CASE("BERT vocab.txt import keeps every id", "[wordpiece][vocab_txt][bert]") {
  SECTION("bert-base layout: [PAD], unused slots, then [UNK] [CLS] [SEP] [MASK]") {
    std::vector<std::string> lines{"[PAD]"};
    for (int i = 0; i < 99; ++i) lines.push_back("[unused" + std::to_string(i) + "]");
    for (const char* t : {"[UNK]", "[CLS]", "[SEP]", "[MASK]", "!", "a", "##a", "the", "##s"})
      lines.push_back(t);
    const WordPieceSegmenter s = import_lines(lines);
    CHECK(s.vocabulary().size() == lines.size());
    for (std::size_t id = 0; id < lines.size(); ++id)
      CHECK(s.vocabulary().piece(static_cast<TokenId>(id)) == lines[id]);
    CHECK(s.vocabulary().special_count() == 104);
    CHECK(s.unknown_id() == TokenId{100});
    CHECK(s.vocabulary().unknown_id() == TokenId{100});
    CHECK(pieces_of(s, "thes") == std::vector<std::string>{"the", "##s"});
    CHECK(pieces_of(s, "aaa") == std::vector<std::string>{"a", "##a", "##a"});
  }
  SECTION("reserved tokens after ordinary ones keep their ids and are not matched") {
    const WordPieceSegmenter s = import_lines({"a", "##b", "[UNK]", "[X]", "ab"});
    CHECK(s.vocabulary().special_count() == 0);
    CHECK(s.unknown_id() == TokenId{2});
    CHECK(pieces_of(s, "ab") == std::vector<std::string>{"ab"});
    CHECK(pieces_of(s, "[X]") == std::vector<std::string>{"[UNK]"});
  }
  SECTION("BERT looks the first piece up in the whole vocabulary") {
    // As in BERT, a word may begin with a "##" piece when the text starts with "##".
    const WordPieceSegmenter s = import_lines({"[UNK]", "##a", "#"});
    CHECK(pieces_of(s, "##a") == std::vector<std::string>{"##a"});
  }
  SECTION("CRLF line ends and trailing empty lines are accepted") {
    std::istringstream in("[UNK]\r\nab\r\n##c\r\n\r\n\n");
    WordPieceSegmenter s;
    s.import_vocab_txt(in, "crlf.txt");
    CHECK(s.vocabulary().size() == 3);
    CHECK(pieces_of(s, "abc") == std::vector<std::string>{"ab", "##c"});
  }
  SECTION("malformed files are rejected with the file and line") {
    const auto [content, fragment] = GENERATE(table<std::string, std::string>({
        {"[UNK]\na\n\nb\n", "bad.txt:3"},
        {"[UNK]\na\na\n", "bad.txt:3"},
        {"a\nb\n", "no [UNK]"},
        {"[UNK]\n\xff\n", "bad.txt:2"},
        {"", "no tokens"},
    }));
    CAPTURE(content);
    std::istringstream in(content);
    WordPieceSegmenter s;
    try {
      s.import_vocab_txt(in, "bad.txt");
      FAIL("no error");
    } catch (const tokenlab::Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains(fragment));
    }
  }
}

TEST_CASE("Reserved-token detection matches BERT's conventions", "[wordpiece][vocab_txt]") {
  using tokenlab::wordpiece::is_reserved_token;
  for (const char* t : {"[PAD]", "[UNK]", "[unused17]", "<S>", "<unk>", "[MASK]"})
    CHECK(is_reserved_token(t));
  for (const char* t : {"[", "]", "[]", "<>", "a", "##a", "[a b]", "[##]"})
    CHECK_FALSE(is_reserved_token(t));
}

TEST_CASE("write_vocab_txt refuses tokens it could not read back", "[wordpiece][vocab_txt]") {
  std::ostringstream out;
  CHECK_THROWS_AS(tokenlab::wordpiece::write_vocab_txt(out, {"a", "b\nc"}), tokenlab::Error);
  CHECK_THROWS_AS(tokenlab::wordpiece::write_vocab_txt(out, {"a", ""}), tokenlab::Error);
}

TEST_CASE("import_model and export_model speak vocab.txt through the Segmenter interface",
          "[wordpiece][vocab_txt][interface]") {
  const std::string text = "[PAD]\n[UNK]\nun\n##aff\n##able\n";
  WordPieceSegmenter concrete;
  tokenlab::Segmenter& s = concrete;

  SECTION("format vocab.txt") {
    std::istringstream in(text);
    s.import_model(in, "vocab.txt", "mini.txt");
    CHECK(s.vocabulary().size() == 5);
    CHECK(pieces_of(concrete, "unaffable") == std::vector<std::string>{"un", "##aff", "##able"});
    std::ostringstream out;
    s.export_model(out, "vocab.txt");
    CHECK(out.str() == text);
  }
  SECTION("errors from the file name it") {
    std::istringstream in("a\n");
    try {
      s.import_model(in, "vocab.txt", "mini.txt");
      FAIL("no error");
    } catch (const tokenlab::Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("mini.txt"));
    }
  }
  SECTION("any other format is refused, naming it and the supported one") {
    const std::string format = GENERATE("tokenizer.json", "", "VOCAB.TXT", "vocab.txt ");
    CAPTURE(format);
    std::istringstream in(text);
    try {
      s.import_model(in, format, "mini.txt");
      FAIL("no error on import");
    } catch (const tokenlab::Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("'" + format + "'"));
      CHECK_THAT(std::string(e.what()), Catch::Contains("vocab.txt"));
    }
    std::istringstream good(text);
    s.import_model(good, "vocab.txt", "mini.txt");
    std::ostringstream out;
    try {
      s.export_model(out, format);
      FAIL("no error on export");
    } catch (const tokenlab::Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("'" + format + "'"));
      CHECK_THAT(std::string(e.what()), Catch::Contains("vocab.txt"));
    }
    CHECK(out.str().empty());
  }
}
