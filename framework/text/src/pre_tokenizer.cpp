#include "tokenlab/pre_tokenizer.hpp"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "simple_split.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/regex.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/unicode_words.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

std::string PreTokenizerOptions::to_string() const {
  std::string s;
  switch (kind) {
    case PreTokenizerKind::whitespace:
      s = "whitespace";
      break;
    case PreTokenizerKind::unicode:
      s = "unicode";
      break;
    case PreTokenizerKind::icu_words:
      s = "icu-words";
      break;
    case PreTokenizerKind::bert:
      s = "bert";
      break;
    case PreTokenizerKind::gpt2:
      s = "gpt2";
      break;
    case PreTokenizerKind::cl100k:
      s = "cl100k";
      break;
    case PreTokenizerKind::qwen2:
      s = "qwen2";
      break;
    case PreTokenizerKind::o200k:
      s = "o200k";
      break;
  }
  switch (marker) {
    case MarkerStyle::prefix:
      s += "/prefix";
      break;
    case MarkerStyle::suffix:
      s += "/suffix";
      break;
    case MarkerStyle::none:
      s += "/none";
      break;
    case MarkerStyle::space:
      s += "/space";
      break;
  }
  return s;
}

PreTokenizerOptions PreTokenizerOptions::parse(std::string_view text) {
  PreTokenizerOptions o;
  const auto slash = text.find('/');
  const std::string_view kind = text.substr(0, slash);
  const std::string_view marker =
      slash == std::string_view::npos ? "prefix" : text.substr(slash + 1);
  if (kind == "whitespace")
    o.kind = PreTokenizerKind::whitespace;
  else if (kind == "unicode")
    o.kind = PreTokenizerKind::unicode;
  else if (kind == "icu-words")
    o.kind = PreTokenizerKind::icu_words;
  else if (kind == "bert")
    o.kind = PreTokenizerKind::bert;
  else if (kind == "gpt2" || kind == "r50k" || kind == "p50k")
    o.kind = PreTokenizerKind::gpt2;
  else if (kind == "cl100k" || kind == "llama3")
    o.kind = PreTokenizerKind::cl100k;
  else if (kind == "qwen2")
    o.kind = PreTokenizerKind::qwen2;
  else if (kind == "o200k")
    o.kind = PreTokenizerKind::o200k;
  else
    throw Error("unknown pre-tokenizer '" + std::string(kind) +
                "': expected whitespace|unicode|icu-words|bert|gpt2|cl100k|llama3|qwen2|o200k");
  if (marker == "prefix")
    o.marker = MarkerStyle::prefix;
  else if (marker == "suffix")
    o.marker = MarkerStyle::suffix;
  else if (marker == "none")
    o.marker = MarkerStyle::none;
  else if (marker == "space")
    o.marker = MarkerStyle::space;
  else if (marker == "auto")
    o.marker = is_regex_kind(o.kind) ? MarkerStyle::space : MarkerStyle::prefix;
  else
    throw Error("unknown boundary marker style '" + std::string(marker) +
                "': expected prefix|suffix|none|space");
  if (is_regex_kind(o.kind) != (o.marker == MarkerStyle::space))
    throw Error(is_regex_kind(o.kind)
                    ? "the " + std::string(kind) +
                          " pre-tokenizer keeps the spaces inside its pieces: its marker style "
                          "is space, not " +
                          std::string(marker)
                    : "marker style space is for the regex pre-tokenizers (gpt2, cl100k, "
                      "qwen2, o200k), whose pieces keep their spaces; " +
                          std::string(kind) + " drops them");
  return o;
}

namespace detail {

static_assert(kLatinScript == USCRIPT_LATIN);

Classified classify_with_icu(char32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  if (u_isUWhiteSpace(c)) return {CharClass::space, -1};
  switch (u_charType(c)) {
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
    case U_FORMAT_CHAR:  // ZWJ, ZWNJ and friends stay inside their word
      return {CharClass::mark, -1};
    case U_DECIMAL_DIGIT_NUMBER:
      return {CharClass::digit, -1};
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER: {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode script = uscript_getScript(c, &status);
      // Common and Inherited letters (e.g. the Japanese prolonged sound mark) join
      // whatever script surrounds them.
      if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) return {CharClass::mark, -1};
      // Japanese writes one word across kanji, hiragana and katakana (書いた, 食べ物):
      // like SentencePiece, treat the three as one script so words are not cut there.
      if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ||
          script == USCRIPT_KATAKANA_OR_HIRAGANA)
        return {CharClass::letter, USCRIPT_HAN};
      return {CharClass::letter, script};
    }
    default:
      return {CharClass::punct, -1};
  }
}

namespace {

// classify_with_icu for every BMP character, made once: three ICU calls a
// character were most of the time Hindi and Japanese took to split.
struct BmpClasses {
  std::vector<std::uint16_t> packed = std::vector<std::uint16_t>(0x10000, kAskIcu);
  BmpClasses() {
    for (char32_t cp = 0x80; cp < 0x10000; ++cp) {
      const Classified c = classify_with_icu(cp);
      if (c.script + 1 >= (1 << 13) - 1) continue;  // too large to pack: ask ICU each time
      packed[cp] = static_cast<std::uint16_t>(static_cast<unsigned>(c.cls) |
                                              (static_cast<unsigned>(c.script + 1) << 3));
    }
  }
};

}  // namespace

const std::uint16_t* bmp_classes() {
  static const BmpClasses table;  // made on first use, thread-safe
  return table.packed.data();
}

}  // namespace detail

using detail::CharClass;
using detail::classify;

std::string_view regex_pattern(PreTokenizerKind kind) noexcept {
  switch (kind) {
    case PreTokenizerKind::gpt2:
      return kGpt2Pattern;
    case PreTokenizerKind::cl100k:
      return kCl100kPattern;
    case PreTokenizerKind::qwen2:
      return kQwen2Pattern;
    case PreTokenizerKind::o200k:
      return kO200kPattern;
    default:
      return {};
  }
}

namespace {

// The scripts of the letters classify_with_icu finds, Latin and Han first (they
// start most words, and Oniguruma tries the alternatives in order), then in
// ICU's order of script codes.
std::vector<int> letter_scripts() {
  std::vector<bool> seen(static_cast<std::size_t>(u_getIntPropertyMaxValue(UCHAR_SCRIPT)) + 1);
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;  // surrogates are not text
    const detail::Classified c = detail::classify_with_icu(cp);
    if (c.cls == CharClass::letter) seen[static_cast<std::size_t>(c.script)] = true;
  }
  std::vector<int> scripts{USCRIPT_LATIN, USCRIPT_HAN};
  for (std::size_t s = 0; s < seen.size(); ++s)
    if (seen[s] && static_cast<int>(s) != USCRIPT_LATIN && static_cast<int>(s) != USCRIPT_HAN)
      scripts.push_back(static_cast<int>(s));
  return scripts;
}

std::string build_unicode_words_pattern() {
  // classify_with_icu's classes as property sets. A letter is L, Nl or No; of
  // the Common or Inherited script it is a mark (it joins any word), as are
  // M and Cf; digits are Nd; punctuation is everything else but the space.
  const std::string letter = R"([\p{L}\p{Nl}\p{No}])";
  const std::string marks = R"(\p{M}\p{Cf}[)" + letter + R"(&&[\p{Common}\p{Inherited}]])";
  const std::string punct = R"([^ \p{L}\p{Nl}\p{No}\p{Nd}\p{M}\p{Cf}])";
  std::string pattern = " ?(?:";
  for (const int script : letter_scripts()) {
    std::string names =
        std::string(R"(\p{)") + uscript_getName(static_cast<UScriptCode>(script)) + "}";
    if (script == USCRIPT_HAN) names += R"(\p{Hiragana}\p{Katakana})";
    const std::string letters = "[" + letter + "&&[" + names + "]]";
    pattern += letters + "[" + letters + marks + "]*|";
  }
  pattern += R"(\p{Nd}[\p{Nd})" + marks + "]*|";
  pattern += punct + "[" + punct + marks + "]*|";
  pattern += "[" + marks + "]+)";
  return pattern;
}

}  // namespace

const std::string& unicode_words_pattern() {
  static const std::string pattern = build_unicode_words_pattern();  // thread-safe, once
  return pattern;
}

PreTokenizer::PreTokenizer(PreTokenizerOptions options) : options_(options) {
  if (is_regex_kind(options_.kind))
    regex_ = std::make_shared<const Regex>(std::string(regex_pattern(options_.kind)));
}

void PreTokenizer::emit(std::string_view word, bool space_before, bool space_after,
                        std::string& scratch, const WordCallback& on_word) const {
  if (word.empty()) return;
  const bool before = options_.marker == MarkerStyle::prefix && space_before;
  const bool after = options_.marker == MarkerStyle::suffix && space_after;
  if (!before && !after) {
    on_word(word);
    return;
  }
  // Most words get a marker: write it and the word into scratch with two copies
  // (scratch only grows, so this allocates only for a longer word than before).
  constexpr std::string_view marker = kBoundaryMarker;
  const std::size_t size = marker.size() + word.size();
  if (scratch.size() < size) scratch.resize(std::max<std::size_t>(size, 64));
  char* out = scratch.data();
  std::memcpy(out + (before ? marker.size() : 0), word.data(), word.size());
  std::memcpy(out + (before ? 0 : word.size()), marker.data(), marker.size());
  on_word(std::string_view(out, size));
}

void PreTokenizer::split(std::string_view line, std::string& scratch,
                         const WordCallback& on_word) const {
  if (regex_) {
    split_regex(line, on_word);
  } else if (options_.kind == PreTokenizerKind::icu_words) {
    split_icu(line, scratch, on_word);
  } else if (options_.kind == PreTokenizerKind::bert) {
    split_bert(line, scratch, on_word);
  } else {
    split_simple(line, scratch, on_word);
  }
}

std::vector<std::string> PreTokenizer::split(std::string_view line) const {
  std::vector<std::string> words;
  std::string scratch;
  split(line, scratch, [&](std::string_view w) { words.emplace_back(w); });
  return words;
}

void PreTokenizer::split_simple(std::string_view line, std::string& scratch,
                                const WordCallback& on_word) const {
  detail::split_simple(line, options_.kind == PreTokenizerKind::whitespace,
                       [&](std::string_view word, bool space_before, bool space_after) {
                         emit(word, space_before, space_after, scratch, on_word);
                       });
}

// BERT's BasicTokenizer as HF's BertPreTokenizer: split at white space (dropped),
// then isolate every punctuation character; the normalizer's spacing around CJK
// ideographs isolates those too. Nothing else is a boundary: marks, symbols and
// digits stay inside their word (£12 is one word, 2°C too).
void PreTokenizer::split_bert(std::string_view line, std::string& scratch,
                              const WordCallback& on_word) const {
  std::size_t start = 0;
  bool in_word = false;
  bool space_before = true;
  const std::size_t n = line.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t len = 1;
    char32_t cp = static_cast<unsigned char>(line[i]);
    if (cp >= 0x80) {
      len = utf8::sequence_length(line, i);
      if (len == 0) len = 1;
      cp = len == 1 ? cp : utf8::decode_at(line, i);
    }
    if (bert::is_whitespace(cp)) {
      if (in_word) emit(line.substr(start, i - start), space_before, true, scratch, on_word);
      in_word = false;
      space_before = true;
    } else if (bert::is_punctuation(cp) || bert::is_chinese(cp)) {
      if (in_word) emit(line.substr(start, i - start), space_before, false, scratch, on_word);
      if (in_word) space_before = false;
      const bool space_after = i + len == n || bert::is_whitespace(utf8::decode_at(line, i + len));
      emit(line.substr(i, len), space_before, space_after, scratch, on_word);
      in_word = false;
      space_before = false;
    } else if (!in_word) {
      start = i;
      in_word = true;
    }
    i += len;
  }
  if (in_word) emit(line.substr(start, n - start), space_before, true, scratch, on_word);
}

void PreTokenizer::split_icu(std::string_view line, std::string& scratch,
                             const WordCallback& on_word) const {
  // One break iterator per thread: creating one costs far more than using it.
  thread_local std::unique_ptr<icu::BreakIterator> iterator;
  UErrorCode status = U_ZERO_ERROR;
  if (!iterator) {
    iterator.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status))
      throw Error(std::string("ICU word break iterator: ") + u_errorName(status));
  }
  UText* text = utext_openUTF8(nullptr, line.data(), static_cast<int64_t>(line.size()), &status);
  if (U_FAILURE(status)) throw Error(std::string("ICU text: ") + u_errorName(status));
  iterator->setText(text, status);
  std::int32_t begin = iterator->first();
  bool space_before = true;
  for (std::int32_t end = iterator->next(); end != icu::BreakIterator::DONE;
       begin = end, end = iterator->next()) {
    const auto segment =
        line.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    bool all_space = true;
    for (std::size_t i = 0; i < segment.size();) {
      std::size_t len = utf8::sequence_length(segment, i);
      if (len == 0) len = 1;
      if (classify(utf8::decode_at(segment, i)).cls != CharClass::space) all_space = false;
      i += len;
    }
    if (all_space) {
      space_before = true;
      continue;
    }
    const bool space_after =
        static_cast<std::size_t>(end) == line.size() ||
        classify(utf8::decode_at(line, static_cast<std::size_t>(end))).cls == CharClass::space;
    emit(segment, space_before, space_after, scratch, on_word);
    space_before = false;
  }
  utext_close(text);
}

void PreTokenizer::split_regex(std::string_view line, const WordCallback& on_word) const {
  // As HF's Split(pattern, Isolated): matches are pieces, and so is any text
  // between them (the presets match every character, so there is none).
  std::size_t last = 0;
  regex_->for_each_match(line, [&](std::size_t start, std::size_t end) {
    if (start > last) on_word(line.substr(last, start - last));
    on_word(line.substr(start, end - start));
    last = end;
  });
  if (last < line.size()) on_word(line.substr(last));
}

std::string PreTokenizer::restore(std::string_view decoded) const {
  if (options_.marker == MarkerStyle::space) return std::string(decoded);
  std::string out;
  out.reserve(decoded.size());
  const std::string_view marker(kBoundaryMarker);
  std::size_t i = 0;
  while (i < decoded.size()) {
    if (decoded.compare(i, marker.size(), marker) == 0) {
      out += ' ';
      i += marker.size();
    } else {
      out += decoded[i++];
    }
  }
  const auto first = out.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  const auto last = out.find_last_not_of(' ');
  return out.substr(first, last - first + 1);
}

}  // namespace tokenlab
