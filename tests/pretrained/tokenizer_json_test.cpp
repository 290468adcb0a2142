// Hugging Face tokenizer.json, component by component. Every expected value
// is what HF tokenizers 0.22 (npm @anush008/tokenizers) gives for the same
// fixture: encode(text, add_special_tokens=false) and decode(ids, false).
#include <catch2/catch.hpp>

#include <random>

#include "pretrained_support.hpp"
#include "tokenlab/pretrained/added_tokens.hpp"

using tokenlab::test::Ids;
using tokenlab::test::Pieces;
using tokenlab::test::pieces;
using tokenlab::test::pipeline_with;
using tokenlab::test::tokenizer_json;

// ---- models ------------------------------------------------------------------

TEST_CASE("a BPE model merges by rank, with merges as \"a b\" strings or [a, b] pairs",
          "[pretrained][tokenizer.json][bpe]") {
  const auto merges = GENERATE(as<std::string>{}, R"(["a b","ab c"])", R"([["a","b"],["ab","c"]])");
  CAPTURE(merges);
  const auto bpe = tokenizer_json(
      R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"ab":3,"abc":4,"bc":5},"merges":)" +
      merges + "}}");
  CHECK(bpe.encode("abc") == Ids{4});
  CHECK(bpe.encode("cab") == Ids{2, 3});
  CHECK(bpe.encode("abcab") == Ids{4, 3});
  CHECK(bpe.encode("ba") == Ids{1, 0});
  // Without a decoder HF joins the tokens with spaces.
  CHECK(bpe.decode(Ids{2, 3}) == "c ab");
}

TEST_CASE("vocab and merges in any order and mixed shapes give the same model",
          "[pretrained][tokenizer.json][bpe]") {
  // The reader takes model.vocab and model.merges from the parser's stream when
  // they have the common shapes, and from the document otherwise: every file
  // here is the same model to it.
  const std::string vocab = R"("vocab":{"a":0,"b":1,"c":2,"ab":3,"abc":4,"bc":5})";
  const auto merges = GENERATE(as<std::string>{}, R"("merges":["a b",["ab","c"]])",
                               R"("merges":[["a","b"],"ab c"])");
  const auto file = GENERATE_COPY(
      R"({"model":{"type":"BPE",)" + vocab + "," + merges + "}}",
      R"({"model":{)" + merges + "," + vocab + R"(,"type":"BPE"}})",
      // A vocab or merges member outside model is no model's list.
      R"({"version":"1.0","decoder":null,"model":{"type":"BPE",)" + vocab + "," + merges + "}}");
  CAPTURE(file);
  const auto bpe = tokenizer_json(file);
  CHECK(bpe.encode("abcab") == Ids{4, 3});
  CHECK(bpe.encode("ba") == Ids{1, 0});
  CHECK(bpe.vocabulary_size() == 6);
}

TEST_CASE("a BPE merge listed first wins over a later one", "[pretrained][tokenizer.json][bpe]") {
  const auto bpe =
      tokenizer_json(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"ab":3,"abc":4,"bc":5},)"
                     R"("merges":["b c","a b"]}})");
  CHECK(bpe.encode("abc") == Ids{0, 5});
  CHECK(bpe.encode("abab") == Ids{3, 3});
}

TEST_CASE("BPE's unknown characters become unk_token, fused with fuse_unk, else vanish",
          "[pretrained][tokenizer.json][bpe]") {
  const std::string vocab = R"("vocab":{"[UNK]":0,"a":1,"b":2},"merges":[])";
  SECTION("one unknown token per character") {
    const auto bpe =
        tokenizer_json(R"({"model":{"type":"BPE",)" + vocab + R"(,"unk_token":"[UNK]"}})");
    CHECK(bpe.encode("axyb") == Ids{1, 0, 0, 2});
    CHECK(bpe.encode("xa") == Ids{0, 1});
    CHECK(bpe.unknown_id() == 0u);
  }
  SECTION("fuse_unk: one unknown token per run") {
    const auto bpe = tokenizer_json(R"({"model":{"type":"BPE",)" + vocab +
                                    R"(,"unk_token":"[UNK]","fuse_unk":true}})");
    CHECK(bpe.encode("axyb") == Ids{1, 0, 2});
    CHECK(bpe.encode("xyaz") == Ids{0, 1, 0});
  }
  SECTION("no unk_token: the character is dropped") {
    const auto bpe = tokenizer_json(R"({"model":{"type":"BPE",)" + vocab + "}}");
    CHECK(bpe.encode("axyb") == Ids{1, 2});
    CHECK_FALSE(bpe.unknown_id());
  }
}

TEST_CASE("BPE byte_fallback spells an unknown character in <0xNN> tokens when all exist",
          "[pretrained][tokenizer.json][bpe]") {
  const auto bpe = tokenizer_json(
      R"({"model":{"type":"BPE","vocab":{"<unk>":0,"<0xC3>":1,"<0xA9>":2,"a":3,"<0x61>":4},)"
      R"("merges":[],"unk_token":"<unk>","byte_fallback":true},)"
      R"("decoder":{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]}})");
  CHECK(bpe.encode("a\u00e9") == Ids{3, 1, 2});  // é is C3 A9
  CHECK(bpe.encode("\u00e9\u00e9") == Ids{1, 2, 1, 2});
  CHECK(bpe.encode("a\u00fc") == Ids{3, 0});  // ü is C3 BC, and <0xBC> is missing
  CHECK(bpe.decode(Ids{3, 1, 2}) == "a\u00e9");
  CHECK(bpe.decode(Ids{1, 3}) == "\uFFFDa");
  CHECK(bpe.decode(Ids{2, 2}) == "\uFFFD\uFFFD");
}

TEST_CASE("BPE ignore_merges takes a word in the vocabulary whole",
          "[pretrained][tokenizer.json][bpe]") {
  const std::string model =
      R"("type":"BPE","vocab":{"h":0,"e":1,"y":2,"he":3,"hey":4},"merges":["h e"])";
  const auto merging = tokenizer_json(R"({"model":{)" + model + "}}");
  const auto ignoring = tokenizer_json(R"({"model":{)" + model + R"(,"ignore_merges":true}})");
  CHECK(merging.encode("hey") == Ids{3, 2});
  CHECK(ignoring.encode("hey") == Ids{4});
  CHECK(ignoring.encode("heyy") == Ids{3, 2, 2});  // not a word of the vocabulary: merged
}

TEST_CASE("BPE continuing_subword_prefix marks every character but a word's first",
          "[pretrained][tokenizer.json][bpe]") {
  const auto bpe = tokenizer_json(
      R"({"model":{"type":"BPE","vocab":{"a":0,"##b":1,"##c":2,"ab":3,"##bc":4,"b":5},)"
      R"("merges":["a ##b","##b ##c"],"continuing_subword_prefix":"##"}})");
  CHECK(bpe.encode("ab") == Ids{3});  // "a" + "##b" makes "ab"
  CHECK(bpe.encode("abc") == Ids{3, 2});
  CHECK(bpe.encode("abcb") == Ids{3, 2, 1});
  CHECK(bpe.encode("ba") == Ids{5});  // "##a" is unknown and dropped
}

TEST_CASE("BPE end_of_word_suffix marks a word's last character; BPEDecoder turns it to spaces",
          "[pretrained][tokenizer.json][bpe]") {
  const auto bpe = tokenizer_json(
      R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"a</w>":2,"b</w>":3,"ab</w>":4},)"
      R"("merges":["a b</w>"],"end_of_word_suffix":"</w>"},)"
      R"("pre_tokenizer":{"type":"WhitespaceSplit"},"decoder":{"type":"BPEDecoder","suffix":"</w>"}})");
  CHECK(bpe.encode("ab ba a") == Ids{4, 1, 2, 2});
  CHECK(bpe.decode(Ids{4, 1, 2, 2}) == "ab ba a");
}

TEST_CASE("a WordPiece model takes the longest prefix, then ##-prefixed continuations",
          "[pretrained][tokenizer.json][wordpiece]") {
  const std::string vocab =
      R"("vocab":{"[UNK]":0,"un":1,"##aff":2,"##able":3,"a":4,"##b":5,",":6},)"
      R"("unk_token":"[UNK]","continuing_subword_prefix":"##")";
  const auto wordpiece = tokenizer_json(
      R"({"model":{"type":"WordPiece",)" + vocab +
      R"(,"max_input_chars_per_word":100},"pre_tokenizer":{"type":"BertPreTokenizer"},)"
      R"("decoder":{"type":"WordPiece","prefix":"##","cleanup":true}})");
  CHECK(wordpiece.encode("unaffable, ab xyz unb") == Ids{1, 2, 3, 6, 4, 5, 0, 1, 5});
  CHECK(wordpiece.decode(Ids{1, 2, 3, 6, 4, 5}) == "unaffable, ab");
  SECTION("a word longer than max_input_chars_per_word is one unknown token") {
    const auto short_words = tokenizer_json(
        R"({"model":{"type":"WordPiece",)" + vocab +
        R"(,"max_input_chars_per_word":5},"pre_tokenizer":{"type":"BertPreTokenizer"}})");
    CHECK(short_words.encode("unaffable ab") == Ids{0, 4, 5});
  }
}

TEST_CASE("a Unigram model takes the best-scoring segmentation; unknown runs fuse",
          "[pretrained][tokenizer.json][unigram]") {
  const std::string vocab =
      R"([["<unk>",0.0],["a",-1.0],["b",-2.0],["ab",-1.5],["c",-3.0],["abc",-5.0])";
  const auto unigram =
      tokenizer_json(R"({"model":{"type":"Unigram","vocab":)" + vocab + R"(],"unk_id":0}})");
  CHECK(unigram.encode("abc") == Ids{3, 4});  // ab + c = -4.5 beats abc = -5
  CHECK(unigram.encode("cab") == Ids{4, 3});
  CHECK(unigram.encode("abx") == Ids{3, 0});
  CHECK(unigram.encode("xy") == Ids{0});
  CHECK(unigram.decode(Ids{3, 0}) == "ab <unk>");
  SECTION("byte_fallback spells an unknown run in bytes when every byte has a token") {
    const auto bytes =
        tokenizer_json(R"({"model":{"type":"Unigram","vocab":)" + vocab +
                       R"(,["<0x78>",-10.0],["<0x79>",-10.0]],"unk_id":0,"byte_fallback":true}})");
    CHECK(bytes.encode("axy") == Ids{1, 6, 7});
    CHECK(bytes.encode("az") == Ids{1, 0});
    CHECK(bytes.encode("xzy") == Ids{0});  // "z" has no byte token: the whole run is unknown
  }
}

TEST_CASE("Unigram scores are read as HF reads them, so equal-looking paths tie the same way",
          "[pretrained][tokenizer.json][unigram]") {
  // Scores from an HF-trained model. Am + I + II and Am + II + I differ by one ulp
  // when the scores are correctly rounded (the second wins); HF's serde_json reads
  // "-9.788626874800455" one ulp off, and then the first path wins. HF gives 1 2 3.
  const auto unigram = tokenizer_json(
      R"({"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],)"
      R"(["Am",-9.788626874800455],["I",-6.9231888147635505],["II",-8.97866136961785],)"
      R"(["A",-6.2124310231133455],["m",-5.9657816495686555]]}})");
  CHECK(unigram.encode("AmIII") == Ids{1, 2, 3});
}

TEST_CASE("a WordLevel model maps each pre-token to its id or the unknown token",
          "[pretrained][tokenizer.json][wordlevel]") {
  const auto words = tokenizer_json(
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"hello":1,"world":2,"!":3},)"
      R"("unk_token":"[UNK]"},"pre_tokenizer":{"type":"Whitespace"}})");
  CHECK(words.encode("hello there world!") == Ids{1, 0, 2, 3});
  CHECK(words.decode(Ids{1, 0, 2, 3}) == "hello [UNK] world !");
  CHECK(words.vocabulary_size() == 4);
  CHECK(words.token(2) == "world");
}

// ---- normalizers ---------------------------------------------------------------

TEST_CASE("Unicode normalizers compose (NFC) and fold compatibility forms (NFKC)",
          "[pretrained][tokenizer.json][normalizer]") {
  const auto nfc = pipeline_with(R"("normalizer":{"type":"NFC"})");
  CHECK(pieces(nfc, "e\u0301t\u00e9") == Pieces{"\u00e9t\u00e9"});
  CHECK(pieces(nfc, "A\u030A") == Pieces{"\u00c5"});
  const auto nfkc = pipeline_with(R"("normalizer":{"type":"NFKC"})");
  CHECK(pieces(nfkc, "\ufb01ne \u2460 \uff28\uff45\uff4c\uff4c\uff4f") == Pieces{"fine 1 Hello"});
  CHECK(pieces(nfkc, "x\u00b2") == Pieces{"x2"});
}

TEST_CASE("Lowercase lowers every cased letter", "[pretrained][tokenizer.json][normalizer]") {
  const auto lower = pipeline_with(R"("normalizer":{"type":"Lowercase"})");
  CHECK(pieces(lower, "HeLLo \u00c0\u00c9 \u03a3\u039f\u03a3") ==
        Pieces{"hello \u00e0\u00e9 \u03c3\u03bf\u03c3"});
}

TEST_CASE("Replace rewrites a string or every match of a regex",
          "[pretrained][tokenizer.json][normalizer]") {
  const auto literal = pipeline_with(
      R"("normalizer":{"type":"Replace","pattern":{"String":" "},"content":"\u2581"})");
  CHECK(pieces(literal, "a b  c") == Pieces{"a\u2581b\u2581\u2581c"});
  // \s is Unicode White_Space, U+000B included.
  const auto regex =
      pipeline_with(R"("normalizer":{"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "})");
  CHECK(pieces(regex, "a \t\n b\vc") == Pieces{"a b c"});
}

TEST_CASE("Prepend puts its text before a non-empty text",
          "[pretrained][tokenizer.json][normalizer]") {
  const auto prepend = pipeline_with(R"("normalizer":{"type":"Prepend","prepend":"\u2581"})");
  CHECK(pieces(prepend, "hi") == Pieces{"\u2581hi"});
  CHECK(pieces(prepend, "x y") == Pieces{"\u2581x y"});
  CHECK(pieces(prepend, "").empty());
}

TEST_CASE("Strip removes white space at either end", "[pretrained][tokenizer.json][normalizer]") {
  const auto both =
      pipeline_with(R"("normalizer":{"type":"Strip","strip_left":true,"strip_right":true})");
  CHECK(pieces(both, "  hi there \t") == Pieces{"hi there"});
  CHECK(pieces(both, "\u3000x\u00a0") == Pieces{"x"});
  const auto left =
      pipeline_with(R"("normalizer":{"type":"Strip","strip_left":true,"strip_right":false})");
  CHECK(pieces(left, "  hi  ") == Pieces{"hi  "});
}

TEST_CASE("BertNormalizer lowers, strips accents and spaces out CJK characters",
          "[pretrained][tokenizer.json][normalizer]") {
  const std::string text = "H\u00e9llo\tW\u00d6RLD \u4e2d\u6587x";
  SECTION("uncased (strip_accents null follows lowercase)") {
    const auto bert = pipeline_with(
        R"("normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,)"
        R"("strip_accents":null,"lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"})");
    CHECK(pieces(bert, text) == Pieces{"hello", "world", "\u4e2d", "\u6587", "x"});
  }
  SECTION("cased, CJK left alone") {
    const auto bert = pipeline_with(
        R"("normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":false,)"
        R"("strip_accents":false,"lowercase":false},"pre_tokenizer":{"type":"WhitespaceSplit"})");
    CHECK(pieces(bert, text) == Pieces{"H\u00e9llo", "W\u00d6RLD", "\u4e2d\u6587x"});
  }
}

TEST_CASE("a normalizer Sequence applies its steps in order",
          "[pretrained][tokenizer.json][normalizer]") {
  const auto sequence = pipeline_with(
      R"("normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"},)"
      R"({"type":"Replace","pattern":{"String":" "},"content":"\u2581"},)"
      R"({"type":"Prepend","prepend":"\u2581"}]})");
  CHECK(pieces(sequence, "\uff28\uff45\uff4c\uff4c\uff4f World") ==
        Pieces{"\u2581hello\u2581world"});
}

// ---- pre-tokenizers ------------------------------------------------------------

TEST_CASE("ByteLevel splits with GPT-2's pattern and spells bytes in its alphabet",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const std::string text = "Hello world  \u00e9!";
  const auto with_prefix = pipeline_with(
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})");
  CHECK(pieces(with_prefix, text) ==
        Pieces{"\u0120Hello", "\u0120world", "\u0120", "\u0120\u00c3\u00a9", "!"});
  const auto no_prefix = pipeline_with(
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})");
  CHECK(pieces(no_prefix, text) ==
        Pieces{"Hello", "\u0120world", "\u0120", "\u0120\u00c3\u00a9", "!"});
  CHECK(pieces(no_prefix, " x") == Pieces{"\u0120x"});
  const auto no_regex = pipeline_with(
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false})");
  CHECK(pieces(no_regex, text) == Pieces{"Hello\u0120world\u0120\u0120\u00c3\u00a9!"});
}

TEST_CASE("Split keeps or drops its matches as its behavior says",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto [behavior, expected] = GENERATE(table<std::string, Pieces>({
      {"Removed", {"a", "b", "c"}},
      {"Isolated", {"a", "-", "b", "-", "-", "c", "-"}},
      {"MergedWithPrevious", {"a-", "b-", "-", "c-"}},
      {"MergedWithNext", {"a", "-b", "-", "-c", "-"}},
      {"Contiguous", {"a", "-", "b", "--", "c", "-"}},
  }));
  CAPTURE(behavior);
  const auto split = pipeline_with(R"("pre_tokenizer":{"type":"Split","pattern":{"String":"-"},)"
                                   R"("behavior":")" +
                                   behavior + R"(","invert":false})");
  CHECK(pieces(split, "a-b--c-") == expected);
}

TEST_CASE("Split with invert treats what lies between the matches as the delimiters",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto isolated = pipeline_with(
      R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\d+"},"behavior":"Isolated","invert":true})");
  CHECK(pieces(isolated, "ab12cd345") == Pieces{"ab", "12", "cd", "345"});
  const auto removed = pipeline_with(
      R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\d+"},"behavior":"Removed","invert":true})");
  CHECK(pieces(removed, "ab12cd345") == Pieces{"12", "345"});
}

TEST_CASE("Metaspace turns spaces into U+2581 and prepends one as prepend_scheme says",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  // With an added token "<s>" (not normalized), so that "first" shows: only the
  // piece at the very start of the text gets the prefix.
  const auto metaspace = [](const std::string& scheme, const std::string& split) {
    return pipeline_with(R"("pre_tokenizer":{"type":"Metaspace","replacement":"\u2581",)"
                         R"("prepend_scheme":")" +
                         scheme + R"(","split":)" + split +
                         R"(},"added_tokens":[{"id":1,"content":"<s>","single_word":false,)"
                         R"("lstrip":false,"rstrip":false,"normalized":false,"special":true}])");
  };
  SECTION("always") {
    const auto t = metaspace("always", "true");
    CHECK(pieces(t, "Hello  world") == Pieces{"\u2581Hello", "\u2581", "\u2581world"});
    CHECK(pieces(t, "<s>Hi there") == Pieces{"<s>", "\u2581Hi", "\u2581there"});
    CHECK(pieces(t, "Hi<s>there") == Pieces{"\u2581Hi", "<s>", "\u2581there"});
  }
  SECTION("never") {
    const auto t = metaspace("never", "true");
    CHECK(pieces(t, "Hello  world") == Pieces{"Hello", "\u2581", "\u2581world"});
    CHECK(pieces(t, "<s>Hi there") == Pieces{"<s>", "Hi", "\u2581there"});
    CHECK(pieces(t, "Hi<s>there") == Pieces{"Hi", "<s>", "there"});
  }
  SECTION("first") {
    const auto t = metaspace("first", "true");
    CHECK(pieces(t, "Hello  world") == Pieces{"\u2581Hello", "\u2581", "\u2581world"});
    CHECK(pieces(t, "<s>Hi there") == Pieces{"<s>", "Hi", "\u2581there"});
    CHECK(pieces(t, "Hi<s>there") == Pieces{"\u2581Hi", "<s>", "there"});
  }
  SECTION("split false keeps the text whole") {
    CHECK(pieces(metaspace("always", "false"), "Hello  world") ==
          Pieces{"\u2581Hello\u2581\u2581world"});
  }
}

TEST_CASE("Whitespace keeps runs of word characters and runs of other non-space characters",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto whitespace = pipeline_with(R"("pre_tokenizer":{"type":"Whitespace"})");
  CHECK(pieces(whitespace, "Hello, world! don't 3.14 caf\u00e9") ==
        Pieces{"Hello", ",", "world", "!", "don", "'", "t", "3", ".", "14", "caf\u00e9"});
}

TEST_CASE("WhitespaceSplit splits on Unicode white space only",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto split = pipeline_with(R"("pre_tokenizer":{"type":"WhitespaceSplit"})");
  CHECK(pieces(split, "Hello, world!\tfoo\u00a0bar\u2003baz") ==
        Pieces{"Hello,", "world!", "foo", "bar", "baz"});
}

TEST_CASE("BertPreTokenizer splits on white space and isolates each punctuation character",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto bert = pipeline_with(R"("pre_tokenizer":{"type":"BertPreTokenizer"})");
  CHECK(pieces(bert, "Hello, world! (don't) a$b") ==
        Pieces{"Hello", ",", "world", "!", "(", "don", "'", "t", ")", "a", "$", "b"});
}

TEST_CASE("Digits isolates digit runs, or each digit with individual_digits",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto runs = pipeline_with(R"("pre_tokenizer":{"type":"Digits","individual_digits":false})");
  CHECK(pieces(runs, "abc123de4 5") == Pieces{"abc", "123", "de", "4", " ", "5"});
  const auto single =
      pipeline_with(R"("pre_tokenizer":{"type":"Digits","individual_digits":true})");
  CHECK(pieces(single, "abc123de4 5") == Pieces{"abc", "1", "2", "3", "de", "4", " ", "5"});
}

TEST_CASE("Punctuation splits at each punctuation character by its behavior",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto isolated =
      pipeline_with(R"("pre_tokenizer":{"type":"Punctuation","behavior":"Isolated"})");
  CHECK(pieces(isolated, "Hello!!, world? a$b") ==
        Pieces{"Hello", "!", "!", ",", " world", "?", " a", "$", "b"});
  const auto contiguous =
      pipeline_with(R"("pre_tokenizer":{"type":"Punctuation","behavior":"Contiguous"})");
  CHECK(pieces(contiguous, "Hello!!, world?") == Pieces{"Hello", "!!,", " world", "?"});
}

TEST_CASE("a pre-tokenizer Sequence splits each piece of the step before",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  const auto sequence = pipeline_with(
      R"("pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},)"
      R"({"type":"Digits","individual_digits":true},{"type":"Punctuation","behavior":"Isolated"}]})");
  CHECK(pieces(sequence, "ab12, c3!") == Pieces{"ab", "1", "2", ",", "c", "3", "!"});
}

// ---- decoders --------------------------------------------------------------------

namespace {

// A WordLevel model over vocab (a JSON object) with the given decoder.
tokenlab::PretrainedTokenizer with_decoder(const std::string& vocab, const std::string& decoder) {
  return tokenizer_json(R"({"model":{"type":"WordLevel","vocab":)" + vocab +
                        R"(,"unk_token":"u"},"decoder":)" + decoder + "}");
}

}  // namespace

TEST_CASE("the ByteLevel decoder maps its alphabet back to bytes, bad UTF-8 as U+FFFD",
          "[pretrained][tokenizer.json][decoder]") {
  const auto t = with_decoder(
      R"({"u":6,"Hello":0,"\u0120world":1,"!":2,"\u00c3\u00a9":3,"\u00c3":4,"\u010a":5})",
      R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})");
  CHECK(t.decode(Ids{0, 1, 2}) == "Hello world!");
  CHECK(t.decode(Ids{3, 5}) == "\u00e9\n");
  CHECK(t.decode(Ids{4, 2}) == "\uFFFD!");
}

TEST_CASE("the Metaspace decoder turns U+2581 into spaces and drops the first one it prepended",
          "[pretrained][tokenizer.json][decoder]") {
  const std::string vocab = R"({"u":4,"\u2581Hello":0,"\u2581world":1,"!":2,"a\u2581b":3})";
  const auto decoder = [&](const std::string& scheme) {
    return with_decoder(vocab, R"({"type":"Metaspace","replacement":"\u2581","prepend_scheme":")" +
                                   scheme + R"(","split":true})");
  };
  CHECK(decoder("always").decode(Ids{0, 1, 2}) == "Hello world!");
  CHECK(decoder("always").decode(Ids{3, 0}) == "ab Hello");
  CHECK(decoder("first").decode(Ids{0, 1, 2}) == "Hello world!");
  CHECK(decoder("never").decode(Ids{0, 1, 2}) == " Hello world!");
  CHECK(decoder("never").decode(Ids{3, 0}) == "a b Hello");
}

TEST_CASE("the WordPiece decoder joins ## continuations and cleans up spaces before punctuation",
          "[pretrained][tokenizer.json][decoder]") {
  const std::string vocab =
      R"({"u":11,"un":0,"##aff":1,"##able":2,",":3,"it":4,"'":5,"s":6,"do":7,"n't":8,".":9,"not":10})";
  const auto cleanup = with_decoder(vocab, R"({"type":"WordPiece","prefix":"##","cleanup":true})");
  CHECK(cleanup.decode(Ids{0, 1, 2, 3, 4, 5, 6, 9}) == "unaffable, it ' s.");
  CHECK(cleanup.decode(Ids{7, 10, 4, 9}) == "do not it.");
  CHECK(cleanup.decode(Ids{7, 8}) == "don't");
  const auto raw = with_decoder(vocab, R"({"type":"WordPiece","prefix":"##","cleanup":false})");
  CHECK(raw.decode(Ids{0, 1, 2, 3, 4, 5, 6, 9}) == "unaffable , it ' s .");
}

TEST_CASE("the ByteFallback decoder turns runs of <0xNN> tokens into text, one U+FFFD per bad byte",
          "[pretrained][tokenizer.json][decoder]") {
  const auto t = with_decoder(R"({"u":5,"<0xC3>":0,"<0xA9>":1,"a":2,"<0xFF>":3,"<0x61>":4})",
                              R"({"type":"ByteFallback"})");
  CHECK(t.decode(Ids{0, 1, 2}) == "\u00e9a");
  CHECK(t.decode(Ids{3, 2}) == "\uFFFDa");
  CHECK(t.decode(Ids{0, 2}) == "\uFFFDa");
  CHECK(t.decode(Ids{4}) == "a");
}

TEST_CASE("Fuse joins the tokens without the spaces HF puts between them without a decoder",
          "[pretrained][tokenizer.json][decoder]") {
  const std::string vocab = R"({"u":3,"a":0,"b":1," c":2})";
  CHECK(with_decoder(vocab, R"({"type":"Fuse"})").decode(Ids{0, 1, 2}) == "ab c");
  const auto none =
      tokenizer_json(R"({"model":{"type":"WordLevel","vocab":)" + vocab + R"(,"unk_token":"u"}})");
  CHECK(none.decode(Ids{0, 1, 2}) == "a b  c");
}

TEST_CASE("the Strip decoder removes up to start and stop copies of its character from each token",
          "[pretrained][tokenizer.json][decoder]") {
  const auto t = with_decoder(R"({"u":3,"__a_":0,"_b__":1,"c":2})",
                              R"({"type":"Strip","content":"_","start":1,"stop":2})");
  CHECK(t.decode(Ids{0, 1, 2}) == "_abc");
}

TEST_CASE("the Replace decoder rewrites each token", "[pretrained][tokenizer.json][decoder]") {
  const auto t = with_decoder(R"({"u":2,"\u2581a":0,"b\u2581\u2581":1})",
                              R"({"type":"Replace","pattern":{"String":"\u2581"},"content":" "})");
  CHECK(t.decode(Ids{0, 1}) == " ab  ");
}

TEST_CASE("a decoder Sequence runs its steps in order (Mistral 7B's decoder)",
          "[pretrained][tokenizer.json][decoder]") {
  const auto t = with_decoder(
      R"({"u":6,"\u2581Hi":0,"\u2581th":1,"ere":2,"<0xC3>":3,"<0xA9>":4,"\u2581":5})",
      R"({"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"\u2581"},"content":" "},)"
      R"({"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]})");
  CHECK(t.decode(Ids{0, 1, 2, 5, 3, 4}) == "Hi there \u00e9");
}

// ---- added tokens ----------------------------------------------------------------

namespace {

// HF requires every field of an added token.
struct AddedOptions {
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

std::string added(int id, const std::string& content, const AddedOptions& o = {}) {
  const auto flag = [](bool b) { return b ? "true" : "false"; };
  return R"({"id":)" + std::to_string(id) + R"(,"content":")" + content + R"(","single_word":)" +
         flag(o.single_word) + R"(,"lstrip":)" + flag(o.lstrip) + R"(,"rstrip":)" + flag(o.rstrip) +
         R"(,"normalized":)" + flag(o.normalized) + R"(,"special":)" + flag(o.special) + "}";
}

std::string added_token(const std::string& content, const AddedOptions& o) {
  return added(1, content, o);
}

}  // namespace

TEST_CASE("an added token is cut out of the text before the pre-tokenizer and the model",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto plain = pipeline_with(R"("added_tokens":[)" + added_token("ab", {}) + "]");
  CHECK(pieces(plain, "ab cab ab! abc") == Pieces{"ab", " c", "ab", " ", "ab", "! ", "ab", "c"});
}

TEST_CASE("a single_word added token matches only with no word character on either side",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto single =
      pipeline_with(R"("added_tokens":[)" + added_token("ab", {.single_word = true}) + "]");
  CHECK(pieces(single, "ab cab ab! abc") == Pieces{"ab", " cab ", "ab", "! abc"});
  CHECK(pieces(single, "ab") == Pieces{"ab"});
}

TEST_CASE("lstrip and rstrip take the white space beside an added token into it",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto lstrip =
      pipeline_with(R"("added_tokens":[)" + added_token("<m>", {.lstrip = true}) + "]");
  CHECK(pieces(lstrip, "a  <m> b") == Pieces{"a", "  <m>", " b"});
  const auto rstrip =
      pipeline_with(R"("added_tokens":[)" + added_token("<m>", {.rstrip = true}) + "]");
  CHECK(pieces(rstrip, "a  <m>  b") == Pieces{"a  ", "<m>  ", "b"});
  const auto both = pipeline_with(R"("added_tokens":[)" +
                                  added_token("<m>", {.lstrip = true, .rstrip = true}) + "]");
  CHECK(pieces(both, "a  <m>  b") == Pieces{"a", "  <m>  ", "b"});
}

TEST_CASE("a normalized added token matches the normalized text, another the raw text",
          "[pretrained][tokenizer.json][added_tokens]") {
  const std::string lowercase = R"("normalizer":{"type":"Lowercase"},)";
  const auto normalized = pipeline_with(lowercase + R"("added_tokens":[)" +
                                        added_token("<Mask>", {.normalized = true}) + "]");
  CHECK(pieces(normalized, "x<MASK>y<mask>z<Mask>") ==
        Pieces{"x", "<mask>", "y", "<mask>", "z", "<mask>"});
  const auto raw = pipeline_with(lowercase + R"("added_tokens":[)" +
                                 added_token("<Mask>", {.normalized = false}) + "]");
  CHECK(pieces(raw, "x<MASK>y<mask>z<Mask>") == Pieces{"x<mask>y<mask>z", "<Mask>"});
}

TEST_CASE("added tokens added all at once match as added one by one",
          "[pretrained][added_tokens]") {
  // As a compiled entry hands them over (AddedTokens::add_all, room made
  // first): raw and normalized ones, a prefix of another, a content repeated
  // under a second id (the first wins) and an empty one (ignored).
  const auto token = [](std::string content, tokenlab::TokenId id) {
    tokenlab::AddedToken t;
    t.content = std::move(content);
    t.id = id;
    return t;
  };
  std::vector<tokenlab::AddedToken> tokens{token("<a>", 10), token("<a><b>", 11), token("Hi", 12),
                                           token("<a>", 13), token("", 14),       token("k9", 15)};
  tokens[0].special = tokens[1].special = true;
  tokens[2].normalized = true;
  tokens[2].normalized_content = "hi";
  tokens[5].single_word = true;
  tokenlab::AddedTokens one_by_one;
  for (const auto& t : tokens) one_by_one.add(t);
  tokenlab::AddedTokens all;
  all.add_all(tokens);
  REQUIRE(all.tokens().size() == one_by_one.tokens().size());
  CHECK(all.id_limit() == one_by_one.id_limit());
  for (tokenlab::TokenId id = 10; id <= 15; ++id) {
    const auto* a = all.find(id);
    const auto* b = one_by_one.find(id);
    REQUIRE((a == nullptr) == (b == nullptr));
    if (a != nullptr) CHECK(a->content == b->content);
  }
  // Each segment as "text" or "#id".
  const auto segments = [](const tokenlab::AddedTokens& added, std::string_view text,
                           bool normalized) {
    std::vector<std::string> out;
    added.split(text, normalized, [&](std::string_view piece, std::optional<tokenlab::TokenId> id) {
      out.push_back(id ? "#" + std::to_string(*id) : std::string(piece));
    });
    return out;
  };
  for (const std::string_view text : {"x<a><b>y<a>", "<a><a><b", "k9 ak9 k9", "hi Hi <b>", ""}) {
    CHECK(segments(all, text, false) == segments(one_by_one, text, false));
    CHECK(segments(all, text, true) == segments(one_by_one, text, true));
  }
  // Many keys over four bytes, prefixes of each other and repeated, raw and
  // normalized alike: every text splits the same.
  std::mt19937 random(11);
  const auto text_of = [&](std::size_t max_length) {
    std::string text(1 + random() % max_length, ' ');
    for (char& c : text) c = "ab<>"[random() % 4];
    return text;
  };
  std::vector<tokenlab::AddedToken> many;
  for (tokenlab::TokenId id = 0; id < 400; ++id) {
    many.push_back(token(text_of(6), 100 + id));
    many.back().normalized = id % 3 == 0;
  }
  tokenlab::AddedTokens many_one_by_one;
  for (const auto& t : many) many_one_by_one.add(t);
  tokenlab::AddedTokens many_all;
  many_all.add_all(many);
  for (int i = 0; i < 300; ++i) {
    const std::string text = text_of(40);
    REQUIRE(segments(many_all, text, false) == segments(many_one_by_one, text, false));
    REQUIRE(segments(many_all, text, true) == segments(many_one_by_one, text, true));
  }
  CHECK(segments(all, "x<a><b>y<a>", false) == std::vector<std::string>{"x", "#11", "y", "#10"});
  CHECK(segments(all, "oHi!", true) == std::vector<std::string>{"oHi!"});
  CHECK(segments(all, "ohi!", true) == std::vector<std::string>{"o", "#12", "!"});
  CHECK(segments(all, "k9 ak9", false) == std::vector<std::string>{"#15", " ak9"});
}

TEST_CASE("the longest added token matching at a place wins",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto t =
      pipeline_with(R"("added_tokens":[)" + added(1, "<a>") + "," + added(2, "<a><b>") + "]");
  CHECK(pieces(t, "x<a><b>y<a>") == Pieces{"x", "<a><b>", "y", "<a>"});
  CHECK(t.encode("<a><b><a>") == Ids{2, 1});
}

TEST_CASE("added tokens keep their ids; one the model has takes the model's id",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto t = tokenizer_json(
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"hello":1,"world":2},"unk_token":"[UNK]"},)"
      R"("pre_tokenizer":{"type":"WhitespaceSplit"},"added_tokens":[)" +
      added(3, "<sep>", {.special = true}) + "," + added(2, "world") + "," +
      added(4, "<pad>", {.special = true}) + "]}");
  CHECK(t.encode("hello<sep>world <pad>x") == Ids{1, 3, 2, 4, 0});
  CHECK(t.decode(Ids{1, 3, 2, 4}) == "hello <sep> world <pad>");
  CHECK(t.decode(Ids{1, 3, 2, 4}, /*skip_special_tokens=*/true) == "hello world");
  CHECK(t.vocabulary_size() == 5);
  CHECK(t.token(4) == "<pad>");
}

TEST_CASE("a special added token is matched in the raw text; a normalized one after normalizing",
          "[pretrained][tokenizer.json][added_tokens]") {
  const auto t = tokenizer_json(
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"hello":1,"world":2},"unk_token":"[UNK]"},)"
      R"("normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"WhitespaceSplit"},)"
      R"("added_tokens":[)" +
      added(3, "<SEP>", {.normalized = false, .special = true}) + "," +
      added(4, "Hi", {.normalized = true}) + "]}");
  CHECK(t.encode("HELLO<SEP>hi <sep> HI") == Ids{1, 3, 4, 0, 4});
  CHECK(t.decode(Ids{1, 3, 4}) == "hello <SEP> Hi");
}

TEST_CASE("an added token's id is the one HF gives it, whatever id the file declares",
          "[pretrained][tokenizer.json][added_tokens]") {
  // HF's AddedVocabulary numbers new tokens on from the vocabulary and warns
  // when a file says otherwise: "<pad>" (declared 7) is 4, and "world", which
  // the model has, keeps the model's 2 rather than its declared 4.
  const auto t = tokenizer_json(
      R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"hello":1,"world":2},"unk_token":"[UNK]"},)"
      R"("pre_tokenizer":{"type":"WhitespaceSplit"},"added_tokens":[)" +
      added(3, "<sep>", {.special = true}) + "," + added(4, "world") + "," +
      added(7, "<pad>", {.special = true}) + "]}");
  CHECK(t.encode("hello<sep>world <pad>x") == Ids{1, 3, 2, 4, 0});
  CHECK(t.decode(Ids{3, 4}) == "<sep> <pad>");
  CHECK(t.vocabulary_size() == 5);
  CHECK(t.token(7).empty());
}

TEST_CASE("ill-formed UTF-8 in the text is refused before any component reads it",
          "[pretrained][tokenizer.json][pre_tokenizer]") {
  // HF only ever sees valid UTF-8 (Rust strings). Components that read code
  // points once looped for ever, or read past the end, on a byte that starts no
  // UTF-8 sequence; now the text is checked once, first.
  const auto [pre, expected] = GENERATE(table<std::string, Pieces>({
      {"WhitespaceSplit", {"a", "b"}},
      {"BertPreTokenizer", {"a", "b"}},
      {"Punctuation", {"a b"}},
  }));
  CAPTURE(pre);
  const auto t = pipeline_with(R"("normalizer":{"type":"StripAccents"},"pre_tokenizer":{"type":")" +
                               pre + R"("})");
  CHECK_THROWS_WITH(t.encode("a\xFF b"),
                    Catch::Contains("not valid UTF-8") && Catch::Contains("byte 1"));
  CHECK_THROWS_WITH(pieces(t, "ab \xC3"), Catch::Contains("byte 3"));
  CHECK(pieces(t, "a b") == expected);
}

TEST_CASE("a run of the pipeline inside another one's callback does not disturb it",
          "[pretrained][tokenizer.json][pipeline]") {
  // A thread reuses its pipeline buffers from line to line; a caller that
  // encodes from for_each_piece's callback starts a second run while the
  // first one's pieces are still being handed out.
  const auto t = tokenizer_json(
      R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"un":1,"##aff":2,"##able":3,)"
      R"("a":4,"##b":5,",":6,"!":7},"unk_token":"[UNK]","continuing_subword_prefix":"##"},)"
      R"("normalizer":{"type":"BertNormalizer","lowercase":true},)"
      R"("pre_tokenizer":{"type":"Sequence","pretokenizers":[)"
      R"({"type":"WhitespaceSplit"},{"type":"Punctuation"}]}})");
  const std::string text = "Unaffable, AB! unb";
  const Pieces expected_pieces = {"unaffable", ",", "ab", "!", "unb"};
  REQUIRE(pieces(t, text) == expected_pieces);
  const Ids expected_ids = {1, 2, 3, 6, 4, 5, 7, 1, 5};
  REQUIRE(t.encode(text) == expected_ids);

  Pieces outer;
  Ids nested;
  t.for_each_piece(text, [&](std::string_view piece, bool) {
    outer.emplace_back(piece);
    const Ids inner = t.encode(std::string(piece) + " " + text);  // a run of its own
    const auto tail = inner.end() - static_cast<std::ptrdiff_t>(expected_ids.size());
    CHECK(Ids(tail, inner.end()) == expected_ids);
    nested.insert(nested.end(), inner.begin(), tail);
  });
  CHECK(outer == expected_pieces);
  CHECK(nested == expected_ids);

  SECTION("a very long line, then a short one, encodes as on a fresh thread") {
    std::string long_line;
    for (int i = 0; i < 200000; ++i) long_line += "unaffable, ";  // 2.2 MB, 400,000 pieces
    const Ids long_ids = t.encode(long_line);
    REQUIRE(long_ids.size() == 800000);
    CHECK(Ids(long_ids.begin(), long_ids.begin() + 4) == Ids{1, 2, 3, 6});
    CHECK(t.encode(text) == expected_ids);
  }
}
