// Bad input: every reader fails with a tokenlab::Error naming the file and the
// place (JSON path, line, byte offset) and what is wrong there.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "common/temp_files.hpp"
#include "pretrained_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using tokenlab::PretrainedTokenizer;
using tokenlab::test::error_of;
using tokenlab::test::Ids;
using tokenlab::test::tokenizer_json;

namespace {

// The message, the same whether the file is read on one thread or on two
// (where a second thread takes up the vocabulary and merges as they stream).
std::string json_error(const std::string& json) {
  const std::string serial = error_of([&] { (void)tokenizer_json(json, 1); });
  CHECK(error_of([&] { (void)tokenizer_json(json, 2); }) == serial);
  return serial;
}

const std::string kWordLevel =
    R"("model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"[UNK]"})";

std::string base64_byte(int b) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  return std::string{kAlphabet[b >> 2], kAlphabet[(b & 3) << 4], '=', '='};
}

// The 256 single-byte lines of a rank file, rank = byte.
std::string byte_ranks() {
  std::string file;
  for (int b = 0; b < 256; ++b) file += base64_byte(b) + " " + std::to_string(b) + "\n";
  return file;
}

std::string rank_file_error(const std::string& content) {
  return error_of(
      [&] { (void)PretrainedTokenizer::from_bytes(content, "gpt2.tiktoken", "tiktoken:gpt2"); });
}

std::string model_bytes(const std::string& name) {
  return tokenlab::test::read_bytes(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) / "pretrained" /
                                    (name + ".model"));
}

std::string spm_error(const std::string& content) {
  return error_of(
      [&] { (void)PretrainedTokenizer::from_bytes(content, "bad.model", "sentencepiece"); });
}

}  // namespace

// ---- tokenizer.json ------------------------------------------------------------

TEST_CASE("malformed JSON names the line and byte offset", "[pretrained][errors]") {
  const std::string message = json_error("{\"model\": {\"type\": \"WordLevel\",\n\"vocab\": {,}}}");
  CHECK_THAT(message, StartsWith("tokenizer.json: line 2 (byte 42): malformed JSON"));
  CHECK_THAT(json_error("[1, 2]"),
             Contains("tokenizer.json: the document: expected a JSON object"));
  CHECK_THAT(json_error(""), StartsWith("tokenizer.json: line 1 (byte 0): malformed JSON"));
}

TEST_CASE("malformed JSON after many lines and \\n escapes names the line of the file",
          "[pretrained][errors]") {
  // Lines of 1 to 20 bytes, so that line ends fall at every offset of an
  // 8-byte word; the "\\n" escapes, decoded in place, are no line ends.
  std::string json = "{\"x\": \"a\\nb\\nc\",\n";
  for (int line = 2; line <= 40; ++line)
    json += "\"k" + std::to_string(line) +
            "\":" + std::string(static_cast<std::size_t>(line % 20), ' ') + "1,\n";
  const std::size_t offset = json.size();
  json += "}";  // a name expected after the last comma
  CHECK_THAT(json_error(json), StartsWith("tokenizer.json: line 41 (byte " +
                                          std::to_string(offset) + "): malformed JSON"));
}

TEST_CASE("a value of the wrong type names its JSON path and both types", "[pretrained][errors]") {
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":[],"unk_token":"a"}})"),
             Contains("tokenizer.json: model.vocab: expected an object of token: id, found an "
                      "array"));
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":{"a":"0"},"unk_token":"a"}})"),
             Contains(R"(tokenizer.json: model.vocab."a": expected a non-negative integer, found )"
                      R"(a string)"));
  CHECK_THAT(json_error(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[7]}})"),
             Contains("tokenizer.json: model.merges[0]: expected \"left right\" or [left, right], "
                      "found a number"));
  CHECK_THAT(json_error(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a b c"]}})"),
             Contains("tokenizer.json: model.merges[0]: expected \"left right\""));
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"pre_tokenizer":{"type":"Digits","individual_digits":"yes"}})"),
             Contains("tokenizer.json: pre_tokenizer.individual_digits: expected true or false, "
                      "found a string"));
  CHECK_THAT(json_error(R"({"model":{"type":"Unigram","vocab":[["a"]]}})"),
             Contains("tokenizer.json: model.vocab[0]: expected [token, score]"));
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"pre_tokenizer":{"type":"Metaspace","replacement":"ab"}})"),
             Contains("tokenizer.json: pre_tokenizer.replacement: expected a single character, "
                      "found \"ab\""));
  CHECK_THAT(json_error(R"({"version":"1.0"})"),
             Contains("tokenizer.json: the document: the member \"model\" is missing"));
}

TEST_CASE("a vocab or merges entry of another shape after many good ones is named where it is",
          "[pretrained][errors]") {
  // The first 1,000 entries are gathered as the parser streams them; the bad
  // one makes the reader hand them back to the document, which then names it.
  std::string vocab = R"("vocab":{)";
  std::string merges = R"("merges":[)";
  for (int i = 0; i < 1000; ++i) {
    vocab += "\"t" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    merges += i % 2 == 0 ? R"("t0 t1",)" : R"(["t0","t1"],)";
  }
  const auto bpe = [&](const std::string& vocab_end, const std::string& merges_end) {
    return json_error(R"({"model":{"type":"BPE",)" + vocab + vocab_end + "," + merges + merges_end +
                      "}}");
  };
  const std::string good_vocab = R"("t0t1":1000})";
  CHECK_THAT(bpe(R"("x":"1000"})", R"("t0 t1"])"),
             Contains(R"(tokenizer.json: model.vocab."x": expected a non-negative integer, found )"
                      R"(a string)"));
  CHECK_THAT(bpe(R"("x":-1})", R"("t0 t1"])"),
             Contains(R"(model.vocab."x": expected a non-negative integer, found a number)"));
  CHECK_THAT(bpe(R"("x":16777216})", R"("t0 t1"])"),
             Contains(R"(model.vocab."x": id 16777216 is too large)"));
  CHECK_THAT(bpe(R"("x":[1]})", R"("t0 t1"])"),
             Contains(R"(model.vocab."x": expected a non-negative integer, found an array)"));
  CHECK_THAT(bpe(good_vocab, "7]"),
             Contains("tokenizer.json: model.merges[1000]: expected \"left right\" or "
                      "[left, right], found a number"));
  CHECK_THAT(bpe(good_vocab, R"(["t0","t1","t0"]])"),
             Contains("tokenizer.json: model.merges[1000]: expected a pair of tokens"));
  CHECK_THAT(bpe(good_vocab, R"(["t0",1]])"),
             Contains("tokenizer.json: model.merges[1000][1]: expected a string, found a number"));
  CHECK_THAT(bpe(good_vocab, R"(["t0"]])"),
             Contains("tokenizer.json: model.merges[1000]: expected a pair of tokens"));
  CHECK_THAT(bpe(good_vocab, R"({"t0":"t1"}])"),
             Contains("tokenizer.json: model.merges[1000]: expected \"left right\" or "
                      "[left, right], found an object"));
  CHECK_THAT(bpe(good_vocab, R"("t0t1"])"),
             Contains("tokenizer.json: model.merges[1000]: expected \"left right\" (two tokens "
                      "and one space), found \"t0t1\""));
  CHECK_THAT(bpe(good_vocab, R"("t0 x"])"),
             Contains("tokenizer.json: model.merges[1000]: \"x\" is not in the vocabulary"));
  CHECK_THAT(bpe(R"("t5":1000})", R"("t0 t1"])"),
             Contains(R"(tokenizer.json: model.vocab."t5": token "t5" has two ids, 5 and 1000)"));
  // A second vocab member is a name given twice, whichever of the two is read.
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":{"a":0},"vocab":{"a":0},)"
                        R"("unk_token":"a"}})"),
             Contains("tokenizer.json: model: the member \"vocab\" appears more than once"));
  CHECK_THAT(json_error(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[],"merges":[]}})"),
             Contains("tokenizer.json: model: the member \"merges\" appears more than once"));
}

TEST_CASE("an unknown component type is named with its JSON path", "[pretrained][errors]") {
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"normalizer":{"type":"Sequence","normalizers":)"
                        R"([{"type":"NFC"},{"type":"Foo"}]}})"),
             Contains("tokenizer.json: normalizer.normalizers[1].type: tokenlab does not "
                      "implement the normalizer \"Foo\""));
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"pre_tokenizer":{"type":"CharDelimiterSplit","delimiter":"x"}})"),
             Contains("tokenizer.json: pre_tokenizer.type: tokenlab does not implement the "
                      "pre-tokenizer \"CharDelimiterSplit\""));
  CHECK_THAT(json_error(R"({)" + kWordLevel + R"(,"decoder":{"type":"CTC"}})"),
             Contains("tokenizer.json: decoder.type: tokenlab does not implement the decoder "
                      "\"CTC\""));
  CHECK_THAT(json_error(R"({"model":{"type":"Bigram","vocab":{}}})"),
             Contains("tokenizer.json: model.type: tokenlab does not implement the model "
                      "\"Bigram\""));
}

TEST_CASE("an option tokenlab does not implement is refused, not ignored", "[pretrained][errors]") {
  CHECK_THAT(json_error(R"({)" + kWordLevel + R"(,"pre_tokenizer":{"type":"Whitespace","x":1}})"),
             Contains("tokenizer.json: pre_tokenizer.x: tokenlab does not implement this option "
                      "of Whitespace"));
  CHECK_THAT(json_error(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[],"dropout":0.1}})"),
             Contains("tokenizer.json: model.dropout: BPE-dropout"));
  CHECK_THAT(json_error(R"({)" + kWordLevel + R"(,"extra":{}})"),
             Contains("tokenizer.json: extra: tokenlab does not implement this option"));
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"pre_tokenizer":{"type":"Split","pattern":{"String":"x"},)"
                        R"("behavior":"Sideways"}})"),
             Contains("tokenizer.json: pre_tokenizer.behavior: unknown split behavior "
                      "\"Sideways\""));
  CHECK_THAT(json_error(R"({)" + kWordLevel +
                        R"(,"pre_tokenizer":{"type":"Metaspace","replacement":"_",)"
                        R"("prepend_scheme":"sometimes"}})"),
             Contains("tokenizer.json: pre_tokenizer.prepend_scheme: unknown prepend_scheme"));
}

TEST_CASE("a bad regular expression names its JSON path and the pattern", "[pretrained][errors]") {
  CHECK_THAT(
      json_error(R"({)" + kWordLevel +
                 R"(,"normalizer":{"type":"Replace","pattern":{"Regex":"(a"},"content":""}})"),
      Contains("tokenizer.json: normalizer: regular expression /(a/"));
}

TEST_CASE("BPE merges must name tokens of the vocabulary", "[pretrained][errors]") {
  const std::string vocab = R"("vocab":{"a":0,"b":1,"ab":2})";
  CHECK_THAT(json_error(R"({"model":{"type":"BPE",)" + vocab + R"(,"merges":["a b","a x"]}})"),
             Contains("tokenizer.json: model.merges[1]: \"x\" is not in the vocabulary"));
  CHECK_THAT(json_error(R"({"model":{"type":"BPE",)" + vocab + R"(,"merges":["b a"]}})"),
             Contains("tokenizer.json: model.merges[0]: the merged token \"ba\" is not in the "
                      "vocabulary"));
}

TEST_CASE(
    "a BPE unk_token missing from the vocabulary fails where HF fails: on a piece that needs it",
    "[pretrained][errors]") {
  // HF loads such a file (an untrained template, a trainer run without the token).
  const auto bpe = tokenlab::test::tokenizer_json(
      R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"],"unk_token":"?"}})");
  CHECK(bpe.encode("ab") == std::vector<tokenlab::TokenId>{2});
  CHECK_THROWS_WITH(bpe.encode("abc"), Contains("unk_token \"?\" is not in its vocabulary") &&
                                           Contains("\"abc\" needs it"));
}

TEST_CASE("a token with two ids, or an id with two tokens, is refused", "[pretrained][errors]") {
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":{"a":0,"b":0},"unk_token":"a"}})"),
             Contains("tokenizer.json: model.vocab.\"b\": id 0 is given to two tokens, \"a\" and "
                      "\"b\""));
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":{"a":0,"a":1},"unk_token":"a"}})"),
             Contains("tokenizer.json: model.vocab.\"a\": token \"a\" has two ids, 0 and 1"));
  // Written twice with one id, it is still a JSON member given twice.
  CHECK_THAT(json_error(R"({"model":{"type":"WordLevel","vocab":{"a":0,"a":0},"unk_token":"a"}})"),
             Contains("tokenizer.json: model.vocab: the member \"a\" appears more than once"));
  CHECK_THAT(json_error(R"({"model":{"type":"Unigram","vocab":[["a",-1],["b",-2],["a",-3]]}})"),
             Contains("tokenizer.json: model.vocab[2]: token \"a\" has two ids, 0 and 2"));
  CHECK_THAT(json_error(R"({"model":{"type":"Unigram","vocab":[["a",-1]],"unk_id":1}})"),
             Contains("tokenizer.json: model.unk_id: unk_id 1 is not in the vocabulary"));
}

TEST_CASE("an id in a gap of the vocabulary decodes to an Error naming it",
          "[pretrained][errors]") {
  const auto gaps = tokenizer_json(
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1,"b":5},"unk_token":"[UNK]"}})");
  CHECK(gaps.vocabulary_size() == 6);
  CHECK(gaps.decode(Ids{1, 5}) == "a b");
  CHECK(gaps.token(3).empty());
  CHECK(gaps.display_piece(3).empty());
  CHECK_THAT(error_of([&] {
               (void)gaps.decode(Ids{1, 3});
             }),
             Contains("token id 3 is not in the vocabulary of tokenizer.json (6 ids)"));
}

TEST_CASE("an unknown format is named", "[pretrained][errors]") {
  CHECK_THAT(error_of([] { (void)PretrainedTokenizer::from_bytes("hello", "x.txt"); }),
             StartsWith("x.txt: not a tokenizer file tokenlab recognises"));
  CHECK_THAT(error_of([] { (void)PretrainedTokenizer::from_bytes("{}", "x.json", "onnx"); }),
             StartsWith("x.json: unknown format 'onnx'"));
  CHECK_THAT(error_of([] { (void)PretrainedTokenizer::load("/nonexistent/tokenizer.json"); }),
             StartsWith("/nonexistent/tokenizer.json: cannot read"));
}

// ---- tiktoken --------------------------------------------------------------------

TEST_CASE("a rank file with a rank given twice names the line", "[pretrained][errors][tiktoken]") {
  CHECK_THAT(rank_file_error(byte_ranks() + "aGU= 256\nbGw= 256\n"),
             Contains("gpt2.tiktoken: line 258: rank 256 is given twice"));
  CHECK_THAT(rank_file_error(byte_ranks() + "aGU= 65\n"),
             Contains("gpt2.tiktoken: line 257: rank 65 is given twice"));
  CHECK_THAT(rank_file_error(byte_ranks() + "QQ== 300\n"),
             Contains("gpt2.tiktoken: line 257: token \"A\" has two ids, 65 and 300"));
}

TEST_CASE("a clash after thousands of ranks names its line, and the earlier clash comes first",
          "[pretrained][errors][tiktoken]") {
  // 5,000 two-byte tokens (ranks 256 on), read in batches: the errors must
  // still name the first bad line, as reading line by line would.
  std::string file = byte_ranks();
  for (int i = 0; i < 5000; ++i) {
    const int a = 32 + i / 95;
    const int b = 32 + i % 95;
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::uint32_t bits =
        (static_cast<std::uint32_t>(a) << 16) | (static_cast<std::uint32_t>(b) << 8);
    file += std::string{kAlphabet[bits >> 18], kAlphabet[(bits >> 12) & 63],
                        kAlphabet[(bits >> 6) & 63], '='} +
            " " + std::to_string(256 + i) + "\n";
  }
  CHECK_THAT(rank_file_error(file + "QQ== 9000\n"),
             Contains("gpt2.tiktoken: line 5257: token \"A\" has two ids, 65 and 9000"));
  CHECK_THAT(rank_file_error(file + "aGU= 300\na@U= 9001\n"),
             Contains("gpt2.tiktoken: line 5257: rank 300 is given twice"));
  CHECK_THAT(rank_file_error(file + "aGU= 9000\na@U= 9001\n"),
             Contains("gpt2.tiktoken: line 5258: \"a@U=\" is not base64"));
}

TEST_CASE("a rank file with bad base64 or a bad rank names the line",
          "[pretrained][errors][tiktoken]") {
  CHECK_THAT(rank_file_error(byte_ranks() + "a@U= 256\n"),
             Contains("gpt2.tiktoken: line 257: \"a@U=\" is not base64"));
  CHECK_THAT(rank_file_error(byte_ranks() + "aGU 256\n"),
             Contains("gpt2.tiktoken: line 257: \"aGU\" is not base64"));
  CHECK_THAT(rank_file_error(byte_ranks() + "aGU= 2x6\n"),
             Contains("gpt2.tiktoken: line 257: the rank \"2x6\" is not a number"));
  CHECK_THAT(rank_file_error(byte_ranks() + "aGU=256\n"),
             Contains("gpt2.tiktoken: line 257: expected \"base64 rank\""));
}

TEST_CASE("a rank file must rank every byte and name its encoding",
          "[pretrained][errors][tiktoken]") {
  CHECK_THAT(rank_file_error("QQ== 0\n"),
             Contains("gpt2.tiktoken: the byte 0 has no rank, so some text could not be encoded"));
  CHECK_THAT(error_of([] {
               (void)PretrainedTokenizer::from_bytes(byte_ranks(), "ranks.txt", "tiktoken");
             }),
             Contains("ranks.txt: a tiktoken rank file does not name its pattern"));
  CHECK_THAT(error_of([] {
               (void)PretrainedTokenizer::from_bytes(byte_ranks(), "ranks.txt", "tiktoken:gpt5");
             }),
             Contains("'gpt5' is none"));
  // A special token on the rank of an ordinary one.
  CHECK_THAT(
      error_of([] {
        std::string ranks;
        for (int b = 0; b < 256; ++b) ranks += " " + base64_byte(b);
        (void)PretrainedTokenizer::from_bytes(
            R"({"pat_str":"\\S+","special_tokens":{"<s>":7},"bpe_ranks":"! 0)" + ranks + R"("})",
            "enc.json");
      }),
      Contains("enc.json: the special token <s> has id 7, which is the rank of another token"));
}

TEST_CASE("npm tiktoken's encoder JSON names the byte offset in bpe_ranks",
          "[pretrained][errors][tiktoken]") {
  const auto encoder_error = [](const std::string& ranks) {
    return error_of([&] {
      (void)PretrainedTokenizer::from_bytes(
          R"({"pat_str":"\\S+","special_tokens":{},"bpe_ranks":")" + ranks + R"("})", "enc.json");
    });
  };
  CHECK_THAT(encoder_error("! 0 QQ== Qg!= "), Contains("enc.json: bpe_ranks, byte 9: \"Qg!=\" is "
                                                       "not base64"));
  CHECK_THAT(encoder_error("! x QQ=="),
             Contains("enc.json: bpe_ranks, byte 2: \"x\" is not a rank"));
  CHECK_THAT(encoder_error("! 0 QQ== ! 0 Qg=="),
             Contains("enc.json: bpe_ranks, byte 13: rank 0 is given twice"));
  CHECK_THAT(error_of([] {
               (void)PretrainedTokenizer::from_bytes(R"({"pat_str":1})", "enc.json", "tiktoken");
             }),
             Contains("enc.json: pat_str: expected a string, found a number"));
}

// ---- SentencePiece -----------------------------------------------------------------

TEST_CASE("a truncated or garbage .model file is refused", "[pretrained][errors][sentencepiece]") {
  const std::string model = model_bytes("unigram");
  REQUIRE(model.size() > 100);
  CHECK_THAT(spm_error(model.substr(0, model.size() / 2)),
             StartsWith("bad.model: not a SentencePiece model: the protobuf ModelProto does not "
                        "parse"));
  CHECK_THAT(spm_error("\x0A\xFF\xFF\xFF\xFF\x0F garbage"),
             StartsWith("bad.model: not a SentencePiece model"));
  CHECK_THAT(spm_error(""), StartsWith("bad.model: the SentencePiece model has no pieces"));
  CHECK_THAT(spm_error(std::string("\x0A\x03\x0A\x01"
                                   "a",
                                   5)),
             StartsWith("bad.model: the model has no unknown piece"));
}

TEST_CASE("every cut of a .model file loads or fails with an Error",
          "[pretrained][errors][sentencepiece]") {
  const std::string model = model_bytes("bpe");
  std::size_t refused = 0;
  for (std::size_t size = 0; size < model.size(); size += 7) {
    CAPTURE(size);
    try {
      const auto spm =
          PretrainedTokenizer::from_bytes(model.substr(0, size), "cut.model", "sentencepiece");
      (void)spm.decode(spm.encode("The river was low."));
    } catch (const tokenlab::Error& e) {
      CHECK_THAT(std::string(e.what()), StartsWith("cut.model: "));
      ++refused;
    }
  }
  CHECK(refused > 0);
}
