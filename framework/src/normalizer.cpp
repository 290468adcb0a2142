#include "tokenlab/normalizer.hpp"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

std::string NormalizerOptions::to_string() const {
  std::string s;
  switch (form) {
    case NormalizationForm::none:
      s = "none";
      break;
    case NormalizationForm::nfc:
      s = "nfc";
      break;
    case NormalizationForm::nfkc:
      s = "nfkc";
      break;
  }
  if (lowercase) s += "+lowercase";
  if (strip_accents) s += "+strip-accents";
  return s;
}

NormalizerOptions NormalizerOptions::parse(std::string_view text) {
  NormalizerOptions o;
  const auto plus = text.find('+');
  const std::string_view form = text.substr(0, plus);
  if (form == "none")
    o.form = NormalizationForm::none;
  else if (form == "nfc")
    o.form = NormalizationForm::nfc;
  else if (form == "nfkc")
    o.form = NormalizationForm::nfkc;
  else
    throw Error("unknown normalization '" + std::string(form) + "': expected nfc|nfkc|none");
  std::string_view rest =
      plus == std::string_view::npos ? std::string_view() : text.substr(plus + 1);
  while (!rest.empty()) {
    const auto next = rest.find('+');
    const std::string_view flag = rest.substr(0, next);
    if (flag == "lowercase")
      o.lowercase = true;
    else if (flag == "strip-accents")
      o.strip_accents = true;
    else
      throw Error("unknown normalizer flag '" + std::string(flag) + "'");
    rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
  }
  return o;
}

namespace {

bool is_ascii(std::string_view s) noexcept {
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

bool is_ascii_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

// Collapses white space runs to one space and trims, for ASCII input. Appends whole
// runs of non-space bytes at once: this runs on every line of every corpus.
void collapse_ascii(std::string_view in, bool lowercase, std::string& out) {
  out.clear();
  out.reserve(in.size());
  std::size_t i = 0;
  const std::size_t n = in.size();
  while (i < n) {
    while (i < n && is_ascii_space(in[i])) ++i;
    if (i == n) break;
    const std::size_t start = i;
    while (i < n && !is_ascii_space(in[i])) ++i;
    if (!out.empty()) out += ' ';
    const std::size_t at = out.size();
    out.append(in.data() + start, i - start);
    if (lowercase)
      for (std::size_t k = at; k < out.size(); ++k)
        if (out[k] >= 'A' && out[k] <= 'Z') out[k] = static_cast<char>(out[k] - 'A' + 'a');
  }
}

// Length of the white space character at in[i], or 0 if it is not white space.
std::size_t space_length(std::string_view in, std::size_t i) {
  const auto byte = static_cast<unsigned char>(in[i]);
  if (byte < 0x80) return is_ascii_space(static_cast<char>(byte)) ? 1 : 0;
  const std::size_t len = utf8::sequence_length(in, i);
  if (len == 0) return 0;
  return u_isUWhiteSpace(static_cast<UChar32>(utf8::decode_at(in, i))) ? len : 0;
}

void collapse_unicode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  std::size_t i = 0;
  const std::size_t n = in.size();
  while (i < n) {
    for (std::size_t len; i < n && (len = space_length(in, i)) > 0;) i += len;
    if (i == n) break;
    const std::size_t start = i;
    while (i < n && space_length(in, i) == 0) {
      const std::size_t len = utf8::sequence_length(in, i);
      i += len == 0 ? 1 : len;
    }
    if (!out.empty()) out += ' ';
    out.append(in.data() + start, i - start);
  }
}

}  // namespace

Normalizer::Normalizer(NormalizerOptions options) : options_(options) {
  UErrorCode status = U_ZERO_ERROR;
  switch (options_.form) {
    case NormalizationForm::none:
      break;
    case NormalizationForm::nfc:
      icu_normalizer_ = icu::Normalizer2::getNFCInstance(status);
      break;
    case NormalizationForm::nfkc:
      icu_normalizer_ = icu::Normalizer2::getNFKCInstance(status);
      break;
  }
  if (options_.strip_accents) nfd_ = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status))
    throw Error(std::string("ICU normalizer unavailable: ") + u_errorName(status));
}

void Normalizer::normalize(std::string_view line, std::string& out) const {
  if (is_ascii(line)) {
    collapse_ascii(line, options_.lowercase, out);
    return;
  }
  if (!options_.lowercase && !options_.strip_accents) {
    // Most corpus text is already normalized: checking that on the UTF-8 bytes is far
    // cheaper than converting to UTF-16 and back.
    UErrorCode status = U_ZERO_ERROR;
    const auto* normalizer = static_cast<const icu::Normalizer2*>(icu_normalizer_);
    if (normalizer == nullptr ||
        (normalizer->isNormalizedUTF8(
             icu::StringPiece(line.data(), static_cast<int32_t>(line.size())), status) &&
         U_SUCCESS(status))) {
      collapse_unicode(line, out);
      return;
    }
  }
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(line.data(), static_cast<int32_t>(line.size())));
  UErrorCode status = U_ZERO_ERROR;
  if (options_.strip_accents) {
    text = static_cast<const icu::Normalizer2*>(nfd_)->normalize(text, status);
    icu::UnicodeString stripped;
    for (int32_t i = 0; i < text.length();) {
      const UChar32 c = text.char32At(i);
      if (u_charType(c) != U_NON_SPACING_MARK) stripped.append(c);
      i += U16_LENGTH(c);
    }
    text = stripped;
  }
  if (icu_normalizer_ != nullptr)
    text = static_cast<const icu::Normalizer2*>(icu_normalizer_)->normalize(text, status);
  if (U_FAILURE(status)) throw Error(std::string("normalization failed: ") + u_errorName(status));
  if (options_.lowercase) text.toLower(icu::Locale::getRoot());
  std::string utf8_text;
  text.toUTF8String(utf8_text);
  collapse_unicode(utf8_text, out);
}

std::string Normalizer::normalize(std::string_view line) const {
  std::string out;
  normalize(line, out);
  return out;
}

}  // namespace tokenlab
