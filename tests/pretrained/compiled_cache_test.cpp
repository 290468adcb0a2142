// The compiled-model cache (framework/pretrained/src/compiled/, hf/compiled_json.hpp):
// a byte-level BPE tokenizer.json's load-time tables written on its first load
// and read back on the next load of the same bytes. A load from the cache must
// be the tokenizer the file gives, its token strings built only when something
// asks for one; an entry that is damaged, another build's or another file's is
// never used, and a cache that cannot be written costs nothing but the write.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base64.hpp"
#include "byte_level/byte_level_encoder.hpp"
#include "common/temp_files.hpp"
#include "compiled/compiled_file.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/model_cache.hpp"
#include "tokenlab/utf8.hpp"

using tokenlab::ModelCache;
using tokenlab::PretrainedTokenizer;
using tokenlab::TokenId;
using tokenlab::test::Ids;
using tokenlab::test::read_bytes;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;
namespace compiled = tokenlab::compiled;
namespace fs = std::filesystem;

namespace {

// A byte as GPT-2's byte alphabet spells it in a tokenizer.json.
std::string spelled(unsigned char byte) {
  std::string s;
  tokenlab::utf8::append(s, tokenlab::byte_level_alphabet()[byte]);
  return s;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The fixtures' merges, in this order: space + each letter, every two letters,
// then space + letter + letter (1,378 in all).
template <class Merge>
void two_letter_merges(const std::string& space, Merge&& merge) {
  for (char x = 'a'; x <= 'z'; ++x) merge(space, std::string(1, x));
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) merge(std::string(1, x), std::string(1, y));
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) merge(space + x, std::string(1, y));
}

// The end of a model member: its vocabulary (ids in order) and merges.
std::string lists_json(const std::vector<std::string>& vocab,
                       const std::vector<std::pair<std::string, std::string>>& merges) {
  std::string json;
  for (std::size_t id = 0; id < vocab.size(); ++id)
    json += (id ? "," : "") + json_string(vocab[id]) + ":" + std::to_string(id);
  json += R"(},"merges":[)";
  for (std::size_t i = 0; i < merges.size(); ++i)
    json += (i ? "," : "") + json_string(merges[i].first + " " + merges[i].second);
  return json + "]}}";
}

// A GPT-2-shaped tokenizer.json: the 256 bytes, then every two-letter token,
// a space before each letter and each of those ("Ġab"), 1,378 merges in all
// (or the first merge_count of them), an added token the model has and two it
// has not, GPT-2's pre-tokenizer and the byte-level decoder. extra: merges
// after those; extra_tokens: tokens with no merge, after the bytes.
std::string byte_level_json(std::size_t merge_count = 100000,
                            const std::vector<std::pair<std::string, std::string>>& extra = {},
                            const std::vector<std::string>& extra_tokens = {}) {
  std::vector<std::string> vocab;
  for (unsigned b = 0; b < 256; ++b) vocab.push_back(spelled(static_cast<unsigned char>(b)));
  vocab.insert(vocab.end(), extra_tokens.begin(), extra_tokens.end());
  std::vector<std::pair<std::string, std::string>> merges;
  const auto merge = [&](const std::string& left, const std::string& right) {
    if (merges.size() >= merge_count) return;
    merges.emplace_back(left, right);
    vocab.push_back(left + right);
  };
  two_letter_merges(spelled(' '), merge);
  for (const auto& [left, right] : extra) merge(left, right);
  std::string json = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)";
  json +=
      R"({"id":)" + std::to_string(vocab.size()) +
      R"(,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  json +=
      R"({"id":7,"content":"ab","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  json +=
      R"({"id":)" + std::to_string(vocab.size() + 1) +
      R"(,"content":"<|fim|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],)";
  json +=
      R"("normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},)";
  json +=
      R"("post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},)";
  json +=
      R"("model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"vocab":{)";
  return json + lists_json(vocab, merges);
}

// A whole-line BPE tokenizer.json shaped like Gemma 3's: spaces become "▁"
// and the line is one piece; an unknown token, fused; byte fallback through
// the 256 "<0xXX>" tokens; the letters, "▁", a character outside the BMP
// (U+1F642) and "é", then every "▁" + letter, every two letters and every "▁"
// + two letters, merged in that order (or the first merge_count merges); two
// added tokens the model has and one it has not. Its model has no fused
// encoder, so its entry keeps the BPE model's tables (hf/bpe_tables.hpp).
std::string whole_line_json(std::size_t merge_count = 100000) {
  std::vector<std::string> vocab = {"<unk>", "<s>", "</s>"};
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab.emplace_back(name);
  }
  const std::string space = "▁";
  vocab.push_back(space);
  for (char x = 'a'; x <= 'z'; ++x) vocab.emplace_back(1, x);
  vocab.emplace_back("🙂");
  vocab.emplace_back("é");
  std::vector<std::pair<std::string, std::string>> merges;
  const auto merge = [&](const std::string& left, const std::string& right) {
    if (merges.size() >= merge_count) return;
    merges.emplace_back(left, right);
    vocab.push_back(left + right);
  };
  two_letter_merges(space, merge);
  std::string json = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)";
  json +=
      R"({"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  json +=
      R"({"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  json +=
      R"({"id":)" + std::to_string(vocab.size()) +
      R"(,"content":"<start_of_turn>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  // One of each kind HF has: matched after normalizing (so as "hello▁world"),
  // only as a whole word, swallowing the spaces before it, and after it.
  const auto added = [&](std::size_t offset, const std::string& fields) {
    return R"({"id":)" + std::to_string(vocab.size() + offset) + "," + fields + "}";
  };
  json +=
      added(
          1,
          R"("content":"hello world","single_word":false,"lstrip":false,"rstrip":false,"normalized":true,"special":false)") +
      ",";
  json +=
      added(
          2,
          R"("content":"k9","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":false)") +
      ",";
  json +=
      added(
          3,
          R"("content":"<L>","single_word":false,"lstrip":true,"rstrip":false,"normalized":false,"special":true)") +
      ",";
  json +=
      added(
          4,
          R"("content":"<R>","single_word":false,"lstrip":false,"rstrip":true,"normalized":false,"special":true)") +
      "],";
  json += R"("normalizer":{"type":"Replace","pattern":{"String":" "},"content":"▁"},)";
  json +=
      R"("pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"MergedWithPrevious","invert":false},)";
  json += R"("post_processor":null,"decoder":{"type":"Sequence","decoders":[)";
  json += R"({"type":"Replace","pattern":{"String":"▁"},"content":" "},)";
  json += R"({"type":"ByteFallback"},{"type":"Fuse"}]},)";
  json +=
      R"("model":{"type":"BPE","dropout":null,"unk_token":"<unk>","continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":true,"byte_fallback":true,"ignore_merges":false,"vocab":{)";
  return json + lists_json(vocab, merges);
}

// A BERT-shaped WordPiece tokenizer.json: its five specials (added tokens, in
// the vocabulary), the letters, digits and some punctuation, each letter after
// "##", every two-letter word and its "##" form, and a few whole words (or,
// with_unknown false, no "[UNK]" in the vocabulary: HF then fails only on a
// word that needs it). BERT's normalizer, pre-tokenizer and decoder.
std::string wordpiece_json(bool with_unknown = true, bool three_letter_words = false) {
  std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  if (!with_unknown) vocab[1] = "[unused1]";
  for (char c = 'a'; c <= 'z'; ++c) {
    vocab.emplace_back(1, c);
    vocab.push_back(std::string("##") + c);
  }
  for (char c = '0'; c <= '9'; ++c) vocab.emplace_back(1, c);
  for (const char* p : {".", ",", "!", "?", "-", "'"}) vocab.emplace_back(p);
  for (char a = 'a'; a <= 'z'; ++a)
    for (char b = 'a'; b <= 'z'; ++b) {
      vocab.push_back(std::string{a, b});
      vocab.push_back(std::string("##") + a + b);
    }
  for (const char* w : {"the", "quick", "brown", "fox", "jump", "##ing", "over", "lazy", "dog",
                        "hello", "world", "\u00e9"})
    vocab.emplace_back(w);
  if (three_letter_words)  // 17,576 more: a vocabulary past the 64 KiB head
    for (char a = 'a'; a <= 'z'; ++a)
      for (char b = 'a'; b <= 'z'; ++b)
        for (char c = 'a'; c <= 'z'; ++c)
          if (std::string w{a, b, c}; w != "dog" && w != "fox" && w != "the") vocab.push_back(w);
  std::string json = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)";
  for (std::size_t id = 0; id < 5; ++id)
    json +=
        (id ? "," : "") + std::string(R"({"id":)") + std::to_string(id) + R"(,"content":)" +
        json_string(vocab[id]) +
        R"(,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true})";
  json +=
      R"(],"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},)";
  json += R"("pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":null,)";
  json += R"("decoder":{"type":"WordPiece","prefix":"##","cleanup":true},)";
  json +=
      R"("model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{)";
  for (std::size_t id = 0; id < vocab.size(); ++id)
    json += (id ? "," : "") + json_string(vocab[id]) + ":" + std::to_string(id);
  return json + "}}}";
}

// The two kinds of entry, by the fixture that makes each.
struct Fixture {
  const char* name;
  std::string (*json)(std::size_t);
};
std::string byte_level_fixture(std::size_t merges) {
  return byte_level_json(merges);
}
const Fixture kFixtures[] = {{"byte-level", byte_level_fixture}, {"whole-line", whole_line_json}};

// What the tests load through: the reader with the cache in dir, for files of
// any size.
ModelCache settings_in(const fs::path& dir, std::size_t max_entries = 16) {
  ModelCache s;
  s.directory = dir;
  s.min_file_bytes = 0;
  s.max_entries = max_entries;
  return s;
}

PretrainedTokenizer load(const std::string& json, const ModelCache& settings,
                         unsigned threads = 1) {
  return PretrainedTokenizer::from_bytes(json, "tokenizer.json", "tokenizer.json", threads,
                                         settings);
}

// The files of dir with the given extension (".tlmodel": the cache's entries,
// ".tlstamp": its stamps); none when dir does not exist.
std::vector<fs::path> files_in(const fs::path& dir, std::string_view extension) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == extension) files.push_back(e.path());
  return files;
}
std::vector<fs::path> entries_in(const fs::path& dir) {
  return files_in(dir, ".tlmodel");
}

const std::vector<std::string> kTexts = {
    "the quick brown fox, jumps over the lazy dog",
    "ab<|endoftext|> ab zz<|fim|>qq",
    "  leading spaces and trailing   ",
    "Ünïcödé and 日本語 and emoji 🙂 and tabs\tand\nnewlines",
    "",
    "<s>ab</s> cd<start_of_turn>é ééxx\u00A0 ü—",
    "say hello world  <L>x <R>  y k9 ak9 k9",
};

void same_tokenizer(const PretrainedTokenizer& a, const PretrainedTokenizer& b) {
  for (const std::string& text : kTexts) {
    INFO(text);
    const Ids ids = a.encode(text);
    CHECK(b.encode(text) == ids);
    CHECK(b.decode(ids) == a.decode(ids));
  }
  const auto& ta = *a.pipeline().tokens;
  const auto& tb = *b.pipeline().tokens;
  REQUIRE(tb.size() == ta.size());
  REQUIRE(tb.id_limit() == ta.id_limit());
  for (TokenId id = 0; id < ta.id_limit(); ++id) {
    const std::string* x = ta.token(id);
    const std::string* y = tb.token(id);
    REQUIRE((x == nullptr) == (y == nullptr));
    if (x) REQUIRE(*x == *y);
  }
  // The model's merges, which an entry may have made again from its encoder's
  // byte table rather than kept (hf/compiled_json.hpp).
  if (a.pipeline().model && b.pipeline().model) {
    const auto ra = a.pipeline().model->rules();
    const auto rb = b.pipeline().model->rules();
    CHECK(rb.kind == ra.kind);
    CHECK(rb.merges == ra.merges);
  }
  // The added tokens, every field: an entry's are read from it, not from the file.
  const auto& aa = a.pipeline().added.tokens();
  const auto& ab = b.pipeline().added.tokens();
  REQUIRE(ab.size() == aa.size());
  for (std::size_t i = 0; i < aa.size(); ++i) {
    INFO("added token " << i << ": " << aa[i].content);
    CHECK(ab[i].content == aa[i].content);
    CHECK(ab[i].id == aa[i].id);
    CHECK(ab[i].special == aa[i].special);
    CHECK(ab[i].single_word == aa[i].single_word);
    CHECK(ab[i].lstrip == aa[i].lstrip);
    CHECK(ab[i].rstrip == aa[i].rstrip);
    CHECK(ab[i].normalized == aa[i].normalized);
    CHECK(ab[i].normalized_content == aa[i].normalized_content);
  }
}

}  // namespace

TEST_CASE("a BPE tokenizer.json is compiled on its first load and read back on the next",
          "[compiled]") {
  const Fixture& fixture = GENERATE(as<Fixture>{}, kFixtures[0], kFixtures[1]);
  INFO(fixture.name);
  const bool byte_level = std::string(fixture.name) == "byte-level";
  TempDir dir;
  const auto settings = settings_in(dir.path() / "models");
  const std::string json = fixture.json(100000);
  const PretrainedTokenizer first = load(json, settings);
  REQUIRE((first.pipeline().byte_level != nullptr) == byte_level);
  REQUIRE(entries_in(dir.path() / "models").size() == 1);
  CHECK_FALSE(first.pipeline().tokens->rows_pending());  // built from the file

  CHECK(first.pipeline().compiled_entry.empty());
  for (const unsigned threads : {1u, 2u}) {
    const PretrainedTokenizer again = load(json, settings, threads);
    REQUIRE((again.pipeline().byte_level != nullptr) == byte_level);
    CHECK(again.pipeline().compiled_entry == entries_in(dir.path() / "models").front().string());
    // Loading and encoding never spelled the tokens: the entry's rows wait
    // for the first decode or lookup of a token's string.
    CHECK(again.pipeline().tokens->rows_pending());
    for (const std::size_t t : {0u, 1u, 2u, 5u})
      CHECK(again.encode(kTexts[t]) == first.encode(kTexts[t]));
    if (!byte_level) {
      // The model's character index covers every one-character token, in the
      // BMP and beyond it: an emoji that is a token (U+1F642) and one that is
      // not (U+1F643, its bytes) are not looked up in the vocabulary either.
      CHECK(again.pipeline().tokens->rows_pending());
      const std::string emoji = "a\U0001F642b\U0001F643 \U0001F642";
      CHECK(again.encode(emoji) == first.encode(emoji));
      const auto id = [&](const std::string& token) {
        return *first.pipeline().tokens->find(token);
      };
      // No merge joins an emoji: a, U+1F642, b, U+1F643's four bytes, "▁", U+1F642.
      CHECK(again.encode(emoji) == Ids{id("a"), id("\U0001F642"), id("b"), id("<0xF0>"),
                                       id("<0x9F>"), id("<0x99>"), id("<0x83>"), id("\u2581"),
                                       id("\U0001F642")});
      CHECK(again.pipeline().tokens->rows_pending());
      same_tokenizer(first, again);  // decoding fills it
      CHECK_FALSE(again.pipeline().tokens->rows_pending());
      continue;
    }
    CHECK(again.pipeline().tokens->rows_pending());
    REQUIRE(again.pipeline().added.tokens().size() == first.pipeline().added.tokens().size());
    for (std::size_t i = 0; i < first.pipeline().added.tokens().size(); ++i)
      CHECK(again.pipeline().added.tokens()[i].id == first.pipeline().added.tokens()[i].id);
    same_tokenizer(first, again);
    CHECK_FALSE(again.pipeline().tokens->rows_pending());
  }
  // The special tokens the model has keep the model's ids, the others follow
  // the vocabulary, as HF's rules gave them on the first load.
  const std::string specials = "ab<|endoftext|><|fim|><s></s><start_of_turn>";
  CHECK(load(json, settings).encode(specials) == first.encode(specials));
  CHECK(entries_in(dir.path() / "models").size() == 1);
}

TEST_CASE("a whole-line entry gives HF's ids: merges, byte fallback and added tokens",
          "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = whole_line_json();
  const PretrainedTokenizer built = load(json, settings);
  const PretrainedTokenizer read = load(json, settings);
  REQUIRE_FALSE(read.pipeline().compiled_entry.empty());
  const auto id = [&](const std::string& token) { return *built.pipeline().tokens->find(token); };
  // " ab" is "▁ab" (the "▁" + two letters merge), "é" a token of its own, "ü"
  // and "—" (U+2014) not, so their bytes' tokens; "xx" merges; "<s>" is the
  // added token's id, which the model has.
  const Ids expected = {id("\u2581ab"), id("\u00E9"), id("<0xC3>"),
                        id("<0xBC>"),   id("xx"),     id("<0xE2>"),
                        id("<0x80>"),   id("<0x94>"), 1};
  CHECK(built.encode(" ab\u00E9\u00FCxx\u2014<s>") == expected);
  CHECK(read.encode(" ab\u00E9\u00FCxx\u2014<s>") == expected);
  CHECK(read.pipeline().tokens->rows_pending());
  CHECK(read.decode(expected) == " ab\u00E9\u00FCxx\u2014<s>");
  // The added tokens come from the entry, the file's list jumped over: each
  // kind matches as it did when the file was read. "hello world" is matched
  // after normalizing; "k9" only as a word (not in "ak9"); "<L>" takes the
  // spaces before it and "<R>" those after it.
  const auto added_id = [&](std::string_view content) {
    for (const auto& token : built.pipeline().added.tokens())
      if (token.content == content) return token.id;
    FAIL("no added token " << content);
    return TokenId{0};
  };
  CHECK_FALSE(built.pipeline().added_from_entry);
  CHECK(read.pipeline().added_from_entry);
  const std::string text = "say hello world  <L>x <R>  y k9 ak9";
  const Ids mixed = read.encode(text);
  CHECK(mixed == built.encode(text));
  CHECK(std::count(mixed.begin(), mixed.end(), added_id("hello world")) == 1);
  CHECK(std::count(mixed.begin(), mixed.end(), added_id("k9")) == 1);
  CHECK(std::count(mixed.begin(), mixed.end(), added_id("<L>")) == 1);
  CHECK(std::count(mixed.begin(), mixed.end(), added_id("<R>")) == 1);
  // Between "world" and "x" only "▁world" (the normalized token's) and "<L>":
  // the two spaces went with it. After "<R>", "y" at once.
  const auto at = [&](TokenId wanted) {
    return static_cast<std::size_t>(std::find(mixed.begin(), mixed.end(), wanted) - mixed.begin());
  };
  REQUIRE(at(added_id("<R>")) + 1 < mixed.size());
  CHECK(mixed[at(added_id("hello world")) + 1] == added_id("<L>"));
  CHECK(mixed[at(added_id("<R>")) + 1] == id("y"));
  same_tokenizer(built, read);
}

TEST_CASE("a WordPiece tokenizer.json is compiled on its first load and read back on the next",
          "[compiled][wordpiece]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = wordpiece_json();
  const PretrainedTokenizer first = load(json, settings);
  REQUIRE(first.pipeline().model->type() == "WordPiece");
  CHECK(first.pipeline().compiled_entry.empty());
  REQUIRE(entries_in(dir.path()).size() == 1);
  for (const unsigned threads : {1u, 2u}) {
    const PretrainedTokenizer again = load(json, settings, threads);
    CHECK(again.pipeline().compiled_entry == entries_in(dir.path()).front().string());
    CHECK(again.pipeline().added_from_entry);
    // The tries came from the entry: encoding spelled no token's string.
    const std::string text = "The QUICK brown foxes jumping, over 12 lazy dogs! Hello [SEP] world";
    CHECK(again.encode(text) == first.encode(text));
    CHECK(again.pipeline().tokens->rows_pending());
    same_tokenizer(first, again);
  }
  // "jumping" is "jump" "##ing"; "xyzzy" "xy" and two continuing pieces; "☃" unknown.
  const auto id = [&](const std::string& token) { return *first.pipeline().tokens->find(token); };
  const PretrainedTokenizer read = load(json, settings);
  CHECK(read.encode("jumping xyzzy \u2603") ==
        Ids{id("jump"), id("##ing"), id("xy"), id("##zz"), id("##y"), id("[UNK]")});
}

TEST_CASE("a WordPiece entry fails as the file does on a word that needs a missing unknown token",
          "[compiled][wordpiece]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = wordpiece_json(false);
  const PretrainedTokenizer first = load(json, settings);
  const PretrainedTokenizer again = load(json, settings);
  REQUIRE_FALSE(again.pipeline().compiled_entry.empty());
  CHECK(again.encode("hello world") == first.encode("hello world"));
  std::string expected;
  try {
    (void)first.encode("hello \u2603");
  } catch (const std::exception& e) {
    expected = e.what();
  }
  REQUIRE(expected.find("[UNK]") != std::string::npos);
  CHECK_THROWS_WITH(again.encode("hello \u2603"), expected);
}

TEST_CASE("a piece that is a token is looked up whole unless the token's bytes merge apart",
          "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  // Every token of the plain fixture merges into itself, so its entry's
  // encoder looks whole pieces up first, as tiktoken does; the ids cannot
  // tell, which is the point.
  const std::string plain = byte_level_json();
  const PretrainedTokenizer built = load(plain, settings);
  CHECK_FALSE(built.pipeline().byte_level->whole_piece_first());
  const PretrainedTokenizer read = load(plain, settings);
  REQUIRE(read.pipeline().tokens->rows_pending());
  CHECK(read.pipeline().byte_level->whole_piece_first());
  // One merge a token, in token order: the entry keeps the rule and the splits.
  using Rule = tokenlab::ByteLevelEncoder::Rule;
  CHECK(built.pipeline().byte_level->rule() == Rule::token_splits);
  CHECK(read.pipeline().byte_level->rule() == Rule::token_splits);
  for (TokenId id = 0; id < built.pipeline().tokens->id_limit(); ++id)
    REQUIRE_FALSE(read.pipeline().byte_level->merges_apart(id));
  same_tokenizer(built, read);
  // "abc" = "a" + "bc" is a token, but its bytes merge "a b" first (rank 27,
  // before "b c") and then stop at "ab" "c": HF's BPE never gives "abc", and
  // neither may the entry's encoder, which merges that one token's pieces.
  const std::string unreachable = byte_level_json(100000, {{"a", "bc"}});
  const PretrainedTokenizer first = load(unreachable, settings);
  const PretrainedTokenizer again = load(unreachable, settings);
  REQUIRE(again.pipeline().tokens->rows_pending());
  CHECK(again.pipeline().byte_level->whole_piece_first());
  CHECK(again.pipeline().byte_level->rule() == Rule::token_splits);
  const auto abc_id = first.pipeline().tokens->find("abc");
  REQUIRE(abc_id);
  for (TokenId id = 0; id < first.pipeline().tokens->id_limit(); ++id)
    REQUIRE(again.pipeline().byte_level->merges_apart(id) == (id == *abc_id));
  const Ids abc = first.encode("abc");
  CHECK(abc.size() == 2);
  CHECK(again.encode("abc") == abc);
  CHECK(again.encode(" xabc abc") == first.encode(" xabc abc"));
  same_tokenizer(first, again);
}

// What a tokenizer.json's entry left out for its byte-level encoder to make
// again (hf/compiled_json.cpp): its fourth section, after the 64-byte header,
// the kind, the vocabulary's size and its id limit. 1: the vocabulary; 2: the
// merges, one a token; 4: the merges, every split.
std::uint64_t left_out_of(const fs::path& entry) {
  const std::string bytes = read_bytes(entry);
  REQUIRE(bytes.size() >= 96);
  std::uint64_t word = 0;
  std::memcpy(&word, bytes.data() + 88, sizeof word);
  return word;
}

// A GPT-2-shaped tokenizer.json whose merges are every split of every token
// into two tokens, ordered by the merged id and then the left part's id, as
// HF's converter writes Llama 3's; without merges[drop] when drop is given.
// tokens: after the 256 bytes, in id order (letters: spelled as they are).
std::string every_split_json(const std::vector<std::string>& tokens, std::size_t drop = SIZE_MAX) {
  std::vector<std::string> vocab;
  for (unsigned b = 0; b < 256; ++b) vocab.push_back(spelled(static_cast<unsigned char>(b)));
  vocab.insert(vocab.end(), tokens.begin(), tokens.end());
  const auto id_of = [&](const std::string& token) {
    return static_cast<std::size_t>(std::find(vocab.begin(), vocab.end(), token) - vocab.begin());
  };
  std::vector<std::pair<std::string, std::string>> merges;
  for (const std::string& token : tokens) {
    std::vector<std::pair<std::size_t, std::size_t>> splits;  // (left id, split)
    for (std::size_t k = 1; k < token.size(); ++k)
      if (id_of(token.substr(0, k)) < vocab.size() && id_of(token.substr(k)) < vocab.size())
        splits.emplace_back(id_of(token.substr(0, k)), k);
    std::sort(splits.begin(), splits.end());
    for (const auto& [left, k] : splits) merges.emplace_back(token.substr(0, k), token.substr(k));
  }
  if (drop < merges.size()) merges.erase(merges.begin() + static_cast<std::ptrdiff_t>(drop));
  return R"({"version":"1.0","added_tokens":[],"normalizer":null,)"
         R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},)"
         R"("post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},)"
         R"("model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,)"
         R"("end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"vocab":{)" +
         lists_json(vocab, merges);
}

TEST_CASE("a file listing every split of every token reads back by the ranks rule", "[compiled]") {
  // Every string of two and three letters of "abc" and some of four, in an
  // order that puts tokens before and after their parts: each token of three
  // letters or more has two or three splits, each a merge of its own rank.
  std::vector<std::string> tokens;
  for (const char x : std::string("abc"))
    for (const char y : std::string("abc")) {
      tokens.push_back({x, y});
      for (const char z : std::string("abc")) tokens.push_back({x, y, z});
    }
  std::uint64_t state = 12345;
  const auto next = [&](std::size_t n) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<std::size_t>((state >> 33) % n);
  };
  for (int i = 0; i < 20; ++i) {
    std::string four;
    for (int k = 0; k < 4; ++k) four += "abc"[next(3)];
    if (std::find(tokens.begin(), tokens.end(), four) == tokens.end()) tokens.push_back(four);
  }
  for (std::size_t i = tokens.size(); i > 1; --i) std::swap(tokens[i - 1], tokens[next(i)]);
  // Pieces of every merge loop's length: short, up to 128 bytes, longer.
  std::vector<std::string> texts;
  for (int t = 0; t < 300; ++t) {
    std::string text;
    const std::size_t length = 1 + next(t % 10 == 0 ? 300 : 40);
    for (std::size_t k = 0; k < length; ++k) text += "abc "[next(t % 3 == 0 ? 4 : 3)];
    texts.push_back(text);
  }
  using Rule = tokenlab::ByteLevelEncoder::Rule;
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = every_split_json(tokens);
  const PretrainedTokenizer first = load(json, settings);  // HF's merge table
  REQUIRE(first.pipeline().byte_level != nullptr);
  CHECK(first.pipeline().byte_level->rule() == Rule::merges);
  const PretrainedTokenizer again = load(json, settings);
  REQUIRE_FALSE(again.pipeline().compiled_entry.empty());
  CHECK(again.pipeline().byte_level->rule() == Rule::ranks);
  // Neither list kept: both are made again from the byte table, the merges
  // in the file's order, which is not the order of the splits' lengths.
  CHECK(left_out_of(again.pipeline().compiled_entry) == (1 | 4));
  for (const std::string& text : texts) {
    CAPTURE(text);
    CHECK(again.encode(text) == first.encode(text));
  }
  same_tokenizer(first, again);
  // One split missing: the rank rule would merge it, HF does not; the entry
  // keeps the merge table.
  TempDir other;
  const auto other_settings = settings_in(other.path());
  const std::string missing = every_split_json(tokens, 40);
  const PretrainedTokenizer built = load(missing, other_settings);
  const PretrainedTokenizer read = load(missing, other_settings);
  REQUIRE_FALSE(read.pipeline().compiled_entry.empty());
  CHECK(read.pipeline().byte_level->rule() == Rule::merges);
  for (const std::string& text : texts) CHECK(read.encode(text) == built.encode(text));
}

TEST_CASE("an entry keeps no vocabulary or merges its byte table implies, and lists the others",
          "[compiled]") {
  // How the file spells " ab", and how the entry would if it listed the
  // vocabulary: the byte table holds the bytes.
  const std::string spelled_ab = spelled(' ') + "ab";
  const auto load_twice = [](const std::string& json, const TempDir& dir) {
    const auto settings = settings_in(dir.path());
    PretrainedTokenizer first = load(json, settings);
    PretrainedTokenizer again = load(json, settings);
    REQUIRE_FALSE(again.pipeline().compiled_entry.empty());
    REQUIRE(again.pipeline().tokens->rows_pending());
    return std::pair{std::move(first), std::move(again)};
  };
  using Rule = tokenlab::ByteLevelEncoder::Rule;
  SECTION("GPT-4o's shape: every token in the byte alphabet, one merge a token") {
    TempDir dir;
    const auto [first, again] = load_twice(byte_level_json(), dir);
    CHECK(again.pipeline().byte_level->rule() == Rule::token_splits);
    CHECK(left_out_of(entries_in(dir.path()).front()) == (1 | 2));
    const std::string entry = read_bytes(entries_in(dir.path()).front());
    CHECK(entry.find(spelled_ab) == std::string::npos);
    // Spelled back from the byte table when asked for, merges made again.
    same_tokenizer(first, again);
  }
  SECTION("a token outside the alphabet, and a merge with it: both lists kept") {
    TempDir dir;
    const auto [first, again] =
        load_twice(byte_level_json(100000, {{"\u4e2d", "a"}}, {"\u4e2d"}), dir);
    REQUIRE(first.pipeline().tokens->find("\u4e2da"));
    // The merge with a token not spelled in bytes never merges a piece's
    // parts: the encoder keeps its rule, but the list it implies lacks it.
    CHECK(again.pipeline().byte_level->rule() == Rule::token_splits);
    CHECK(left_out_of(entries_in(dir.path()).front()) == 0);
    const std::string entry = read_bytes(entries_in(dir.path()).front());
    CHECK(entry.find(spelled_ab) != std::string::npos);
    same_tokenizer(first, again);
    CHECK(again.encode("\u4e2da ab") == first.encode("\u4e2da ab"));
  }
  SECTION("Llama 3's shape with a token outside the alphabet: merges made, vocabulary kept") {
    TempDir dir;
    const auto [first, again] = load_twice(every_split_json({"ab", "bc", "abc", "\u4e2d"}), dir);
    CHECK(again.pipeline().byte_level->rule() == Rule::ranks);
    CHECK(left_out_of(entries_in(dir.path()).front()) == 4);
    const std::string entry = read_bytes(entries_in(dir.path()).front());
    CHECK(entry.find("\u4e2d") != std::string::npos);  // the vocabulary, listed
    const auto merges = first.pipeline().model->rules().merges;
    REQUIRE(merges.size() == 4);  // a b, b c, ab c, a bc
    same_tokenizer(first, again);
  }
}

TEST_CASE("an entry is the same bytes whichever thread count wrote it", "[compiled]") {
  const Fixture& fixture = GENERATE(as<Fixture>{}, kFixtures[0], kFixtures[1]);
  INFO(fixture.name);
  TempDir one;
  TempDir two;
  const std::string json = std::string(fixture.name) == "byte-level"
                               ? byte_level_json(100000, {{"a", "bc"}})
                               : whole_line_json();
  (void)load(json, settings_in(one.path()), 1);
  (void)load(json, settings_in(two.path()), 2);
  const auto a = entries_in(one.path());
  const auto b = entries_in(two.path());
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a.front().filename() == b.front().filename());
  CHECK(read_bytes(a.front()) == read_bytes(b.front()));
}

TEST_CASE("a damaged, short or foreign entry is a miss: the file is read and the entry rewritten",
          "[compiled]") {
  const Fixture& fixture = GENERATE(as<Fixture>{}, kFixtures[0], kFixtures[1]);
  INFO(fixture.name);
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = fixture.json(100000);
  const PretrainedTokenizer reference = load(json, settings);
  const auto entries = entries_in(dir.path());
  REQUIRE(entries.size() == 1);
  const fs::path entry = entries.front();
  const std::string good = read_bytes(entry);

  struct Damage {
    const char* what;
    std::string bytes;
  };
  std::vector<Damage> damages;
  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x10);
  damages.push_back({"a byte of the payload flipped", flipped});
  damages.push_back({"cut short", good.substr(0, good.size() - 1000)});
  damages.push_back({"only the header", good.substr(0, 64)});
  damages.push_back({"empty", ""});
  std::string other_build = good;
  other_build[8] = static_cast<char>(other_build[8] ^ 1);  // the header's build id
  damages.push_back({"another build's", other_build});
  std::string last_byte = good;
  last_byte.back() = static_cast<char>(last_byte.back() ^ 0x80);
  damages.push_back({"its last byte changed", last_byte});
  for (const Damage& d : damages) {
    INFO(d.what);
    write_bytes(entry, d.bytes);
    const PretrainedTokenizer read = load(json, settings);
    CHECK_FALSE(read.pipeline().tokens->rows_pending());  // the file's own tables
    same_tokenizer(reference, read);
    // Written again, whole: the next load takes it.
    CHECK(load(json, settings).pipeline().tokens->rows_pending());
  }
}

namespace {

// A whole-line entry's sections, in the order hf/compiled_json.cpp and
// hf/bpe_model.cpp write them (each padded to 8 bytes after a 64-byte
// header), so that a test can change one and write the entry again with a
// valid checksum: damage the checksum cannot catch, as a bug in a writer
// would make.
struct EntrySections {
  std::vector<std::string> sections;
  std::size_t left_out = 0, merge_count = 0, table_capacity = 0, table_size = 0, astral = 0,
              cut_capacity = 0, cut_size = 0, added = 0, added_records = 0, added_bytes = 0;
};

EntrySections whole_line_sections(const std::string& entry) {
  EntrySections e;
  std::size_t at = 64;
  const auto take = [&](std::size_t n) {
    REQUIRE(at + n <= entry.size());
    e.sections.push_back(entry.substr(at, n));
    at += (n + 7) / 8 * 8;
    return e.sections.size() - 1;
  };
  const auto u64 = [&](std::size_t index) {
    std::uint64_t v = 0;
    std::memcpy(&v, e.sections[index].data(), sizeof v);
    return static_cast<std::size_t>(v);
  };
  (void)take(8);                          // kind
  const std::size_t size = u64(take(8));  // tokens
  (void)take(8);                          // id limit
  e.left_out = take(8);                   // none: a whole-line file has no byte table
  REQUIRE(u64(e.left_out) == 0);
  (void)take(size * 4);      // ids
  (void)take(size * 4);      // lengths
  (void)take(u64(take(8)));  // their bytes
  e.merge_count = take(8);   // merges
  (void)take(u64(e.merge_count) * 12);
  e.table_capacity = take(8);  // the merge table
  e.table_size = take(8);
  (void)take(u64(e.table_capacity) * 16);
  (void)take(u64(take(8)) * 4);  // the BMP's index
  e.astral = take(8);            // the tokens beyond it
  (void)take(u64(e.astral) * 8);
  REQUIRE(e.sections[take(1)][0] == 1);  // cuts
  (void)take(u64(take(8)) * 8);
  (void)take(2048);
  e.cut_capacity = take(8);  // the table of the pairs some token holds
  e.cut_size = take(8);
  (void)take(u64(e.cut_capacity) * 16);
  (void)take(4);  // unknown
  (void)take(1);
  (void)take(1024);  // byte fallback
  e.added = take(8);
  e.added_records = take(u64(e.added) * 16);  // id, flags and two lengths each
  e.added_bytes = take(8);                    // their strings
  (void)take(u64(e.added_bytes));
  (void)take(entry.size() - at);  // the lists' places
  REQUIRE(at == entry.size());
  return e;
}

// The entry good's header (this build's, this file's) before sections, with
// the payload's size and checksum as compiled::Writer::commit makes them
// (compiled_file.cpp: each section and its padding chained 64 KiB at a time).
std::string entry_with(const std::string& good, const std::vector<std::string>& sections) {
  std::uint64_t checksum = 0;
  std::string payload;
  const auto chain = [&](std::string_view bytes) {
    for (std::size_t at = 0; at < bytes.size(); at += std::size_t{64} << 10) {
      const compiled::Digest d = compiled::digest_of(bytes.substr(at, std::size_t{64} << 10));
      checksum = (std::rotl(checksum, 23) * 0x9E3779B185EBCA87ull) ^ d.low ^ std::rotl(d.high, 32);
    }
  };
  for (const std::string& section : sections) {
    const std::string padding((8 - section.size() % 8) % 8, '\0');
    chain(section);
    if (!padding.empty()) chain(padding);
    payload += section + padding;
  }
  std::string entry = good.substr(0, 64);
  const std::uint64_t payload_bytes = payload.size();
  std::memcpy(entry.data() + 32, &payload_bytes, 8);
  std::memcpy(entry.data() + 40, &checksum, 8);
  return entry + payload;
}

}  // namespace

TEST_CASE("a whole-line entry whose sizes lie is a miss, however large the lie", "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = whole_line_json();
  const PretrainedTokenizer reference = load(json, settings);
  const auto entries = entries_in(dir.path());
  REQUIRE(entries.size() == 1);
  const std::string good = read_bytes(entries.front());
  const EntrySections parsed = whole_line_sections(good);
  // Written again as it is, the entry is still a hit: the test's writer is
  // the library's.
  write_bytes(entries.front(), entry_with(good, parsed.sections));
  REQUIRE_FALSE(load(json, settings).pipeline().compiled_entry.empty());

  struct Lie {
    const char* what;
    std::size_t EntrySections::*section;
    std::uint64_t value;
  };
  const Lie lies[] = {
      // A byte-level encoder's to make again: this entry has none.
      {"the vocabulary and merges left out", &EntrySections::left_out, 3},
      {"merges: 2^62 (times 12 wraps around)", &EntrySections::merge_count, 1ull << 62},
      {"merge table: 2^40 slots", &EntrySections::table_capacity, 1ull << 40},
      {"merge table: every slot full", &EntrySections::table_size, 0},  // set below
      {"tokens beyond the BMP: more than the entry holds", &EntrySections::astral, 0x100000},
      {"cut pairs' table: 2^63 slots", &EntrySections::cut_capacity, 1ull << 63},
      {"cut pairs' table: every slot full", &EntrySections::cut_size, 0},  // set below
      {"added tokens: 2^60 + 1 (times 16 wraps around)", &EntrySections::added, (1ull << 60) + 1},
      {"added tokens' strings: 2^40 bytes", &EntrySections::added_bytes, 1ull << 40},
      {"an added token longer than their strings", &EntrySections::added_records, 0},  // below
  };
  for (const Lie& lie : lies) {
    INFO(lie.what);
    EntrySections e = parsed;
    std::uint64_t value = lie.value;
    if (lie.section == &EntrySections::table_size)
      std::memcpy(&value, e.sections[e.table_capacity].data(), sizeof value);
    if (lie.section == &EntrySections::cut_size)
      std::memcpy(&value, e.sections[e.cut_capacity].data(), sizeof value);
    if (lie.section == &EntrySections::added_records) {
      // The first record's content length (its third word) past the strings' end.
      REQUIRE(e.sections[e.added_records].size() >= 16);
      const std::uint32_t length = 1u << 30;
      std::memcpy(e.sections[e.added_records].data() + 8, &length, sizeof length);
    } else {
      std::memcpy(e.sections[e.*(lie.section)].data(), &value, sizeof value);
    }
    write_bytes(entries.front(), entry_with(good, e.sections));
    const PretrainedTokenizer read = load(json, settings);
    CHECK(read.pipeline().compiled_entry.empty());  // a miss: the file's own tables
    same_tokenizer(reference, read);
    CHECK(read_bytes(entries.front()) == good);  // and written again
  }
}

TEST_CASE("another file's bytes never read an entry", "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string json = byte_level_json();
  (void)load(json, settings);
  // One merge fewer: a file that differs by a few bytes at its end.
  const std::string shorter = byte_level_json(1377);
  const PretrainedTokenizer read = load(shorter, settings);
  CHECK_FALSE(read.pipeline().tokens->rows_pending());
  CHECK(entries_in(dir.path()).size() == 2);
  const PretrainedTokenizer again = load(shorter, settings);
  CHECK(again.pipeline().tokens->rows_pending());
  same_tokenizer(read, again);
  // The last merge (" z" + "z") is what the two files differ by.
  CHECK(again.encode(" zz") != load(json, settings).encode(" zz"));
}

TEST_CASE("the cache keeps its newest entries", "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path(), 2);
  for (const std::size_t merges : {1300u, 1310u, 1320u})
    (void)load(byte_level_json(merges), settings);
  CHECK(entries_in(dir.path()).size() == 2);
  // The oldest went: loading it again is a miss.
  CHECK_FALSE(load(byte_level_json(1300), settings).pipeline().tokens->rows_pending());
  CHECK(load(byte_level_json(1320), settings).pipeline().tokens->rows_pending());
}

TEST_CASE("the cache keeps the entries read most recently", "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path(), 2);
  const auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  (void)load(byte_level_json(1300), settings);
  pause();
  (void)load(byte_level_json(1310), settings);
  pause();
  // Read again, the first entry becomes the newest: the third file's entry
  // then pushes out the second's, which was written later but not read since.
  REQUIRE(load(byte_level_json(1300), settings).pipeline().tokens->rows_pending());
  pause();
  (void)load(byte_level_json(1320), settings);
  CHECK(entries_in(dir.path()).size() == 2);
  CHECK(load(byte_level_json(1300), settings).pipeline().tokens->rows_pending());
  CHECK_FALSE(load(byte_level_json(1310), settings).pipeline().tokens->rows_pending());
}

TEST_CASE("a cache that cannot be written costs nothing but the write", "[compiled]") {
  TempDir dir;
  write_bytes(dir / "not-a-directory", "x");
  const auto settings = settings_in(dir / "not-a-directory" / "models");
  const std::string json = byte_level_json();
  const PretrainedTokenizer a = load(json, settings);
  const PretrainedTokenizer b = load(json, settings);
  CHECK_FALSE(b.pipeline().tokens->rows_pending());
  same_tokenizer(a, b);
  CHECK(entries_in(dir.path()).empty());
}

TEST_CASE("files the cache does not take: small ones, other models, and a cache turned off",
          "[compiled]") {
  TempDir dir;
  SECTION("below the size from which loading is worth an entry") {
    auto settings = settings_in(dir.path());
    settings.min_file_bytes = byte_level_json().size() + 1;
    (void)load(byte_level_json(), settings);
    CHECK(entries_in(dir.path()).empty());
  }
  SECTION("a BPE model the fused encoder does not run (an unknown token)") {
    std::string json = byte_level_json();
    const std::string null_unk = R"("unk_token":null)";
    json.replace(json.find(null_unk), null_unk.size(), R"("unk_token":"a")");
    (void)load(json, settings_in(dir.path()));
    CHECK(entries_in(dir.path()).empty());
  }
  SECTION("a model that is neither BPE nor WordPiece, however large") {
    std::string json = R"({"model":{"type":"WordLevel","unk_token":"[UNK]","vocab":{"[UNK]":0)";
    for (int i = 1; i < 5000; ++i) json += ",\"w" + std::to_string(i) + "\":" + std::to_string(i);
    (void)load(json + "}}}", settings_in(dir.path()));
    CHECK(entries_in(dir.path()).empty());
  }
  SECTION("TOKENLAB_MODEL_CACHE=off, and a directory of one's own") {
    ::setenv("TOKENLAB_MODEL_CACHE", "off", 1);
    CHECK_FALSE(ModelCache::from_environment().directory.has_value());
    ::setenv("TOKENLAB_MODEL_CACHE", dir.path().c_str(), 1);
    const auto own = ModelCache::from_environment();
    ::unsetenv("TOKENLAB_MODEL_CACHE");
    REQUIRE(own.directory.has_value());
    CHECK(*own.directory == dir.path());
    CHECK(own.min_file_bytes == std::size_t{256} << 10);
  }
}

TEST_CASE("the digest naming an entry covers every byte", "[compiled]") {
  std::string text(1000, 'x');
  const compiled::Digest whole = compiled::digest_of(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string changed = text;
    changed[i] = 'y';
    REQUIRE_FALSE(compiled::digest_of(changed) == whole);
  }
  // Every length up to the whole, across stripes (64 bytes) and the scramble
  // of each block of 512: no two prefixes share a digest.
  std::set<std::pair<std::uint64_t, std::uint64_t>> prefixes;
  for (std::size_t n = 0; n <= text.size(); ++n) {
    const compiled::Digest d = compiled::digest_of(std::string_view(text).substr(0, n));
    prefixes.emplace(d.low, d.high);
  }
  CHECK(prefixes.size() == text.size() + 1);
  CHECK(compiled::digest_of("") == compiled::digest_of(std::string()));
  CHECK_FALSE(compiled::digest_of(std::string(1, '\0')) == compiled::digest_of(""));
  CHECK(whole.hex().size() == 32);
}

TEST_CASE("the digest is the same on every path the machine may take", "[compiled]") {
  // digest_of runs 16 or 32 bytes a step where the CPU has SSE2 or AVX2; a
  // cache directory shared by machines with and without them needs the same
  // names from all: every length across stripes, blocks and the tail, in
  // bytes of every value, by each path this machine has against the lane-by-
  // lane definition.
  std::mt19937_64 random(20261207);
  std::string bytes(70'000, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  using compiled::DigestPath;
  std::vector<DigestPath> paths;
  for (const DigestPath path : {DigestPath::sse2, DigestPath::avx2})
    if (compiled::digest_path_available(path)) paths.push_back(path);
  INFO(paths.size() << " vector paths on this machine");
  const auto definition = [](std::string_view b) {
    return compiled::digest_by_path(b, DigestPath::lane_by_lane);
  };
  for (std::size_t n = 0; n <= 1100; ++n) {
    const std::string_view prefix = std::string_view(bytes).substr(0, n);
    REQUIRE(compiled::digest_of(prefix) == definition(prefix));
    for (const DigestPath path : paths)
      REQUIRE(compiled::digest_by_path(prefix, path) == definition(prefix));
  }
  for (const std::size_t n : {4095, 4096, 4097, 65'535, 65'536, 65'537, 70'000}) {
    const std::string_view prefix = std::string_view(bytes).substr(0, n);
    CHECK(compiled::digest_of(prefix) == definition(prefix));
    CHECK(compiled::digest_of(prefix.substr(1)) == definition(prefix.substr(1)));
    for (const DigestPath path : paths)
      CHECK(compiled::digest_by_path(prefix.substr(3), path) == definition(prefix.substr(3)));
  }
}

namespace {

// A tiktoken rank file ("base64 rank" a line): the 256 bytes, every two-letter
// token, a space before each letter, and "abc" (a token the byte-pair ranks
// reach: "ab" then "abc").
std::string rank_file() {
  std::string file;
  std::size_t rank = 0;
  const auto add = [&](const std::string& token) {
    file += tokenlab::test::base64(token) + " " + std::to_string(rank++) + "\n";
  };
  for (unsigned b = 0; b < 256; ++b) add(std::string(1, static_cast<char>(b)));
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) add({x, y});
  for (char x = 'a'; x <= 'z'; ++x) add({' ', x});
  add("abc");
  return file;
}

PretrainedTokenizer load_tiktoken(const std::string& file, const std::string& encoding,
                                  const ModelCache& settings) {
  return PretrainedTokenizer::from_bytes(file, encoding + ".tiktoken", "tiktoken:" + encoding, 1,
                                         settings);
}

}  // namespace

TEST_CASE("a tiktoken file is compiled too, keyed by its bytes and its encoding", "[compiled]") {
  TempDir dir;
  const auto settings = settings_in(dir.path());
  const std::string file = rank_file();
  const PretrainedTokenizer built = load_tiktoken(file, "cl100k_base", settings);
  CHECK(built.pipeline().compiled_entry.empty());
  REQUIRE(entries_in(dir.path()).size() == 1);
  const PretrainedTokenizer read = load_tiktoken(file, "cl100k_base", settings);
  CHECK(read.pipeline().compiled_entry == entries_in(dir.path()).front().string());
  REQUIRE(read.pipeline().byte_level != nullptr);
  CHECK(read.pipeline().tokens->rows_pending());  // deferred, as after a read
  same_tokenizer(built, read);
  CHECK(read.encode("abc<|endoftext|> abcabc") == built.encode("abc<|endoftext|> abcabc"));
  REQUIRE(read.pipeline().added.tokens().size() == built.pipeline().added.tokens().size());
  for (std::size_t i = 0; i < built.pipeline().added.tokens().size(); ++i) {
    CHECK(read.pipeline().added.tokens()[i].content == built.pipeline().added.tokens()[i].content);
    CHECK(read.pipeline().added.tokens()[i].id == built.pipeline().added.tokens()[i].id);
  }
  // The same bytes as another encoding: another pattern and other specials,
  // so another entry, never this one.
  const PretrainedTokenizer o200k = load_tiktoken(file, "o200k_base", settings);
  CHECK(o200k.pipeline().compiled_entry.empty());
  CHECK(entries_in(dir.path()).size() == 2);
  const PretrainedTokenizer o200k_again = load_tiktoken(file, "o200k_base", settings);
  CHECK_FALSE(o200k_again.pipeline().compiled_entry.empty());
  CHECK(o200k_again.pipeline().compiled_entry != read.pipeline().compiled_entry);
  same_tokenizer(o200k, o200k_again);
  CHECK(o200k_again.pipeline().byte_level->pattern() != read.pipeline().byte_level->pattern());
}

namespace {

std::vector<fs::path> stamps_in(const fs::path& dir) {
  return files_in(dir, ".tlstamp");
}

// A file's bytes written anew, after the clock has moved on: a write in the
// tick the file was last digested in is what settled_seconds guards against,
// and these tests turn that guard off.
void rewrite(const fs::path& path, const std::string& bytes) {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  write_bytes(path, bytes);
}

PretrainedTokenizer load_file(const fs::path& path, const ModelCache& settings,
                              unsigned threads = 1) {
  return PretrainedTokenizer::load(path, "auto", threads, settings);
}

// A file written now, and a cache of its own whose settled time is off (the
// file would otherwise be too new for a stamp).
struct FileAndCache {
  TempDir files;
  TempDir cache;
  ModelCache settings;
  fs::path path;
  FileAndCache(const std::string& name, const std::string& bytes)
      : settings(settings_in(cache.path())), path(files / name) {
    settings.settled_seconds = 0;
    write_bytes(path, bytes);
  }
  [[nodiscard]] PretrainedTokenizer load(unsigned threads = 1) const {
    return load_file(path, settings, threads);
  }
};

}  // namespace

TEST_CASE("a file the cache knows by its stamp is not digested, nor its lists read",
          "[compiled][stamp]") {
  const Fixture& fixture = GENERATE(from_range(std::begin(kFixtures), std::end(kFixtures)));
  INFO(fixture.name);
  const FileAndCache f("tokenizer.json", fixture.json(2000));
  // The first load digests the file, writes its entry and its stamp.
  const PretrainedTokenizer first = f.load();
  CHECK(first.pipeline().compiled_entry.empty());
  CHECK(stamps_in(f.cache.path()).size() == 1);
  // The next loads know the file by its stamp: the lists, which the entry
  // holds, are left unread (zero in the buffer, and jumped over by the parse).
  for (const unsigned threads : {1u, 2u}) {
    const PretrainedTokenizer again = f.load(threads);
    CHECK(again.pipeline().compiled_by_stamp);
    CHECK(again.pipeline().compiled_entry == entries_in(f.cache.path()).front().string());
    same_tokenizer(first, again);
  }
  // Read from bytes there is no file, and so no stamp: the digest finds the entry.
  const PretrainedTokenizer from_bytes = load(read_bytes(f.path), f.settings);
  CHECK_FALSE(from_bytes.pipeline().compiled_entry.empty());
  CHECK_FALSE(from_bytes.pipeline().compiled_by_stamp);
}

TEST_CASE("a file whose added tokens run past its head is known by its stamp too",
          "[compiled][stamp]") {
  // 3,000 added tokens before the others, 0.3 MB, as Gemma 3's 6,415 fill
  // its first 0.9 MB: the stamped load leaves three stretches of the file
  // unread (the added tokens past the 64 KiB head, the vocabulary, the merges)
  // and takes the added tokens from the entry.
  std::string json = whole_line_json(2000);
  const std::string list = R"("added_tokens":[)";
  std::string many;
  for (int i = 0; i < 3000; ++i)
    many +=
        R"({"id":0,"content":"<unused)" + std::to_string(i) +
        R"(>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)";
  json.insert(json.find(list) + list.size(), many);
  REQUIRE(json.find("<start_of_turn>") > std::size_t{64} << 10);
  const FileAndCache f("tokenizer.json", json);
  const PretrainedTokenizer first = f.load();
  REQUIRE(first.pipeline().added.tokens().size() == 3000 + 7);
  for (const unsigned threads : {1u, 2u}) {
    const PretrainedTokenizer again = f.load(threads);
    CHECK(again.pipeline().compiled_by_stamp);
    same_tokenizer(first, again);
    const std::string text = "a<unused0>b <unused2999><start_of_turn>k9 hello world<unused30000>";
    CHECK(again.encode(text) == first.encode(text));
    CHECK(again.encode("<unused2999>") == Ids{first.pipeline().added.tokens()[2999].id});
  }
}

TEST_CASE("a WordPiece file known by its stamp reads its entry, its vocabulary unread",
          "[compiled][stamp][wordpiece]") {
  const std::string json = wordpiece_json(true, true);
  REQUIRE(json.size() > std::size_t{3} * (64 << 10));
  const FileAndCache f("tokenizer.json", json);
  const PretrainedTokenizer first = f.load();
  CHECK(first.pipeline().compiled_entry.empty());
  CHECK(stamps_in(f.cache.path()).size() == 1);
  for (const unsigned threads : {1u, 2u}) {
    const PretrainedTokenizer again = f.load(threads);
    CHECK(again.pipeline().compiled_by_stamp);
    CHECK(again.pipeline().added_from_entry);
    const std::string text = "the quick brown fox jumps over the lazy dog abc xyzzy";
    CHECK(again.encode(text) == first.encode(text));
    CHECK(again.pipeline().tokens->rows_pending());  // the vocabulary left unread and unspelled
    same_tokenizer(first, again);
  }
}

TEST_CASE("a file changed since its stamp was kept is digested again", "[compiled][stamp]") {
  const std::string before = byte_level_json(2000);
  const FileAndCache f("tokenizer.json", before);
  (void)f.load();
  REQUIRE(f.load().pipeline().compiled_by_stamp);
  // The same size, two merges' places swapped ("b c" and "c d"): only the
  // bytes tell, and "bcd" is now "b", "cd".
  std::string after = before;
  const auto merges = after.find("\"merges\"");
  REQUIRE(merges != std::string::npos);
  const auto bc = after.find("\"b c\"", merges);
  const auto cd = after.find("\"c d\"", merges);
  REQUIRE((bc != std::string::npos && cd != std::string::npos));
  after.replace(bc, 5, "\"c d\"");
  after.replace(cd, 5, "\"b c\"");
  REQUIRE(after.size() == before.size());
  const PretrainedTokenizer unchanged = f.load();
  rewrite(f.path, after);
  const PretrainedTokenizer changed = f.load();
  CHECK_FALSE(changed.pipeline().compiled_by_stamp);
  CHECK(changed.pipeline().compiled_entry.empty());  // another digest, no entry yet
  CHECK(changed.encode("bcd") != unchanged.encode("bcd"));
  same_tokenizer(load(after, ModelCache::off()), changed);
  // Its new stamp is kept, and the next load uses it.
  const PretrainedTokenizer again = f.load();
  CHECK(again.pipeline().compiled_by_stamp);
  same_tokenizer(changed, again);
}

TEST_CASE("a stamp is kept only for a file that has settled", "[compiled][stamp]") {
  FileAndCache f("tokenizer.json", byte_level_json(2000));
  f.settings.settled_seconds = 3600;  // the file was changed less than an hour ago
  (void)f.load();
  const PretrainedTokenizer again = f.load();
  CHECK(stamps_in(f.cache.path()).empty());
  CHECK_FALSE(again.pipeline().compiled_entry.empty());  // found by its digest
  CHECK_FALSE(again.pipeline().compiled_by_stamp);
  f.settings.settled_seconds = -1;  // never by stamp, however old the file
  CHECK_FALSE(f.load().pipeline().compiled_by_stamp);
  CHECK(stamps_in(f.cache.path()).empty());
  // A modification time far in the future (touched to the year 3000) is never
  // settled, and costs no overflow.
  f.settings.settled_seconds = 0;
  const timespec year_3000[2] = {{32503680000, 0}, {32503680000, 0}};  // access, modification
  REQUIRE(::utimensat(AT_FDCWD, f.path.c_str(), year_3000, 0) == 0);
  (void)f.load();
  CHECK_FALSE(f.load().pipeline().compiled_by_stamp);
  CHECK(stamps_in(f.cache.path()).empty());
}

TEST_CASE("a damaged stamp, or one whose entry has gone, is a miss", "[compiled][stamp]") {
  const FileAndCache f("tokenizer.json", whole_line_json(2000));
  const PretrainedTokenizer reference = f.load();
  REQUIRE(stamps_in(f.cache.path()).size() == 1);
  const fs::path stamp = stamps_in(f.cache.path()).front();
  const std::string good = read_bytes(stamp);
  const auto damaged = [&](std::size_t at) {
    std::string bytes = good;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x40);
    return bytes;
  };
  // Its magic, the file's inode, its change time, its salt, the digest; short.
  const std::vector<std::string> stamps = {
      damaged(0), damaged(16), damaged(56), damaged(72), damaged(120), good.substr(0, 100), ""};
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    INFO("stamp " << i);
    write_bytes(stamp, stamps[i]);
    const PretrainedTokenizer read = f.load();
    CHECK_FALSE(read.pipeline().compiled_by_stamp);
    same_tokenizer(reference, read);
    // The digest found the entry, and the stamp is written again.
    CHECK_FALSE(read.pipeline().compiled_entry.empty());
    CHECK(read_bytes(stamp) == good);
  }
  // The entry gone: the stamp's digest names nothing, so the file is read
  // whole, digested and compiled again.
  for (const fs::path& entry : entries_in(f.cache.path())) fs::remove(entry);
  const PretrainedTokenizer rebuilt = f.load();
  CHECK_FALSE(rebuilt.pipeline().compiled_by_stamp);
  CHECK(rebuilt.pipeline().compiled_entry.empty());
  same_tokenizer(reference, rebuilt);
  CHECK(f.load().pipeline().compiled_by_stamp);
}

TEST_CASE("a tiktoken file known by its stamp is read no further than its head",
          "[compiled][stamp][tiktoken]") {
  const FileAndCache f("ranks.tiktoken", rank_file());
  const auto load_as = [&](const std::string& encoding) {
    return PretrainedTokenizer::load(f.path, "tiktoken:" + encoding, 1, f.settings);
  };
  const PretrainedTokenizer built = load_as("cl100k_base");
  CHECK_FALSE(built.pipeline().compiled_by_stamp);
  const PretrainedTokenizer known = load_as("cl100k_base");
  CHECK(known.pipeline().compiled_by_stamp);
  CHECK_FALSE(known.pipeline().compiled_entry.empty());
  same_tokenizer(built, known);
  // The same file as another encoding is another entry: its stamp is no use.
  const PretrainedTokenizer o200k = load_as("o200k_base");
  CHECK_FALSE(o200k.pipeline().compiled_by_stamp);
  CHECK(o200k.pipeline().byte_level->pattern() != known.pipeline().byte_level->pattern());
  CHECK(load_as("o200k_base").pipeline().compiled_by_stamp);
  // Changed: digested again, with the new ranks ("abc" is no token now).
  std::string changed = rank_file();
  changed.resize(changed.rfind('\n', changed.size() - 2) + 1);
  rewrite(f.path, changed);
  const PretrainedTokenizer shorter = load_as("o200k_base");
  CHECK_FALSE(shorter.pipeline().compiled_by_stamp);
  CHECK(shorter.encode("abc").size() == 2);
  CHECK(load_as("o200k_base").encode("abc").size() == 2);
}

TEST_CASE("a file whose first 64 KiB are white space is still told by what follows",
          "[compiled][stamp]") {
  const FileAndCache f("tokenizer.json", std::string(70000, ' ') + byte_level_json(2000));
  const PretrainedTokenizer first = f.load();
  CHECK(first.pipeline().format == "tokenizer.json");
  same_tokenizer(load(byte_level_json(2000), ModelCache::off()), first);
  same_tokenizer(first, f.load());
}
