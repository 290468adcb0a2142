// The words train --like counts for HF's trainers (count_hf_training_words):
// what the tokenizer's own pipeline gives line by line, also where the counting
// skips the pipeline for words of printable ASCII (Whitespace and BERT's
// pipelines). The lines below are the hostile cases for that shortcut:
// non-ASCII right after ASCII, combining marks, CJK next to ASCII, controls,
// white space other than ASCII's, upper case that lower-cases outside ASCII.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "../common/temp_files.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/hf_training_words.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

using tokenlab::count_hf_training_words;
using tokenlab::PretrainedTokenizer;
using tokenlab::test::TempDir;
using Counts = std::map<std::string, std::uint64_t>;

namespace {

std::string template_with(const std::string& normalizer, const std::string& pre_tokenizer) {
  return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":)" +
         normalizer + R"(,"pre_tokenizer":)" + pre_tokenizer +
         R"(,"post_processor":null,"decoder":null,"model":{"type":"BPE","dropout":null,)"
         R"("unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,)"
         R"("fuse_unk":false,"byte_fallback":false,"ignore_merges":false,"vocab":{},"merges":[]}})";
}

const std::string kBert = template_with(
    R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true})",
    R"({"type":"BertPreTokenizer"})");
const std::string kBertCased = template_with(
    R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":false,"lowercase":false})",
    R"({"type":"BertPreTokenizer"})");
const std::string kWhitespaceNfc = template_with(R"({"type":"NFC"})", R"({"type":"Whitespace"})");
const std::string kWhitespace = template_with("null", R"({"type":"Whitespace"})");
const std::string kMetaspace = template_with(
    "null", R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true})");
const std::string kMetaspaceFirst = template_with(
    "null", R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true})");

const std::string kHostile =
    "Hello, WORLD! x--y a_b (1990)\n"
    "Héllo ÀBC naïve İstanbul ΣΑΣ\n"  // non-ASCII right after ASCII; Turkish İ, final sigma
    "cafe\u0301 e\u0301\u0327 \u0301x a\u0300b\n"     // combining marks after ASCII letters, alone
    "中文ABC字 x中y 한국어ABC\n"                      // CJK next to ASCII
    "tab\there\r\nctl\x01x del\x7Fy \v vt\fff\x0B\n"  // controls, \v and \f
    "NBSP\u00A0split thin\u2009space ideo\u3000space zw\u200Bj\n"
    "\uFF21\uFF42\uFF43 fullwidth \uFB01ne ligature\n"
    "   spaces   around   \n"
    "▁already ▁marked▁ ▁▁twice  a\r\n"
    " \n"
    "\n"
    "last line without a newline: $5.00 {x}|y ~z`";

Counts line_by_line(const PretrainedTokenizer& tokenizer, std::string_view text) {
  Counts counts;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    tokenizer.for_each_piece(text.substr(0, end),
                             [&](std::string_view piece, bool) { ++counts[std::string(piece)]; });
    text.remove_prefix(end);
  }
  return counts;
}

Counts counted(const PretrainedTokenizer& tokenizer, const std::string& file, unsigned threads) {
  Counts counts;
  for (const auto& word : count_hf_training_words(tokenizer, {file}, threads))
    counts[word.word] += word.count;
  return counts;
}

std::string written(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The words counted in text, as one file, by the pipeline of the template json.
Counts counted_in(const std::string& json, const std::string& text) {
  TempDir dir;
  const auto tokenizer = PretrainedTokenizer::from_bytes(json, "template.json");
  return counted(tokenizer, written(dir, "corpus.txt", text), 2);
}

}  // namespace

TEST_CASE("the counted words are the pipeline's pieces, line by line, on hostile text",
          "[pretrained][hf-trainer]") {
  TempDir dir;
  const std::string corpus = written(dir, "hostile.txt", kHostile);
  for (const std::string* json :
       {&kBert, &kBertCased, &kWhitespaceNfc, &kWhitespace, &kMetaspace, &kMetaspaceFirst}) {
    const auto tokenizer = PretrainedTokenizer::from_bytes(*json, "template.json");
    INFO(tokenizer.pipeline().pre_tokenizers.front()->describe());
    CHECK(counted(tokenizer, corpus, 1) == line_by_line(tokenizer, kHostile));
  }
}

TEST_CASE("BERT's pipeline on ASCII: lower-cased, split at white space, punctuation alone",
          "[pretrained][hf-trainer]") {
  CHECK(counted_in(kBert, "Hello, WORLD!\nhello x--y\n") ==
        Counts{{"hello", 2}, {",", 1}, {"world", 1}, {"!", 1}, {"x", 1}, {"-", 2}, {"y", 1}});
  CHECK(counted_in(kBertCased, "Hello\n") == Counts{{"Hello", 1}});
}

TEST_CASE("Whitespace's pipeline on ASCII: runs of word characters and runs of the others",
          "[pretrained][hf-trainer]") {
  CHECK(counted_in(kWhitespaceNfc, "a_b x--y (1990),\tA\n") ==
        Counts{
            {"a_b", 1}, {"x", 1}, {"--", 1}, {"y", 1}, {"(", 1}, {"1990", 1}, {"),", 1}, {"A", 1}});
}

TEST_CASE("Metaspace's pipeline: each run between spaces after the replacement",
          "[pretrained][hf-trainer]") {
  // The line that starts with a space gets no replacement prepended.
  CHECK(counted_in(kMetaspace, "a  b\n c▁d \n") ==
        Counts{{"▁a", 1}, {"▁", 1}, {"▁b\n", 1}, {"▁c", 1}, {"▁d", 1}, {"▁\n", 1}});
}

TEST_CASE("the counted words do not depend on the thread count", "[pretrained][hf-trainer]") {
  TempDir dir;
  std::string big;  // past one counting chunk (1 MiB), so that two threads share the work
  while (big.size() < (3u << 20)) big += kHostile + "\n";
  const std::string corpus = written(dir, "big.txt", big);
  const auto bert = PretrainedTokenizer::from_bytes(kBert, "bert.json");
  const Counts one = counted(bert, corpus, 1);
  CHECK(counted(bert, corpus, 2) == one);
  CHECK(one.at("hello") == line_by_line(bert, big).at("hello"));
}

TEST_CASE("a corpus that is not UTF-8 is refused, naming the file and the line",
          "[pretrained][hf-trainer]") {
  TempDir dir;
  const std::string corpus = written(dir, "bad.txt", "fine\nstill fine\nbad \xC3( here\n");
  const auto bert = PretrainedTokenizer::from_bytes(kBert, "bert.json");
  CHECK_THROWS_WITH(count_hf_training_words(bert, {corpus}, 2),
                    Catch::Contains("bad.txt:3: not valid UTF-8"));
}
