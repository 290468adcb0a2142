// BERT's text handling (BertNormalizer + BertPreTokenizer), rule by rule, with the
// cases that real text hits. The exhaustive comparison with HF tokenizers over
// every code point and all of NTREX-128 is tests/references/bert_exactness.sh.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tokenlab/bert_characters.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"

using tokenlab::MarkerStyle;
using tokenlab::NormalizationForm;
using tokenlab::Normalizer;
using tokenlab::NormalizerOptions;
using tokenlab::PreTokenizer;
using tokenlab::PreTokenizerKind;
using Words = std::vector<std::string>;

namespace {

const NormalizerOptions kUncased{
    .form = NormalizationForm::bert, .lowercase = true, .strip_accents = true};
const NormalizerOptions kCased{.form = NormalizationForm::bert};

Words bert_words(const NormalizerOptions& options, const std::string& line) {
  const PreTokenizer p({.kind = PreTokenizerKind::bert, .marker = MarkerStyle::none});
  return p.split(Normalizer(options).normalize(line));
}

}  // namespace

TEST_CASE("BERT splits at punctuation, never at symbols: money and units stay one word",
          "[bert][pre_tokenizer]") {
  CHECK(bert_words(kUncased, "It cost \u00A312, or \u20AC16bn.") ==
        Words{"it", "cost", "\u00A312", ",", "or", "\u20AC16bn", "."});
  CHECK(bert_words(kUncased, "2\u00B0C") == Words{"2\u00B0c"});
  SECTION("ASCII symbols count as punctuation, as in BERT's _is_punctuation") {
    CHECK(bert_words(kCased, "a$b+c<d^e`f|g~h") ==
          Words{"a", "$", "b", "+", "c", "<", "d", "^", "e", "`", "f", "|", "g", "~", "h"});
  }
  SECTION("Unicode punctuation (P*) is isolated one character at a time") {
    CHECK(bert_words(kCased, "\u201CYes\u201D \u2014 no\u2026") ==
          Words{"\u201C", "Yes", "\u201D", "\u2014", "no", "\u2026"});
  }
}

TEST_CASE("uncased BERT strips accents by NFD minus Mn, with no recomposition",
          "[bert][normalizer]") {
  CHECK(Normalizer(kUncased).normalize("Caf\u00E9 \u00C9COLE") == "cafe ecole");
  SECTION("a Hangul syllable becomes conjoining jamo") {
    CHECK(Normalizer(kUncased).normalize("\uC870\uAE08") == "\u110C\u1169\u1100\u1173\u11B7");
  }
  SECTION("spacing marks (Mc) stay: Devanagari keeps its vowel signs") {
    CHECK(Normalizer(kUncased).normalize("\u0928\u092E\u0938\u094D\u0924\u0947") ==
          "\u0928\u092E\u0938\u0924");  // virama and e-sign are Mn; nothing else goes
  }
  SECTION("cased BERT neither lowercases nor strips, nor composes") {
    CHECK(Normalizer(kCased).normalize("Cafe\u0301") == "Cafe\u0301");
  }
}

TEST_CASE("BERT's clean text removes controls, format characters and U+FFFD",
          "[bert][normalizer]") {
  const Normalizer n(kCased);
  CHECK(n.normalize("a\u200Bb\u00ADc\uFFFDd\u0007e") == "abcde");
  SECTION("vertical tab and form feed are controls first, so they vanish, not split") {
    CHECK(n.normalize("a\vb\fc") == "abc");
  }
  SECTION("tab, newline and carriage return are white space") {
    CHECK(n.normalize("a\tb\r\nc") == "a b c");
  }
  SECTION("NEL (U+0085) is a control to BERT although it is white space") {
    CHECK(n.normalize("a\u0085b") == "ab");
  }
}

TEST_CASE("BERT isolates CJK ideographs but not kana or Hangul", "[bert][pre_tokenizer]") {
  CHECK(bert_words(kCased, "\u4E2D\u6587abc") == Words{"\u4E2D", "\u6587", "abc"});
  CHECK(bert_words(kCased, "\u3072\u3089\u304C\u306A") == Words{"\u3072\u3089\u304C\u306A"});
  SECTION("HF's ranges skip U+2B820..U+2B91F") {
    CHECK(tokenlab::bert::is_chinese(0x2B81F));
    CHECK_FALSE(tokenlab::bert::is_chinese(0x2B820));
    CHECK(tokenlab::bert::is_chinese(0x2B920));
  }
}

TEST_CASE("BERT's character classes are Unicode 8.0's, as HF's tables are", "[bert][characters]") {
  using namespace tokenlab::bert;
  CHECK(is_punctuation(0x2E42));        // Unicode 8.0 punctuation
  CHECK_FALSE(is_punctuation(0x2E43));  // Unicode 9.0: unknown to HF
  CHECK(is_punctuation(0x166D));        // Po in 8.0, So today
  CHECK(is_nonspacing_mark(0x0301));
  CHECK_FALSE(is_nonspacing_mark(0x1885));  // Lo in 8.0, Mn today
  CHECK(is_control(0x200D));                // ZWJ is Cf
  CHECK_FALSE(is_control('\t'));
}

TEST_CASE("lowercasing maps each character alone, as HF's Lowercase does", "[normalizer]") {
  const Normalizer n({.form = NormalizationForm::nfc, .lowercase = true});
  SECTION("no final-sigma context") {
    CHECK(n.normalize("\u039F\u0394\u039F\u03A3") == "\u03BF\u03B4\u03BF\u03C3");
  }
  SECTION("capital I with dot above keeps its dot as a combining mark") {
    CHECK(n.normalize("\u0130") == "i\u0307");
  }
}

TEST_CASE("the bert normalization form round-trips through its stored text form",
          "[bert][normalizer]") {
  CHECK(kUncased.to_string() == "bert+lowercase+strip-accents");
  CHECK(NormalizerOptions::parse("bert+lowercase+strip-accents") == kUncased);
  CHECK(NormalizerOptions::parse("bert") == kCased);
}
