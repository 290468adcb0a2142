// A tokenizer.json read on two threads (read_tokenizer_json's threads; see
// hf/list_prefetch.hpp): a second thread inserts model.vocab and resolves
// model.merges while the parser reads on, and a BPE model's tables are built
// on two threads. A tiktoken file (read_tiktoken's threads): a second thread
// inserts the tokens a chunk at a time while the next are decoded. The
// tokenizer must be the one read on one thread, and every error the same,
// wherever in the stream the file goes wrong.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "base64.hpp"
#include "common/temp_files.hpp"
#include "pretrained_support.hpp"

using Catch::Matchers::Contains;
using tokenlab::PretrainedTokenizer;
using tokenlab::TokenId;
using tokenlab::test::error_of;
using tokenlab::test::Ids;
using tokenlab::test::tokenizer_json;

namespace {

// A BPE over "a".."z" and " " whose merges make every two- and three-letter
// token: 18,252 merges, more than four of the chunks of 4,096 the parser hands
// the second thread. Two-letter merges are "x y" strings, three-letter ones
// alternate strings and [left, right] pairs. tail goes after the last merge.
std::string letters_bpe(const std::string& merges_tail = "", const std::string& options = "") {
  std::string vocab = "{";
  std::string merges = "[";
  TokenId id = 0;
  const auto add = [&](const std::string& token) {
    vocab += "\"" + token + "\":" + std::to_string(id++) + ",";
  };
  for (char c = 'a'; c <= 'z'; ++c) add(std::string(1, c));
  add(" ");
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) {
      add({x, y});
      merges += "\"" + std::string{x} + " " + std::string{y} + "\",";
    }
  bool as_pair = false;
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y)
      for (char z = 'a'; z <= 'z'; ++z) {
        add({x, y, z});
        const std::string left{x, y};
        const std::string right{z};
        merges +=
            as_pair ? "[\"" + left + "\",\"" + right + "\"]," : "\"" + left + " " + right + "\",";
        as_pair = !as_pair;
      }
  vocab.back() = '}';
  if (merges_tail.empty())
    merges.back() = ']';
  else
    merges += merges_tail + "]";
  return R"({"version":"1.0","model":{"type":"BPE")" + options + R"(,"vocab":)" + vocab +
         R"(,"merges":)" + merges + "}}";
}

// Lines of letters and spaces, the same every run.
std::vector<std::string> letter_lines() {
  std::mt19937 random(7);
  std::vector<std::string> lines;
  for (int n = 0; n < 200; ++n) {
    std::string line;
    const int length = 1 + static_cast<int>(random() % 80);
    for (int i = 0; i < length; ++i) {
      const auto k = random() % 30;
      line += k >= 26 ? ' ' : static_cast<char>('a' + k);
    }
    lines.push_back(line);
  }
  return lines;
}

// The tokenizer read on two threads is the one read on one: its vocabulary,
// its model's merges, and the ids of every line.
void check_same_on_two_threads(const std::string& json) {
  const PretrainedTokenizer one = tokenizer_json(json, 1);
  const PretrainedTokenizer two = tokenizer_json(json, 2);
  REQUIRE(two.vocabulary_size() == one.vocabulary_size());
  for (TokenId id = 0; id < one.vocabulary_size(); ++id) REQUIRE(two.token(id) == one.token(id));
  const auto& a = one.pipeline().model;
  const auto& b = two.pipeline().model;
  CHECK(b->describe() == a->describe());
  CHECK(b->rules().merges == a->rules().merges);
  for (const std::string& line : letter_lines()) {
    CAPTURE(line);
    REQUIRE(two.encode(line) == one.encode(line));
  }
}

std::string error_on_both(const std::string& json) {
  const std::string serial = error_of([&] { (void)tokenizer_json(json, 1); });
  CHECK(error_of([&] { (void)tokenizer_json(json, 2); }) == serial);
  return serial;
}

// The "base64 rank" lines of a tiktoken rank file: every byte by its value,
// then every two-letter and every three-letter token of "a".."z" (18,508
// ranks, more than four of the chunks of 4,096 the second thread inserts).
std::vector<std::string> letters_rank_lines() {
  std::vector<std::string> lines;
  const auto add = [&](const std::string& token) {
    lines.push_back(tokenlab::test::base64(token) + " " + std::to_string(lines.size()));
  };
  for (int b = 0; b < 256; ++b) add(std::string(1, static_cast<char>(b)));
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) add({x, y});
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y)
      for (char z = 'a'; z <= 'z'; ++z) add({x, y, z});
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string file;
  for (const std::string& line : lines) file += line + "\n";
  return file;
}

PretrainedTokenizer rank_file(const std::string& content, unsigned threads) {
  return PretrainedTokenizer::from_bytes(content, "gpt2.tiktoken", "tiktoken:gpt2", threads);
}

std::string rank_file_error_on_both(const std::string& content) {
  const std::string serial = error_of([&] { (void)rank_file(content, 1); });
  CHECK(error_of([&] { (void)rank_file(content, 2); }) == serial);
  return serial;
}

// npm tiktoken's encoder JSON of the same ranks ("! 0" then every token).
std::string letters_encoder_json() {
  std::string ranks = "! 0";
  for (const std::string& line : letters_rank_lines())
    ranks += " " + line.substr(0, line.find(' '));
  return R"json({"pat_str":"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",)json"
         R"json("special_tokens":{"<|endoftext|>":50256},"bpe_ranks":")json" +
         ranks + R"("})";
}

// The tokenizer read on two threads is the one read on one: every token, and
// the ids of every line.
void check_same_tiktoken(const PretrainedTokenizer& one, const PretrainedTokenizer& two) {
  REQUIRE(two.vocabulary_size() == one.vocabulary_size());
  for (TokenId id = 0; id < one.vocabulary_size(); ++id) REQUIRE(two.token(id) == one.token(id));
  for (const std::string& line : letter_lines()) {
    CAPTURE(line);
    REQUIRE(two.encode(line) == one.encode(line));
  }
}

}  // namespace

TEST_CASE("a tokenizer.json read on two threads is the one read on one",
          "[pretrained][tokenizer.json][threads]") {
  const std::string plain = letters_bpe();
  check_same_on_two_threads(plain);
  // Merges are taken whole from the second thread: the line's ids come from them.
  // "abc" is 703 + 0 * 676 + 1 * 26 + 2, " " 26, "ab" 27 + 0 * 26 + 1.
  CHECK(tokenizer_json(plain, 2).encode("abc ab") == std::vector<TokenId>{731, 26, 28});
  // A byte fallback, an unknown token, ignore_merges: options read after the
  // lists were taken up, applied the same way.
  check_same_on_two_threads(letters_bpe("", R"(,"unk_token":"a","fuse_unk":true)"));
  check_same_on_two_threads(letters_bpe("", R"(,"ignore_merges":true)"));
  // A continuing prefix changes what a merge makes: the reader resolves the
  // merges itself then, with the prefix.
  const std::string prefixed = R"({"model":{"type":"BPE","continuing_subword_prefix":"##",)"
                               R"("vocab":{"a":0,"b":1,"##b":2,"ab":3},"merges":["a ##b"]}})";
  CHECK(tokenizer_json(prefixed, 2).pipeline().model->rules().merges ==
        tokenizer_json(prefixed, 1).pipeline().model->rules().merges);
  // The lists in the other order (merges first), and WordLevel and WordPiece
  // vocabularies, which the second thread inserts too.
  check_same_on_two_threads(
      R"({"model":{"type":"BPE","merges":["a b"],"vocab":{"a":0,"b":1,"ab":2}}})");
  const std::string word_level =
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"ab":1},"unk_token":"[UNK]"},)"
      R"("pre_tokenizer":{"type":"Whitespace"}})";
  CHECK(tokenizer_json(word_level, 2).encode("ab x ab") ==
        tokenizer_json(word_level, 1).encode("ab x ab"));
  const std::string word_piece =
      R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1,"##b":2},"unk_token":"[UNK]",)"
      R"("continuing_subword_prefix":"##","max_input_chars_per_word":100},)"
      R"("pre_tokenizer":{"type":"Whitespace"}})";
  CHECK(tokenizer_json(word_piece, 2).encode("ab x") ==
        tokenizer_json(word_piece, 1).encode("ab x"));
}

TEST_CASE("a list that outgrows its room is finished on the parser's thread",
          "[pretrained][tokenizer.json][threads]") {
  // The merges are reserved room for a sixteenth of the file's bytes in
  // entries; "a b" entries of six bytes overflow it, and the list moves while
  // the second thread would read it: it lets go first.
  std::string merges = "[";
  for (int i = 0; i < 20000; ++i) merges += "\"a b\",";
  merges.back() = ']';
  check_same_on_two_threads(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":)" +
                            merges + "}}");
}

TEST_CASE("a vocabulary taken up while it is parsed is the one read whole",
          "[pretrained][tokenizer.json][threads]") {
  // The second thread inserts model.vocab in chunks of 4,096 rows as the
  // parser appends them. letters_bpe's 18,279 tokens are five chunks.
  check_same_on_two_threads(letters_bpe());
  // Rows of ten bytes overflow the room reserved for the vocabulary (a
  // sixteenth of the file's bytes in rows): the list moves mid-vocabulary,
  // after the second thread has taken chunks of it, and it lets go first.
  std::string vocab = R"({"a":0,"b":1,"ab":2)";
  for (int i = 3; i < 30000; ++i) vocab += ",\"" + std::to_string(i) + "\":" + std::to_string(i);
  const std::string json = R"({"model":{"type":"BPE","vocab":)" + vocab + R"(},"merges":["a b"]}})";
  check_same_on_two_threads(json);
  CHECK(tokenizer_json(json, 2).encode("ab 29999") == tokenizer_json(json, 1).encode("ab 29999"));
}

TEST_CASE("a large file read in two halves at once is the file read whole",
          "[pretrained][tokenizer.json][threads]") {
  // From 8 MiB on, load() on two threads reads the file's two halves on two
  // threads (meeting at a 2 MiB edge): a tokenizer.json padded to 9 MiB
  // with white space, whose vocabulary straddles the middle.
  std::string json = letters_bpe();
  const std::size_t vocab = json.find("\"vocab\":");
  json.insert(vocab, std::string((std::size_t{9} << 20) / 2, ' '));
  json += std::string((std::size_t{9} << 20) / 2, '\n');
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "tokenizer.json", json);
  const PretrainedTokenizer one = PretrainedTokenizer::load(dir / "tokenizer.json", "auto", 1);
  const PretrainedTokenizer two = PretrainedTokenizer::load(dir / "tokenizer.json", "auto", 2);
  REQUIRE(two.vocabulary_size() == one.vocabulary_size());
  for (TokenId id = 0; id < one.vocabulary_size(); ++id) REQUIRE(two.token(id) == one.token(id));
  for (const std::string& line : letter_lines()) REQUIRE(two.encode(line) == one.encode(line));
}

TEST_CASE("an error deep in a streamed list is the same on two threads",
          "[pretrained][tokenizer.json][threads][errors]") {
  // 18,252 good merges first: the second thread has taken up most of them
  // when the parser (or the second thread itself) meets the bad one.
  CHECK_THAT(error_on_both(letters_bpe(R"("a ?")")),
             Contains("tokenizer.json: model.merges[18252]: \"?\" is not in the vocabulary"));
  CHECK_THAT(error_on_both(letters_bpe(R"("ab")")),
             Contains("tokenizer.json: model.merges[18252]: expected \"left right\" (two tokens "
                      "and one space), found \"ab\""));
  CHECK_THAT(error_on_both(letters_bpe(R"("abc z")")),
             Contains("model.merges[18252]: the merged token \"abcz\" is not in the vocabulary"));
  // Another shape: the list is handed back to the document mid-stream.
  CHECK_THAT(error_on_both(letters_bpe("7")),
             Contains("tokenizer.json: model.merges[18252]: expected \"left right\" or "
                      "[left, right], found a number"));
  // Malformed JSON while the second thread is busy.
  std::string cut = letters_bpe();
  cut.resize(cut.size() - 40);
  CHECK_THAT(error_on_both(cut), Contains("malformed JSON"));
  // A vocabulary clash: the second thread stops, the reader names it.
  std::string clash = letters_bpe();
  clash.replace(clash.find("\"zzz\":"), 6, "\"zzy\":");
  CHECK_THAT(error_on_both(clash), Contains("model.vocab.\"zzy\": token \"zzy\" has two ids"));
  // An id given twice early in the vocabulary, while its first chunks stream.
  std::string twice = letters_bpe();
  twice.replace(twice.find("\"ab\":28,"), 7, "\"ab\":27");  // "aa"'s id
  CHECK_THAT(error_on_both(twice),
             Contains(R"(model.vocab."ab": id 27 is given to two tokens, "aa" and "ab")"));
  // A vocabulary handed back to the document after chunks of it were taken
  // up: an id the fast path does not take.
  std::string handed_back = letters_bpe();
  handed_back.replace(handed_back.find("\"zzz\":18278"), 11, "\"zzz\":-1");
  CHECK_THAT(error_on_both(handed_back),
             Contains(R"(model.vocab."zzz": expected a non-negative integer, found a number)"));
  // A dropout the reader refuses, after every merge was resolved.
  CHECK_THAT(error_on_both(letters_bpe("", R"(,"dropout":0.5)")), Contains("BPE-dropout"));
}

TEST_CASE("a tiktoken file read on two threads is the one read on one",
          "[pretrained][tiktoken][threads]") {
  const std::string file = joined(letters_rank_lines());
  const PretrainedTokenizer one = rank_file(file, 1);
  const PretrainedTokenizer two = rank_file(file, 2);
  check_same_tiktoken(one, two);
  // Three-letter tokens merged from the last chunks' ranks.
  CHECK(two.encode("zzz") == Ids{18507});
  CHECK(two.encode("abc abc") == Ids{256 + 676 + 28, 32, 256 + 676 + 28});
  // A token longer than a chunk's buffer of decoded bytes (64 KiB), between
  // the others: the chunk before it is handed over, and it gets room of its own.
  std::vector<std::string> lines = letters_rank_lines();
  const std::string long_token(100000, 'q');
  lines.insert(lines.begin() + 10000, tokenlab::test::base64(long_token) + " 18508");
  const PretrainedTokenizer long_one = rank_file(joined(lines), 1);
  const PretrainedTokenizer long_two = rank_file(joined(lines), 2);
  check_same_tiktoken(long_one, long_two);
  CHECK(long_two.token(18508) == long_token);
  CHECK(long_two.token(10000) == one.token(10000));
  const std::string json = letters_encoder_json();
  const auto json_one = PretrainedTokenizer::from_bytes(json, "gpt2.json", "auto", 1);
  const auto json_two = PretrainedTokenizer::from_bytes(json, "gpt2.json", "auto", 2);
  check_same_tiktoken(json_one, json_two);
  for (const std::string& line : letter_lines()) REQUIRE(json_two.encode(line) == one.encode(line));
}

TEST_CASE("an error deep in a tiktoken file is the same on two threads",
          "[pretrained][tiktoken][threads][errors]") {
  // A rank given twice in the last chunk: the second thread gives up, and the
  // file is read again on one thread, which names the line.
  std::vector<std::string> lines = letters_rank_lines();
  lines[18000] = tokenlab::test::base64("ab") + " 18000";
  CHECK_THAT(rank_file_error_on_both(joined(lines)),
             Contains("gpt2.tiktoken: line 18001: token \"ab\" has two ids, 257 and 18000"));
  lines = letters_rank_lines();
  lines[18000] = lines[18000].substr(0, lines[18000].find(' ')) + " 300";
  CHECK_THAT(rank_file_error_on_both(joined(lines)),
             Contains("gpt2.tiktoken: line 18001: rank 300 is given twice"));
  // Bad base64 on the parser's thread while the second is still inserting.
  lines = letters_rank_lines();
  lines[17000] = "a@U= 17000";
  CHECK_THAT(rank_file_error_on_both(joined(lines)),
             Contains("gpt2.tiktoken: line 17001: \"a@U=\" is not base64"));
  // Both: the clash comes first in the file, so it is the error.
  lines[9000] = tokenlab::test::base64("ab") + " 9000";
  CHECK_THAT(rank_file_error_on_both(joined(lines)),
             Contains("gpt2.tiktoken: line 9001: token \"ab\" has two ids, 257 and 9000"));
  // A clash in the first chunk, found while the parser is far ahead.
  lines = letters_rank_lines();
  lines[300] = lines[299];
  CHECK_THAT(rank_file_error_on_both(joined(lines)), Contains("gpt2.tiktoken: line 301:"));
}
