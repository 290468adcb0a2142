// tokenizer.json export (tokenizer_json_writer.hpp): models trained here, written
// as tokenizer.json and read back through tokenlab's own reader, give the ids and
// the decoded text the trained model gives, line for line; settings HF cannot
// reproduce are refused.
// (The same files against HF tokenizers itself: tests/references/export_exactness.sh.)
#include <unicode/uchar.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "export_support.hpp"
#include "pretrained_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/character/character_model.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/pretrained/exported_tokenizer_json.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/unicode_words.hpp"
#include "tokenlab/unigram/unigram_model.hpp"
#include "tokenlab/word/word_model.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

using namespace tokenlab;
using test::test_lines;
using test::trained;
using test::training_lines;

namespace {

std::string exported(const Tokenizer& t) {
  return write_tokenizer_json(test::description_of(t), t.normalizer().options(),
                              t.pre_tokenizer().options());
}

// The file reads back into what it was written from: compare --model evaluates
// a tokenizer.json as the model it describes, with its settings.
void check_read_back(const Tokenizer& t, const std::string& json) {
  const ExportedTokenizerJson back = read_exported_tokenizer_json(json, "export.json");
  const ModelDescription m = test::description_of(t);
  CHECK(back.normalizer == t.normalizer().options());
  CHECK(back.pre_tokenizer == t.pre_tokenizer().options());
  // A character model is written as what it is, a BPE without merges.
  CHECK(back.model.kind == (m.kind == ModelKind::character ? ModelKind::bpe : m.kind));
  CHECK(back.model.pieces == m.pieces);
  CHECK(back.model.specials == m.specials);
  CHECK(back.model.unknown == m.unknown);
  CHECK(back.model.byte_fallback == m.byte_fallback);
  CHECK(back.model.byte_level == m.byte_level);
  CHECK(back.model.merges == m.merges);
  // Exact: the digits were written for HF's parser. (Other kinds have no scores to
  // write, and their descriptions hold zeros.)
  if (m.kind == ModelKind::unigram) CHECK(back.model.scores == m.scores);
  CHECK(back.model.continuation_prefix == m.continuation_prefix);
  CHECK(back.model.max_input_chars_per_word == m.max_input_chars_per_word);
}

void check_round_trip(const Tokenizer& t) {
  const std::string json = exported(t);
  check_read_back(t, json);
  const PretrainedTokenizer back = test::tokenizer_json(json);
  for (const auto& line : training_lines()) {
    INFO("line: " << line);
    CHECK(back.encode(line) == t.encode(line));
  }
  for (const auto& line : test_lines()) {
    INFO("line: " << line);
    const std::vector<TokenId> ids = t.encode(line);
    CHECK(back.encode(line) == ids);
    // The file's decoders give tokenlab's decode (unknown tokens as tokenlab writes them).
    CHECK(back.decode(ids) == t.decode(ids));
  }
}

const PreTokenizerOptions kSentencePiece = test::kSentencePiece;
const PreTokenizerOptions kDefault{};  // unicode/prefix

// The words a regex gives on a normalized line, as the export runs it: a
// space put before the line, then each leading space as the marker.
std::vector<std::string> regex_words(const Regex& regex, std::string_view line) {
  std::vector<std::string> words;
  if (line.empty()) return words;
  const std::string text = " " + std::string(line);
  regex.for_each_match(text, [&](std::size_t start, std::size_t end) {
    std::string word = text.substr(start, end - start);
    if (word.front() == ' ') word.replace(0, 1, "\u2581");
    words.push_back(std::move(word));
  });
  return words;
}

// The alternatives of unicode_words_pattern: " ?(?:A|B|...)", and no class
// holds a '|'.
std::vector<std::string> pattern_alternatives() {
  const std::string& pattern = unicode_words_pattern();
  const std::string body = pattern.substr(5, pattern.size() - 6);
  std::vector<std::string> out(1);
  for (const char c : body) {
    if (c == '|')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// A class of the pattern as an ICU set. Sets write intersection "&" where
// regexes write "&&", and skip white space unless it is escaped.
icu::UnicodeSet icu_set(std::string text) {
  for (auto at = text.find("&&"); at != std::string::npos; at = text.find("&&", at))
    text.erase(at, 1);
  for (auto at = text.find(' '); at != std::string::npos; at = text.find(' ', at + 2))
    text.replace(at, 1, "\\x{20}");
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeSet set(icu::UnicodeString::fromUTF8(text), status);
  INFO("class: " << text);
  REQUIRE(U_SUCCESS(status));
  return set;
}

// An alternative "FIRST[REST]*" (or "[MARKS]+"; FIRST a class or one \p{...})
// as its two sets.
std::pair<icu::UnicodeSet, icu::UnicodeSet> alternative_sets(const std::string& alternative) {
  int depth = 0;
  std::size_t end = 0;
  if (alternative.starts_with("\\p{")) end = alternative.find('}') + 1;  // \p{Nd}
  for (std::size_t i = 0; end == 0 && i < alternative.size(); ++i) {
    if (alternative[i] == '\\') {
      ++i;  // \p{...} holds no bracket, but an escaped one would not count
    } else if (alternative[i] == '[') {
      ++depth;
    } else if (alternative[i] == ']' && --depth == 0) {
      end = i + 1;
      break;
    }
  }
  const icu::UnicodeSet first = icu_set(alternative.substr(0, end));
  if (alternative.substr(end) == "+") return {first, first};
  return {first, icu_set(alternative.substr(end, alternative.size() - end - 1))};
}

// The script an alternative's first class names ("...&&[\p{Latin}]]"), as ICU's code.
int named_script(const std::string& alternative) {
  const auto at = alternative.find("&&[\\p{");
  if (at == std::string::npos) return -1;
  const auto from = at + 6;
  const std::string name = alternative.substr(from, alternative.find('}', from) - from);
  return u_getPropertyValueEnum(UCHAR_SCRIPT, name.c_str());
}

}  // namespace

TEST_CASE(
    "export: the words pattern's classes are the unicode pre-tokenizer's, code point by "
    "code point",
    "[export]") {
  // The rules, from ICU (pre_tokenizer.hpp): marks are M, Cf and the letters
  // and numbers of the Common and Inherited scripts; letters are L, Nl and No
  // of one script (Hiragana and Katakana count as Han); digits are Nd; the
  // rest but the space is punctuation (other white space too: the normalizer
  // has made it a space before the pattern runs).
  const std::vector<std::string> alternatives = pattern_alternatives();
  REQUIRE(alternatives.size() > 100);
  const std::size_t marks = alternatives.size() - 1;
  const std::size_t punct = marks - 1;
  const std::size_t digits = marks - 2;
  std::vector<icu::UnicodeSet> first;
  std::vector<icu::UnicodeSet> rest;
  std::map<int, std::size_t> alternative_of_script;
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    auto [f, r] = alternative_sets(alternatives[i]);
    first.push_back(f);
    rest.push_back(r);
    if (i < digits) alternative_of_script[named_script(alternatives[i])] = i;
  }
  REQUIRE(alternative_of_script.size() == digits);  // one alternative per script
  // A word goes on with its own first class and marks; a run of marks with marks.
  for (std::size_t i = 0; i < marks; ++i) {
    icu::UnicodeSet expected(first[i]);
    expected.addAll(first[marks]);
    CHECK(rest[i] == expected);
  }
  CHECK(rest[marks] == first[marks]);
  const auto expected_alternative = [&](UChar32 c) -> std::size_t {
    const std::uint32_t gc = U_GET_GC_MASK(c);
    if (gc & (U_GC_M_MASK | U_GC_CF_MASK)) return marks;
    if (gc & U_GC_ND_MASK) return digits;
    if (!(gc & (U_GC_L_MASK | U_GC_NL_MASK | U_GC_NO_MASK))) return punct;
    UErrorCode status = U_ZERO_ERROR;
    int script = uscript_getScript(c, &status);
    if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) return marks;
    if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) script = USCRIPT_HAN;
    const auto found = alternative_of_script.find(script);
    return found == alternative_of_script.end() ? alternatives.size() : found->second;
  };
  std::size_t misplaced = 0;
  for (UChar32 c = 0; c <= 0x10FFFF; ++c) {
    if (c == ' ') continue;
    const std::size_t i = expected_alternative(c);
    if (i < first.size() && first[i].contains(c)) continue;
    if (++misplaced <= 5) FAIL_CHECK("U+" << std::hex << c << " is not in its class");
  }
  CHECK(misplaced == 0);
  // Each code point in its own class and the sizes summing to all but the
  // space: the first classes are disjoint, and only the space is in none.
  std::int64_t total = 0;
  for (const auto& set : first) total += set.size();
  CHECK(total == 0x110000 - 1);
}

TEST_CASE("export: BPE over characters, SentencePiece-style, with byte fallback", "[export]") {
  check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(), {}, kSentencePiece, 600,
                           {{"byte_fallback", "true"}}));
}

TEST_CASE("export: BPE over characters without byte fallback: unknown characters", "[export]") {
  check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(), {}, kSentencePiece, 300,
                           {{"byte_fallback", "false"}}));
}

TEST_CASE("export: byte-level BPE with the o200k pre-tokenizer", "[export]") {
  check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(),
                           {.form = NormalizationForm::none, .keep_whitespace = true},
                           {PreTokenizerKind::o200k, MarkerStyle::space}, 400,
                           {{"units", "bytes"}}));
}

TEST_CASE("export: unigram, SentencePiece-style", "[export]") {
  check_round_trip(trained(std::make_shared<unigram::UnigramSegmenter>(), {}, kSentencePiece, 500));
}

TEST_CASE("export: WordPiece with BERT's pipeline", "[export]") {
  check_round_trip(trained(std::make_shared<wordpiece::WordPieceSegmenter>(),
                           {.form = NormalizationForm::bert, .lowercase = true},
                           {PreTokenizerKind::bert, MarkerStyle::none}, 400));
}

TEST_CASE("export: WordPiece, SentencePiece-style", "[export]") {
  check_round_trip(trained(std::make_shared<wordpiece::WordPieceSegmenter>(),
                           {.form = NormalizationForm::nfkc, .lowercase = true}, kSentencePiece,
                           400));
}

TEST_CASE("export: word and character baselines", "[export]") {
  check_round_trip(trained(std::make_shared<word::WordSegmenter>(), {}, kSentencePiece, 40));
  check_round_trip(
      trained(std::make_shared<character::CharacterSegmenter>(), {}, kSentencePiece, 60));
}

TEST_CASE("export: the default pipeline's words are the pattern's matches, marker and all",
          "[export]") {
  const Normalizer normalizer{NormalizerOptions{}};
  const PreTokenizer pre{kDefault};
  // Where the unicode pre-tokenizer's rules meet: scripts, digits of two
  // scripts, marks at a word's start and inside punctuation and digits, Common
  // letters and numbers (ー, ²), format characters, controls, the marker itself
  // in the text, letters outside the BMP, unassigned code points.
  const std::vector<std::string> lines = {
      "Hello, world 42x naïve",
      "東京タワーへ行った。ソフトウェアー",
      "हिंदी १२३ और 45६ पाठ।",
      "\u0301abc \u0301\u0302 x\u0301y",
      "x² 5² !\u0301? a\u00ADb \u200Dzw\u200Cj",
      "\u2581word a\u2581b \u2581 \u2581\u2581",
      "\x01\x7F ctl\x1F"
      "chars",
      "Ελληνικά and Русский mixed ΑβγAbc",
      "𝐀𝐁𝐂 𠀀𠀁 🙂🙂 \U000E0001tag",
      "\U0003FFFD unassigned \u0378 \uFFFF",
      "አማርኛ፡ ቋንቋ። ትግርኛ፣ 123",
  };
  // Regex matches the pattern by the splitter's rules; wrapped in (?:...) it is
  // not recognised, and ICU's engine reads the pattern as written.
  const Regex matcher(unicode_words_pattern());
  const Regex icu("(?:" + unicode_words_pattern() + ")");
  std::vector<std::string> all = lines;
  all.insert(all.end(), test::training_lines().begin(), test::training_lines().end());
  for (const auto& raw : all) {
    const std::string line = normalizer.normalize(raw);
    INFO("line: " << line);
    const std::vector<std::string> words = pre.split(line);
    CHECK(regex_words(icu, line) == words);
    CHECK(regex_words(matcher, line) == words);
  }
}

TEST_CASE("export: a model trained with every default exports, for every segmenter", "[export]") {
  SECTION("BPE") {
    check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(), {}, kDefault, 600));
  }
  SECTION("BPE without byte fallback") {
    check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(), {}, kDefault, 300,
                             {{"byte_fallback", "false"}}));
  }
  SECTION("unigram") {
    check_round_trip(trained(std::make_shared<unigram::UnigramSegmenter>(), {}, kDefault, 500));
  }
  SECTION("WordPiece") {
    check_round_trip(trained(std::make_shared<wordpiece::WordPieceSegmenter>(), {}, kDefault, 400));
  }
  SECTION("word and character") {
    check_round_trip(trained(std::make_shared<word::WordSegmenter>(), {}, kDefault, 40));
    check_round_trip(trained(std::make_shared<character::CharacterSegmenter>(), {}, kDefault, 60));
  }
  SECTION("without markers (unicode/none)") {
    check_round_trip(trained(std::make_shared<bpe::BpeSegmenter>(), {},
                             {PreTokenizerKind::unicode, MarkerStyle::none}, 300));
  }
}

TEST_CASE("export: the default pipeline is written as Prepend, Split and Metaspace", "[export]") {
  const std::string json =
      exported(trained(std::make_shared<word::WordSegmenter>(), {}, kDefault, 40));
  CHECK_THAT(json, Catch::Contains(R"("type": "Prepend")") &&
                       Catch::Contains(R"("prepend_scheme": "never")") &&
                       Catch::Contains(R"("behavior": "Isolated")"));
  CHECK_FALSE(tokenizer_json_refusal({}, kDefault));
}

TEST_CASE("export: settings HF cannot reproduce are refused, naming the nearest choice",
          "[export]") {
  const auto refusal = [](NormalizerOptions n, PreTokenizerOptions p) {
    return test::error_of(
        [&] { (void)exported(trained(std::make_shared<bpe::BpeSegmenter>(), n, p, 300)); });
  };
  CHECK_THAT(refusal({}, {PreTokenizerKind::icu_words, MarkerStyle::prefix}),
             Catch::Contains("--pre-tokenizer icu-words/prefix") &&
                 Catch::Contains("nearest exportable choice is --pre-tokenizer unicode"));
  CHECK_THAT(refusal({}, {PreTokenizerKind::unicode, MarkerStyle::suffix}),
             Catch::Contains("unicode/suffix") && Catch::Contains("unicode/prefix"));
  CHECK_THAT(refusal({.strip_accents = true}, kSentencePiece),
             Catch::Contains("strip-accents") && Catch::Contains("Mc, Me"));
  CHECK_THAT(refusal({}, {PreTokenizerKind::whitespace, MarkerStyle::suffix}),
             Catch::Contains("whitespace/suffix") && Catch::Contains("whitespace/prefix"));
  CHECK_THAT(refusal({}, {PreTokenizerKind::bert, MarkerStyle::none}),
             Catch::Contains("--normalizer bert"));
  CHECK_THAT(test::error_of([&] {
               (void)exported(trained(std::make_shared<bpe::BpeSegmenter>(), {}, kSentencePiece,
                                      300, {{"units", "bytes"}}));
             }),
             Catch::Contains("byte-level BPE") && Catch::Contains("o200k"));
}

TEST_CASE("export: the check compare runs before training is the one export refuses with",
          "[export]") {
  const PreTokenizerOptions icu_words{PreTokenizerKind::icu_words, MarkerStyle::prefix};
  const auto why = tokenizer_json_refusal({}, icu_words);
  REQUIRE(why);
  CHECK_THAT(test::error_of([&] {
               (void)exported(trained(std::make_shared<bpe::BpeSegmenter>(), {}, icu_words, 300));
             }),
             Catch::Equals("cannot export to tokenizer.json: " + *why));
  // A byte-level BPE needs a regex preset: the default pipeline is refused for it alone.
  CHECK(tokenizer_json_refusal({}, kDefault, /*byte_level=*/true));
  CHECK_FALSE(tokenizer_json_refusal({.form = NormalizationForm::none, .keep_whitespace = true},
                                     {PreTokenizerKind::o200k, MarkerStyle::space}, true));
}

TEST_CASE("export: a tokenizer.json reads back only as tokenlab export wrote it", "[export]") {
  const std::string json = exported(trained(std::make_shared<bpe::BpeSegmenter>(), {},
                                            kSentencePiece, 300, {{"byte_fallback", "false"}}));
  const auto read_back_of = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return test::error_of([&] { (void)read_exported_tokenizer_json(text, "edited.json"); });
  };
  // A normalizer no tokenlab setting writes: the file's own pipeline, not a model's.
  CHECK_THAT(read_back_of(json, R"("type": "NFC")", R"("type": "NFD")"),
             Catch::Contains("edited.json: not a tokenizer.json as tokenlab export writes it") &&
                 Catch::Contains("normalizer"));
  // A member export never writes is named.
  CHECK_THAT(
      read_back_of(json, R"("post_processor": null)", R"("post_processor": {"type": "ByteLevel"})"),
      Catch::Contains("\"post_processor\""));
  // A vocabulary with a gap is no tokenlab vocabulary.
  CHECK_THAT(read_back_of(json, R"("<unk>": 0)", R"("<unk>": 1000)"),
             Catch::Contains("model.vocab") && Catch::Contains("each once"));
}

TEST_CASE("export: a BPE's dropout is written only when asked for", "[export]") {
  const Tokenizer with_dropout = trained(std::make_shared<bpe::BpeSegmenter>(), {}, kSentencePiece,
                                         300, {{"byte_fallback", "false"}, {"dropout", "0.1"}});
  const ModelDescription m = test::description_of(with_dropout);
  const auto& n = with_dropout.normalizer().options();
  const auto& p = with_dropout.pre_tokenizer().options();
  // By default HF encodes deterministically, as `tokenlab encode` does.
  CHECK_THAT(write_tokenizer_json(m, n, p), Catch::Contains("\"dropout\": null"));
  CHECK_THAT(write_tokenizer_json(m, n, p, {.dropout = true}),
             Catch::Contains("\"dropout\": 0.1,"));
  const Tokenizer without = trained(std::make_shared<bpe::BpeSegmenter>(), {}, kSentencePiece, 300);
  CHECK_THAT(test::error_of([&] {
               (void)write_tokenizer_json(test::description_of(without), n, p, {.dropout = true});
             }),
             Catch::Contains("it has none") && Catch::Contains("--option dropout=P"));
}

TEST_CASE("export: a model description survives its text form", "[export]") {
  ModelDescription m;
  m.kind = ModelKind::unigram;
  m.pieces = {"<unk>", "\u2581low", "er", std::string("\xff\x00", 2)};
  m.specials = {0};
  m.unknown = 0;
  m.byte_fallback = true;
  m.scores = {0.0, -1.25, -0.1, -1e-300};
  m.merges = {{1, 2}};
  m.continuation_prefix = "##";
  m.max_input_chars_per_word = 100;
  m.dropout = 0.1;
  std::stringstream text;
  write_model_description(text, m);
  const ModelDescription back = read_model_description(text);
  CHECK(back.pieces == m.pieces);
  CHECK(back.scores == m.scores);  // exact: hexadecimal floats
  CHECK(back.merges == m.merges);
  CHECK(back.unknown == m.unknown);
  CHECK(back.specials == m.specials);
  CHECK(back.continuation_prefix == "##");
  CHECK(back.dropout == 0.1);
  std::stringstream bad("tokenlab-model-description 1\nkind tree\n");
  CHECK_THAT(test::error_of([&] { (void)read_model_description(bad); }),
             Catch::Contains("line 2") && Catch::Contains("unknown kind 'tree'"));
}
