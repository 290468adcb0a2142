// Hugging Face's normalizers (tokenizers/src/normalizers/*.rs).
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <array>
#include <string>

#include "hf/word_count_shortcuts.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

bool is_ascii(std::string_view s) {
  for (const char ch : s)
    if (static_cast<unsigned char>(ch) >= 0x80) return false;
  return true;
}

class UnicodeNormalizer final : public NormalizerStep {
 public:
  explicit UnicodeNormalizer(UnicodeForm form) : form_(form) {
    UErrorCode status = U_ZERO_ERROR;
    switch (form) {
      case UnicodeForm::nfc:
        icu_ = icu::Normalizer2::getNFCInstance(status);
        break;
      case UnicodeForm::nfd:
        icu_ = icu::Normalizer2::getNFDInstance(status);
        break;
      case UnicodeForm::nfkc:
        icu_ = icu::Normalizer2::getNFKCInstance(status);
        break;
      case UnicodeForm::nfkd:
        icu_ = icu::Normalizer2::getNFKDInstance(status);
        break;
    }
    if (U_FAILURE(status)) throw Error(std::string("ICU normalizer: ") + u_errorName(status));
  }
  void apply(std::string& text) const override {
    if (is_ascii(text)) return;  // every form leaves ASCII alone
    UErrorCode status = U_ZERO_ERROR;
    if (icu_->isNormalizedUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())),
                               status) &&
        U_SUCCESS(status))
      return;
    status = U_ZERO_ERROR;
    std::string out;
    icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(text.size()));
    icu_->normalizeUTF8(0, icu::StringPiece(text.data(), static_cast<int32_t>(text.size())), sink,
                        nullptr, status);
    if (U_FAILURE(status)) throw Error(std::string("normalization failed: ") + u_errorName(status));
    text = std::move(out);
  }
  [[nodiscard]] std::string describe() const override {
    static constexpr const char* kNames[] = {"NFC", "NFD", "NFKC", "NFKD"};
    return kNames[static_cast<int>(form_)];
  }
  [[nodiscard]] UnicodeForm form() const noexcept { return form_; }

 private:
  UnicodeForm form_;
  const icu::Normalizer2* icu_ = nullptr;
};

class LowercaseNormalizer final : public NormalizerStep {
 public:
  void apply(std::string& text) const override { text = lowercase_code_points(text); }
  [[nodiscard]] std::string describe() const override { return "Lowercase"; }
};

class ReplaceNormalizer final : public NormalizerStep {
 public:
  ReplaceNormalizer(std::string pattern, bool is_regex, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {
    if (is_regex) regex_ = std::make_unique<PretrainedRegex>(pattern_, kHfUnicode);
  }
  void apply(std::string& text) const override {
    std::string out;
    std::size_t last = 0;
    const auto replace = [&](std::size_t start, std::size_t end) {
      out.append(text, last, start - last);
      out += content_;
      last = end;
    };
    if (regex_) {
      regex_->for_each_match(text, replace);
    } else {
      if (pattern_.empty()) return;
      for (std::size_t at = text.find(pattern_); at != std::string::npos;
           at = text.find(pattern_, at + pattern_.size()))
        replace(at, at + pattern_.size());
    }
    if (last == 0 && out.empty()) return;  // no match
    out.append(text, last, std::string::npos);
    text = std::move(out);
  }
  [[nodiscard]] std::string describe() const override {
    return "Replace(" + std::string(regex_ ? "/" : "\"") + pattern_ + (regex_ ? "/" : "\"") +
           " -> \"" + content_ + "\")";
  }

 private:
  std::string pattern_;
  std::string content_;
  std::unique_ptr<PretrainedRegex> regex_;
};

class PrependNormalizer final : public NormalizerStep {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void apply(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }
  [[nodiscard]] std::string describe() const override { return "Prepend(\"" + prefix_ + "\")"; }

 private:
  std::string prefix_;
};

class StripNormalizer final : public NormalizerStep {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void apply(std::string& text) const override {
    std::size_t begin = 0;
    std::size_t end = text.size();
    if (left_) {
      while (begin < end) {
        const std::size_t length = utf8::sequence_length(text, begin);
        if (!u_isUWhiteSpace(static_cast<UChar32>(utf8::decode_at(text, begin)))) break;
        begin += length;
      }
    }
    if (right_) {
      while (end > begin) {
        std::size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        if (!u_isUWhiteSpace(static_cast<UChar32>(utf8::decode_at(text, start)))) break;
        end = start;
      }
    }
    text = text.substr(begin, end - begin);
  }
  [[nodiscard]] std::string describe() const override {
    return std::string("Strip(") + (left_ ? "left" : "") + (left_ && right_ ? ", " : "") +
           (right_ ? "right" : "") + ")";
  }

 private:
  bool left_, right_;
};

class StripAccentsNormalizer final : public NormalizerStep {
 public:
  void apply(std::string& text) const override {
    if (is_ascii(text)) return;
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t length = utf8::sequence_length(text, i);
      if (length == 0) {  // an ill-formed byte, kept
        out += text[i++];
        continue;
      }
      if (u_charType(static_cast<UChar32>(utf8::decode_at(text, i))) != U_NON_SPACING_MARK)
        out.append(text, i, length);
      i += length;
    }
    text = std::move(out);
  }
  [[nodiscard]] std::string describe() const override { return "StripAccents"; }
};

// HF's BertNormalizer, on tokenlab's `bert` normalization form (exact against HF
// on every code point; see bert_characters.hpp), plus the spaces HF puts around
// CJK ideographs. tokenlab's form also collapses white space runs, which only
// matters when no white space split follows; BertNormalizer is always followed
// by one in BERT's pipeline, and the reader refuses it otherwise.
class BertNormalizer final : public NormalizerStep {
 public:
  BertNormalizer(bool handle_chinese_chars, bool strip_accents, bool lowercase)
      : normalizer_(NormalizerOptions{.form = NormalizationForm::bert,
                                      .lowercase = lowercase,
                                      .strip_accents = strip_accents}),
        handle_chinese_chars_(handle_chinese_chars) {
    // What the form does to each ASCII byte between two letters: a space, gone
    // (a control character), or one byte.
    for (int b = 0; b < 0x80; ++b) {
      const std::string out = normalizer_.normalize(std::string{'a', static_cast<char>(b), 'a'});
      ascii_[b] = out == "a a" ? kSpace : out == "aa" ? kRemoved : out[1];
    }
  }
  // Word by word (between ASCII white space): an ASCII word through the table,
  // any other through the form. Every step of the form but the collapse of
  // white space is per character (decomposition reorders marks only between
  // starters, and white space is one), so this is the form of the whole line;
  // ICU saw the whole of any line with one accent before, a third of English.
  void apply(std::string& text) const override {
    std::string out;
    out.reserve(text.size() + 16);
    std::string word;
    for (std::size_t i = 0; i < text.size();) {
      if (ascii_at(text, i) == kSpace) {
        ++i;
        continue;
      }
      std::size_t end = i;
      bool ascii = true;
      while (end < text.size() && ascii_at(text, end) != kSpace) {
        ascii = ascii && static_cast<unsigned char>(text[end]) < 0x80;
        ++end;
      }
      const std::size_t mark = out.size();
      if (!out.empty()) out += ' ';
      const std::size_t start = out.size();
      if (ascii) {
        for (std::size_t k = i; k < end; ++k)
          if (const char c = ascii_[static_cast<unsigned char>(text[k])]; c != kRemoved) out += c;
      } else {
        normalizer_.normalize(std::string_view(text).substr(i, end - i), word);
        out += word;
      }
      if (out.size() == start) out.resize(mark);  // nothing left of the word
      i = end;
    }
    if (handle_chinese_chars_ && !is_ascii(out)) out = space_chinese(out);
    text = std::move(out);
  }
  [[nodiscard]] std::string describe() const override {
    return "BertNormalizer(" + normalizer_.options().to_string() +
           (handle_chinese_chars_ ? ", CJK spaced" : "") + ")";
  }
  [[nodiscard]] bool lowercase() const noexcept { return normalizer_.options().lowercase; }

 private:
  static constexpr char kSpace = '\x01';    // in ascii_: the byte is white space
  static constexpr char kRemoved = '\x02';  // in ascii_: the byte is dropped

  // The table's answer for an ASCII byte; any other byte is part of a word.
  [[nodiscard]] char ascii_at(std::string_view text, std::size_t i) const {
    const auto b = static_cast<unsigned char>(text[i]);
    return b < 0x80 ? ascii_[b] : 'a';
  }
  static std::string space_chinese(std::string_view out) {
    std::string spaced;
    spaced.reserve(out.size() + 16);
    for (std::size_t i = 0; i < out.size();) {
      const std::size_t length = utf8::sequence_length(out, i);
      const bool cjk = bert::is_chinese(utf8::decode_at(out, i));
      if (cjk) spaced += ' ';
      spaced.append(out, i, length);
      if (cjk) spaced += ' ';
      i += length;
    }
    return spaced;
  }

  Normalizer normalizer_;
  bool handle_chinese_chars_;
  std::array<char, 0x80> ascii_{};
};

}  // namespace

namespace hf {
bool is_nfc_normalizer(const NormalizerStep& step) {
  const auto* unicode = dynamic_cast<const UnicodeNormalizer*>(&step);
  return unicode != nullptr && unicode->form() == UnicodeForm::nfc;
}
std::optional<bool> bert_normalizer_lowercase(const NormalizerStep& step) {
  const auto* bert = dynamic_cast<const BertNormalizer*>(&step);
  if (bert == nullptr) return std::nullopt;
  return bert->lowercase();
}
}  // namespace hf

std::unique_ptr<NormalizerStep> make_unicode_normalizer(UnicodeForm form) {
  return std::make_unique<UnicodeNormalizer>(form);
}
std::unique_ptr<NormalizerStep> make_lowercase_normalizer() {
  return std::make_unique<LowercaseNormalizer>();
}
std::unique_ptr<NormalizerStep> make_replace_normalizer(std::string pattern, bool is_regex,
                                                        std::string content) {
  return std::make_unique<ReplaceNormalizer>(std::move(pattern), is_regex, std::move(content));
}
std::unique_ptr<NormalizerStep> make_prepend_normalizer(std::string prefix) {
  return std::make_unique<PrependNormalizer>(std::move(prefix));
}
std::unique_ptr<NormalizerStep> make_strip_normalizer(bool left, bool right) {
  return std::make_unique<StripNormalizer>(left, right);
}
std::unique_ptr<NormalizerStep> make_strip_accents_normalizer() {
  return std::make_unique<StripAccentsNormalizer>();
}
std::unique_ptr<NormalizerStep> make_bert_normalizer(bool clean_text, bool handle_chinese_chars,
                                                     bool strip_accents, bool lowercase) {
  if (!clean_text)
    throw Error("BertNormalizer with clean_text false is not implemented in tokenlab");
  return std::make_unique<BertNormalizer>(handle_chinese_chars, strip_accents, lowercase);
}

}  // namespace tokenlab
