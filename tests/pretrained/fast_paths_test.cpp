// The encoders' fast paths against the plain algorithms they stand for, on
// hostile text: BERT's one-pass pre-tokenizer and word-by-word normalizer,
// whole-line BPE cut at "▁" and cached (HF tokenizer.json and SentencePiece
// .model), and WordPiece's word cache. Each text is a random string of
// fragments chosen to sit on every boundary the fast paths draw: white space of
// every kind, punctuation, controls, marks, CJK, astral characters, unknown
// characters and tokens that join a character to a "▁".
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "export_support.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/sentencepiece_writer.hpp"
#include "tokenlab/pretrained/token_table.hpp"
#include "tokenlab/unigram/unigram_model.hpp"
#include "tokenlab/utf8.hpp"

using tokenlab::PretrainedTokenizer;
using tokenlab::test::Ids;
using tokenlab::test::Pieces;
using tokenlab::test::tokenizer_json;

namespace {

// count texts of up to max_fragments fragments each, the same on every run.
std::vector<std::string> hostile_texts(const std::vector<std::string>& fragments, std::size_t count,
                                       std::size_t max_fragments) {
  std::uint64_t state = 0x9E3779B97F4A7C15u;
  const auto next = [&](std::size_t n) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<std::size_t>((state >> 33) % n);
  };
  std::vector<std::string> texts;
  for (std::size_t t = 0; t < count; ++t) {
    std::string text;
    const std::size_t n = next(max_fragments + 1);
    for (std::size_t i = 0; i < n; ++i) text += fragments[next(fragments.size())];
    texts.push_back(std::move(text));
  }
  return texts;
}

const std::vector<std::string> kBertFragments = {
    " ",      "  ",         "\t",     "\n",     "\r",     "\u00A0", "\u3000",
    "\u2028", "a",          "Z",      "9",      "hello",  "WORLD",  ".",
    ",",      "$",          "-",      "##",     "\u00BF", "\u00A3", "\u4E2D",
    "\u6587", "e\u0301",    "\u00C9", "\u200B", "\x01",   "\x7F",   std::string(1, '\0'),
    "\uFFFD", "\U0001F600", "\u0301", "\u03A3", "\u0130", "\uFF21", "caf\u00E9"};

// HF's handle_chinese_chars: a space each side of every CJK ideograph.
std::string cjk_spaced(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = tokenlab::utf8::sequence_length(text, i);
    const bool cjk = tokenlab::bert::is_chinese(tokenlab::utf8::decode_at(text, i));
    if (cjk) out += ' ';
    out.append(text, i, length);
    if (cjk) out += ' ';
    i += length;
  }
  return out;
}

Pieces split_with(const tokenlab::PreTokenizerStep& step, std::string_view text) {
  Pieces out;
  step.split(text, true, out);
  return out;
}

}  // namespace

TEST_CASE("BertPreTokenizer in one pass gives WhitespaceSplit then isolated punctuation",
          "[pretrained][fast]") {
  const auto bert = tokenlab::make_bert_pre_tokenizer();
  const auto spaces = tokenlab::make_whitespace_split_pre_tokenizer();
  const auto punctuation =
      tokenlab::make_punctuation_pre_tokenizer(tokenlab::SplitBehavior::isolated);
  CHECK(split_with(*bert, " Hello,  world!\u00A0$5 ") ==
        Pieces{"Hello", ",", "world", "!", "$", "5"});
  for (const std::string& text : hostile_texts(kBertFragments, 3000, 12)) {
    Pieces chained;
    for (const std::string& word : split_with(*spaces, text)) {
      const Pieces parts = split_with(*punctuation, word);
      chained.insert(chained.end(), parts.begin(), parts.end());
    }
    INFO("text: " << text);
    REQUIRE(split_with(*bert, text) == chained);
  }
}

TEST_CASE("BertNormalizer word by word gives the bert form of the whole line",
          "[pretrained][fast]") {
  for (const bool lowercase : {true, false}) {
    for (const bool strip_accents : {true, false}) {
      const auto step = tokenlab::make_bert_normalizer(true, true, strip_accents, lowercase);
      const tokenlab::Normalizer whole(
          tokenlab::NormalizerOptions{.form = tokenlab::NormalizationForm::bert,
                                      .lowercase = lowercase,
                                      .strip_accents = strip_accents});
      for (const std::string& text : hostile_texts(kBertFragments, 2000, 12)) {
        // What the step did before: the form over the line, then CJK spaced.
        const std::string expected = cjk_spaced(whole.normalize(text));
        std::string got = text;
        step->apply(got);
        INFO("text: " << text << " lowercase " << lowercase << " strip " << strip_accents);
        REQUIRE(got == expected);
      }
    }
  }
}

namespace {

// Whole-line BPE in the style of Llama 2 and Gemma 3: spaces become "▁", the
// line is one piece, byte fallback and fused unknowns. ">▁" is a token (Gemma 3
// has ">▁</"), so a line may not be cut between ">" and "▁"; "x" has no token
// and no byte tokens, so it is unknown, and the cut needs a known character.
PretrainedTokenizer whole_line_bpe() {
  return tokenizer_json(
      R"({"normalizer":{"type":"Replace","pattern":{"String":" "},"content":"\u2581"},)"
      R"("model":{"type":"BPE","unk_token":"<unk>","fuse_unk":true,"byte_fallback":true,)"
      R"("vocab":{"<unk>":0,"\u2581":1,"a":2,"b":3,">":4,"<0xC3>":5,"<0xA9>":6,)"
      R"("\u2581a":7,"ab":8,"\u2581ab":9,">\u2581":10,"ba":11,"\u2581\u2581":12,"<":13},)"
      R"("merges":["\u2581 a","a b","\u2581a b","> \u2581","\u2581 \u2581","b a"]}})");
}

// encode() of the model against its plain algorithm, each text twice (the
// second time from the cache).
void check_against_plain(const tokenlab::PretrainedModel& model,
                         const std::vector<std::string>& texts) {
  for (const std::string& text : texts) {
    Ids plain;
    model.encode_plain(text, plain);
    for (int pass = 0; pass < 2; ++pass) {
      Ids fast;
      model.encode(text, fast);
      INFO("text: " << text << " pass " << pass);
      REQUIRE(fast == plain);
    }
  }
}

}  // namespace

TEST_CASE("whole-line BPE cut at each \"▁\" gives the merges of the whole line",
          "[pretrained][fast]") {
  const auto bpe = whole_line_bpe();
  CHECK(bpe.encode(" ab ab") == Ids{9, 9});
  // "▁ a" ranks before ">▁": ">" stays alone although ">▁" is a token.
  CHECK(bpe.encode("> a") == Ids{4, 7});
  CHECK(bpe.encode(">  b") == Ids{10, 1, 3});
  // HF's merge_word holds an unknown back to fuse it with the next, and adds
  // byte-fallback tokens meanwhile: "é"'s bytes come before "x"'s unknown.
  CHECK(bpe.encode("x\u00E9 a") == Ids{5, 6, 0, 7});
  const std::vector<std::string> fragments = {
      "\u2581", "\u2581\u2581", "a",      "b",  "ab",      ">",        "<",
      "x",      "xx",           "\u00E9", "ba", "\u2581a", "\u2581ab", "\u4E2D"};
  check_against_plain(*bpe.pipeline().model, hostile_texts(fragments, 3000, 16));
}

TEST_CASE("SentencePiece BPE cut at each \"▁\" gives the merges of the whole text",
          "[pretrained][fast][sentencepiece]") {
  for (const char* name : {"bpe", "bpe_raw"}) {
    const auto spm = PretrainedTokenizer::load(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) /
                                               "pretrained" / (std::string(name) + ".model"));
    // The model's own pieces, spaces, and characters it has never seen.
    std::vector<std::string> fragments = {"\u2581", "\u2581\u2581", "\u4E2D", "\u00E9", "~"};
    for (std::uint32_t id = 0; id < spm.vocabulary_size(); id += 3)
      fragments.push_back(spm.token(id));
    INFO("model " << name);
    check_against_plain(*spm.pipeline().model, hostile_texts(fragments, 3000, 16));
  }
}

TEST_CASE("WordPiece's word cache gives the greedy longest match, unknown words included",
          "[pretrained][fast][wordpiece]") {
  const auto wordpiece = tokenizer_json(
      R"({"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",)"
      R"("max_input_chars_per_word":12,"vocab":{"[UNK]":0,"un":1,"##aff":2,"##able":3,"a":4,)"
      R"("##b":5,"\u00E9":6,"##\u00E9":7,"##a":8}}})");
  const std::vector<std::string> fragments = {"un", "aff", "able", "a", "b", "\u00E9", "x"};
  check_against_plain(*wordpiece.pipeline().model, hostile_texts(fragments, 3000, 8));
  CHECK(wordpiece.encode("unaffable") == Ids{1, 2, 3});
  CHECK(wordpiece.encode("unaffableable") == Ids{0});  // 13 characters: over the limit
}

TEST_CASE("TokenTable's batched insert and lookup agree with insert and find one by one",
          "[pretrained][fast]") {
  using tokenlab::TokenId;
  using tokenlab::TokenTable;
  std::vector<std::string> words;
  for (int i = 0; i < 3000; ++i) words.push_back("w" + std::to_string(i * 7919 % 3001));
  std::vector<TokenTable::Row> rows;
  for (std::size_t i = 0; i < words.size(); ++i)
    rows.push_back({static_cast<TokenId>(i * 2), words[i]});  // gaps at the odd ids
  TokenTable batched;
  TokenTable alone;
  CHECK(batched.insert_new(rows) == rows.size());
  for (const auto& row : rows) alone.insert(row.id, std::string(row.token), "here");
  CHECK(batched.size() == alone.size());
  CHECK(batched.id_limit() == alone.id_limit());
  // It stops, inserting nothing of it, at a row whose id or token is taken.
  const std::vector<TokenTable::Row> clash{{7001, "new"}, {7003, "w0"}, {7005, "other"}};
  CHECK(batched.insert_new(clash) == 1);
  CHECK(batched.find("new") == TokenId{7001});
  CHECK(batched.find("w0") == TokenId{0});
  CHECK_FALSE(batched.find("other"));
  const std::vector<TokenTable::Row> taken_id{{2, "fresh"}};
  CHECK(batched.insert_new(taken_id) == 0);
  std::vector<std::string_view> keys(words.begin(), words.end());
  keys.emplace_back("absent");
  keys.emplace_back("");
  std::vector<TokenId> ids(keys.size());
  batched.find_all(keys, ids);
  for (std::size_t i = 0; i < keys.size(); ++i)
    CHECK(ids[i] == alone.find(keys[i]).value_or(TokenTable::kNotFound));
}

TEST_CASE("TokenTable reserved for a vocabulary keeps room for the added tokens after it",
          "[pretrained][fast]") {
  // A file lists n tokens whose ids run a little past n (gaps: GPT-4o's
  // 200,000 run to 200,018), or added tokens just above them. Inserting
  // those must not move the n tokens to a larger array: for 200,000 tokens
  // that was a fresh 14 MiB the kernel zeroed during loading.
  using tokenlab::TokenId;
  using tokenlab::TokenTable;
  constexpr std::size_t n = 20000;
  TokenTable table;
  table.reserve(n);
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < n; ++i) tokens.push_back("t" + std::to_string(i));
  std::vector<TokenTable::Row> rows;
  for (std::size_t i = 0; i < n; ++i) rows.push_back({static_cast<TokenId>(i), tokens[i]});
  REQUIRE(table.insert_new(rows) == n);
  const std::string* first = table.token(0);
  for (TokenId id = n; id < n + 300; ++id)
    CHECK(table.insert(id, "<special_" + std::to_string(id) + ">", "added_tokens"));
  CHECK(table.token(0) == first);
  CHECK(*table.token(0) == "t0");
  CHECK(table.id_limit() == n + 300);
  CHECK(table.find("<special_20299>") == TokenId{n + 299});
}

TEST_CASE("A deferred TokenTable knows its size at once and fills its rows on first use, once",
          "[pretrained][fast]") {
  using tokenlab::TokenId;
  using tokenlab::TokenTable;
  std::vector<std::string> tokens;
  for (int i = 0; i < 5000; ++i) tokens.push_back("d" + std::to_string(i));
  std::atomic<int> fills{0};
  const auto table = TokenTable::deferred(tokens.size(), 2 * tokens.size(), [&](TokenTable& t) {
    ++fills;
    t.reserve(2 * tokens.size());
    std::vector<TokenTable::Row> rows;
    for (std::size_t i = 0; i < tokens.size(); ++i)
      rows.push_back({static_cast<TokenId>(2 * i), tokens[i]});  // gaps at the odd ids
    REQUIRE(t.insert_new(rows) == rows.size());
  });
  CHECK(table->size() == 5000);
  CHECK(table->id_limit() == 10000);
  CHECK(fills == 0);
  // Four threads ask at once: one fill, and every answer from the full table.
  std::vector<std::thread> readers;
  std::atomic<int> wrong{0};
  for (int r = 0; r < 4; ++r)
    readers.emplace_back([&, r] {
      for (std::size_t i = static_cast<std::size_t>(r); i < tokens.size(); i += 4) {
        if (table->find(tokens[i]) != TokenId(2 * i)) ++wrong;
        const std::string* token = table->token(static_cast<TokenId>(2 * i));
        if (!token || *token != tokens[i] || table->token(static_cast<TokenId>(2 * i + 1))) ++wrong;
      }
    });
  for (auto& t : readers) t.join();
  CHECK(wrong == 0);
  CHECK(fills == 1);
  CHECK(table->size() == 5000);
  CHECK(table->id_limit() == 10000);
  std::vector<std::string_view> keys{"d17", "absent", "d4999"};
  std::vector<TokenId> ids(keys.size());
  table->find_all(keys, ids);
  CHECK(ids == std::vector<TokenId>{34, TokenTable::kNotFound, 9998});
}

namespace {

// A unigram .model in protobuf wire format (ModelProto field 1: pieces, each
// { piece = 1, score = 2, type = 3 }; no trainer_spec, so UNIGRAM), with a
// user-defined symbol, an UNUSED piece and pieces that end mid-character, for
// every branch of the Viterbi step. With fillers, that many more pieces of
// "q" and six letters, so that the trie has more than 2^15 nodes and the walk
// takes its 8-byte links instead of the small trie's 4-byte ones. A piece that
// ends mid-character ("\xC3") keeps the encoder to its byte trie. Without it
// (well_formed) and with fillers of Devanagari letters instead (devanagari),
// most of the characters are three-byte ones, and the encoder walks its
// character trie.
std::string unigram_model_bytes(std::size_t fillers = 0, bool well_formed = false,
                                bool devanagari = false) {
  struct Piece {
    std::string text;
    float score;
    int type;  // 1 NORMAL, 2 UNKNOWN, 3 CONTROL, 4 USER_DEFINED, 5 UNUSED
  };
  std::vector<Piece> pieces = {
      {"<unk>", 0, 2},         {"<s>", 0, 3},         {"\u2581", -2, 1},       {"a", -3, 1},
      {"b", -3.5f, 1},         {"ab", -4, 1},         {"\u2581a", -4.5f, 1},   {"\u2581ab", -5, 1},
      {"ba", -6, 1},           {"abab", -9, 1},       {"<sep>", 0, 4},         {"\u4E2D", -7, 1},
      {"\u4E2D\u6587", -7, 1}, {"\u00E9", -8, 1},     {"b\u00E9", -11.5f, 1},  {"\xC3", -1, 1},
      {"aa", -1, 5},           {"a\u2581", -6.5f, 1}, {"\u2581\u2581", -3, 1}, {"bab", -9.5f, 1}};
  if (well_formed) std::erase_if(pieces, [](const Piece& p) { return p.text == "\xC3"; });
  for (std::size_t i = 0; i < fillers; ++i) {
    std::string text = devanagari ? "\u2581" : "q";
    for (std::size_t code = i * 7919 + 12345, k = 0; k < (devanagari ? 3 : 6); ++k, code /= 26) {
      if (!devanagari) {
        text += static_cast<char>('a' + code % 26);
        continue;
      }
      const auto letter = static_cast<unsigned>(0x915 + code % 26);  // U+0915 KA on
      text += static_cast<char>(0xE0);
      text += static_cast<char>(0x80 | (letter >> 6));
      text += static_cast<char>(0x80 | (letter & 0x3F));
    }
    pieces.push_back({text, -12.0f - static_cast<float>(i % 7), 1});
  }
  const auto varint = [](std::string& out, std::uint64_t v) {
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7F) | 0x80);
    out += static_cast<char>(v);
  };
  std::string model;
  for (const Piece& p : pieces) {
    std::string body = "\x0A";
    varint(body, p.text.size());
    body += p.text;
    body += '\x15';
    body.append(reinterpret_cast<const char*>(&p.score), 4);  // little-endian host
    body += '\x18';
    varint(body, static_cast<std::uint64_t>(p.type));
    model += '\x0A';
    varint(model, body.size());
    model += body;
  }
  return model;
}

}  // namespace

TEST_CASE("SentencePiece unigram's Viterbi gives the plain best path",
          "[pretrained][fast][sentencepiece]") {
  std::vector<PretrainedTokenizer> models;
  for (const char* name : {"unigram", "unigram_bytes"})
    models.push_back(PretrainedTokenizer::load(std::filesystem::path(TOKENLAB_TEST_DATA_DIR) /
                                               "pretrained" / (std::string(name) + ".model")));
  models.push_back(
      PretrainedTokenizer::from_bytes(unigram_model_bytes(12000), "large.model", "sentencepiece"));
  models.push_back(PretrainedTokenizer::from_bytes(unigram_model_bytes(12000, true),
                                                   "large-well-formed.model", "sentencepiece"));
  models.push_back(PretrainedTokenizer::from_bytes(unigram_model_bytes(0, true),
                                                   "well-formed.model", "sentencepiece"));
  models.push_back(PretrainedTokenizer::from_bytes(unigram_model_bytes(3000, true, true),
                                                   "devanagari.model", "sentencepiece"));
  models.push_back(
      PretrainedTokenizer::from_bytes(unigram_model_bytes(), "test.model", "sentencepiece"));
  for (const auto& spm : models) {
    // The model's own pieces, spaces, and characters it has never seen.
    std::vector<std::string> fragments = {"\u2581", "\u2581\u2581", "\u4E2D", "\u00E9",
                                          "~",      "\U0001F600",   "<sep>",  "\u0301"};
    for (std::uint32_t id = 0; id < spm.vocabulary_size(); id += 2)
      fragments.push_back(spm.token(id));
    check_against_plain(*spm.pipeline().model, hostile_texts(fragments, 3000, 16));
  }
  // The hand-made model, by hand: "<sep>" is taken whole, "aa" (UNUSED) never,
  // and "x" is unknown.
  const auto& spm = models.back();
  CHECK(spm.encode("ab<sep>aa x") == Ids{7, 10, 3, 3, 2, 0});
}

TEST_CASE("SentencePiece's normalizer copies whole runs of characters no rule starts at",
          "[pretrained][fast][sentencepiece]") {
  // An NFKC charsmap as the writer makes it: rules for single characters, and
  // for decomposed sequences that compose (a letter and a combining mark).
  const tokenlab::NormalizerOptions nfkc{.form = tokenlab::NormalizationForm::nfkc};
  const auto trained =
      tokenlab::test::trained(std::make_shared<tokenlab::unigram::UnigramSegmenter>(), nfkc,
                              tokenlab::test::kSentencePiece, 300);
  const auto spm = PretrainedTokenizer::from_bytes(
      tokenlab::write_sentencepiece(tokenlab::test::description_of(trained), nfkc,
                                    tokenlab::test::kSentencePiece),
      "nfkc.model", "sentencepiece");
  const tokenlab::NormalizerStep& step = *spm.pipeline().normalizers.front();
  const std::vector<std::string> fragments = {
      "a",      "Z",      " ",      "  ",     "\t",         "\u00A0",     "\u3000",
      "\uFF21", "e",      "\u0301", "\u00E9", "\u0915",     "\u093C",     "\u0958",
      "\u4E2D", "\u304B", "\u3099", "\u304C", "\U0001F600", "\U0001D400", "\uFB01",
      "\u1100", "\u1161", "\uAC00", "\u2581", "\u0627",     "\uFEFB",     "\u00BD"};
  for (const std::string& text : hostile_texts(fragments, 4000, 12)) {
    std::string fast = text;
    step.apply(fast);
    std::string plain = text;
    step.apply_plain(plain);
    INFO("text: " << text);
    REQUIRE(fast == plain);
  }
  // By hand: the full-width A is a rule, the kanji and the emoji are not, and
  // "e" with a combining acute composes.
  std::string text = "\uFF21\u4E2D\U0001F600 e\u0301";
  step.apply(text);
  CHECK(text == "\u2581A\u4E2D\U0001F600\u2581\u00E9");
}
