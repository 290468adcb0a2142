// normalizer::Normalizer (normalizer.cc): see normalizer.hpp.
#include "sentencepiece/normalizer.hpp"

#include <utility>

#include "tokenlab/utf8.hpp"

namespace tokenlab::sentencepiece_detail {

SpmNormalizer::SpmNormalizer(detail::CharsMap map, std::shared_ptr<const SpmVocabulary> matcher,
                             NormalizerFlags flags, std::string name)
    : map_(std::move(map)), matcher_(std::move(matcher)), flags_(flags), name_(std::move(name)) {
  if (matcher_ && !matcher_->has_user_defined) matcher_.reset();
  // Bytes that stand for themselves: ASCII other than the space, with no rule
  // and no user-defined symbol starting at them.
  const auto ruled = [&](unsigned char c) {
    return map_.may_start(c) ||
           (matcher_ && matcher_->user_defined.next(0, c) != DoubleArray::kFail);
  };
  for (unsigned c = 0; c < 0x80; ++c) plain_[c] = c != ' ' && !ruled(static_cast<unsigned char>(c));
  for (unsigned c = 0; c < 256; ++c)
    user_lead_[c] = matcher_ && matcher_->user_defined.next(0, static_cast<unsigned char>(c)) !=
                                    DoubleArray::kFail;
  plain_space_ = !ruled(' ');
  // Bytes that stand for themselves when an ASCII byte (or the end) follows.
  for (unsigned c = 0; c < 0x80; ++c) {
    const auto byte = static_cast<unsigned char>(c);
    bool safe = c != ' ' && map_.ascii_safe(byte);
    if (safe && matcher_) {
      const DoubleArray& user = matcher_->user_defined;
      if (const std::uint32_t node = user.next(0, byte); node != DoubleArray::kFail) {
        safe = user.value(node) < 0;
        for (unsigned next = 0; next < 0x80 && safe; ++next)
          safe = user.next(node, static_cast<unsigned char>(next)) == DoubleArray::kFail;
      }
    }
    ascii_safe_[c] = plain_[c] || safe;
  }
  // The three-byte characters that stand for themselves, by their 16 payload
  // bits (the code point): well-formed (U+0800 on, not a surrogate), no rule
  // at them, no user-defined symbol starting with their lead byte.
  for (std::size_t word = 0; word < plain_three_.size(); ++word) {
    const char32_t first = static_cast<char32_t>(word) * 64;
    const bool well_formed = first >= 0x800 && (first < 0xD800 || first > 0xDFFF);
    const bool user = user_lead_[0xE0 | (first >> 12)];
    plain_three_[word] = well_formed && !user ? ~map_.ruled_bmp_word(word) : 0;
  }
}

void SpmNormalizer::apply(std::string& text) const {
  thread_local std::string out;
  normalize(text, out);
  text.swap(out);
}

void SpmNormalizer::apply_plain(std::string& text) const {
  std::string out;
  normalize(text, out, false);
  text.swap(out);
}

void SpmNormalizer::normalize(std::string_view input, std::string& out, bool runs) const {
  out.clear();
  if (input.empty()) return;
  std::size_t consumed = 0;
  if (flags_.remove_extra_whitespaces) {  // leading white space
    while (!input.empty()) {
      if (prefix(input, consumed) != " ") break;
      input.remove_prefix(consumed);
    }
  }
  if (input.empty()) return;
  out.reserve(input.size() * 3 / 2 + 8);
  const auto add_space = [&] {
    if (flags_.escape_whitespaces)
      out += kSpaceSymbol;
    else
      out += ' ';
  };
  if (!flags_.treat_whitespace_as_suffix && flags_.add_dummy_prefix) add_space();
  bool previous_space = flags_.remove_extra_whitespaces;
  while (!input.empty()) {
    if (const std::size_t run = runs ? plain_run_end(input, 0) : 0; run != 0) {
      // A run of characters that stand for themselves: each is its own piece,
      // copied, and not a space. (Japanese, Chinese and Hindi text is mostly
      // such runs; NormalizePrefix on each character was a fifth of encoding.)
      out.append(input.substr(0, run));
      input.remove_prefix(run);
      previous_space = false;
      continue;
    }
    if (runs && plain_space_ && input.front() == ' ') {
      // The piece " ": dropped after a space when removing extra white space.
      if (!previous_space) add_space();
      previous_space = flags_.remove_extra_whitespaces;
      input.remove_prefix(1);
      continue;
    }
    std::string_view piece = prefix(input, consumed);
    while (previous_space && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    if (!piece.empty()) {
      if (flags_.escape_whitespaces) {
        for (std::size_t from = 0;;) {
          const std::size_t space = piece.find(' ', from);
          if (space == std::string_view::npos) {
            out.append(piece.substr(from));
            break;
          }
          out.append(piece.substr(from, space - from));
          out += kSpaceSymbol;
          from = space + 1;
        }
      } else {
        out += piece;
      }
      previous_space = piece.back() == ' ';
    }
    input.remove_prefix(consumed);
    if (!flags_.remove_extra_whitespaces) previous_space = false;
  }
  if (flags_.remove_extra_whitespaces) {  // trailing white space (and "▁"s)
    const std::string_view space = flags_.escape_whitespaces ? kSpaceSymbol : " ";
    while (out.size() >= space.size() &&
           std::string_view(out).substr(out.size() - space.size()) == space)
      out.resize(out.size() - space.size());
  }
  if (flags_.treat_whitespace_as_suffix && flags_.add_dummy_prefix) add_space();
}

std::string SpmNormalizer::describe() const {
  std::string d = "SentencePiece normalizer (";
  d += name_.empty() ? "unnamed" : name_;
  d += map_.empty() ? ", no rules" : ", " + std::to_string(map_.rule_count()) + " rules";
  if (flags_.add_dummy_prefix)
    d += flags_.treat_whitespace_as_suffix ? ", dummy suffix" : ", dummy prefix";
  if (flags_.remove_extra_whitespaces) d += ", remove extra white space";
  if (flags_.escape_whitespaces) d += ", spaces as \u2581";
  if (matcher_) d += ", user-defined symbols kept";
  return d + ")";
}

// Normalizer::NormalizePrefix: what the start of input becomes, and how many
// bytes it consumes.
std::string_view SpmNormalizer::prefix(std::string_view input, std::size_t& consumed) const {
  if (matcher_) {
    if (const std::size_t length = matcher_->user_defined_prefix(input); length != 0) {
      consumed = length;
      return input.substr(0, length);
    }
  }
  std::string_view replacement;
  if (const std::size_t length = map_.longest_match(input, replacement); length != 0) {
    consumed = length;
    return replacement;
  }
  const std::size_t length = utf8::sequence_length(input, 0);
  if (length == 0) {  // an ill-formed byte: U+FFFD for that one byte
    consumed = 1;
    return detail::kReplacementCharacter;
  }
  consumed = length;
  return input.substr(0, length);
}

}  // namespace tokenlab::sentencepiece_detail
