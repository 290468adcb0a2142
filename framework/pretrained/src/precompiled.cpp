// SentencePiece's precompiled character map (normalizer.cc, darts.h) and the
// Precompiled normalizer built on it, as spm_encode runs it and, on request, as
// Hugging Face tokenizers runs it (normalizers/precompiled.rs over the
// spm_precompiled crate).
#include "precompiled.hpp"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <cstring>
#include <memory>

#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace detail {

namespace {

std::uint32_t read_le32(std::string_view blob, std::size_t at) {
  const auto b = [&](std::size_t i) {
    return std::uint32_t{static_cast<unsigned char>(blob[at + i])};
  };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

}  // namespace

CharsMap::ChildIndex CharsMap::index_children(const std::vector<std::uint32_t>& units) {
  // Unit u is the child c of a state whose base is u ^ c when its label is c (a
  // byte: the high bit clear). Sorted by label, then stably by that base, each
  // base's children come in label order, the order a walk of c = 0..255 finds
  // them in (which decides the error a broken map reports first).
  const auto is_child = [&](std::size_t u) { return label(units[u]) < 256; };
  std::array<std::uint32_t, 257> label_start{};
  for (std::size_t u = 0; u < units.size(); ++u)
    if (is_child(u)) ++label_start[label(units[u]) + 1];
  for (std::size_t c = 0; c < 256; ++c) label_start[c + 1] += label_start[c];
  std::vector<std::uint32_t> by_label(label_start[256]);
  for (std::size_t u = 0; u < units.size(); ++u)
    if (is_child(u)) by_label[label_start[label(units[u])]++] = static_cast<std::uint32_t>(u);
  ChildIndex index;
  const auto base_of = [&](std::uint32_t u) { return u ^ label(units[u]); };
  index.first.assign((units.size() | 0xFF) + 2, 0);  // every base a block in the array has
  for (const std::uint32_t u : by_label) ++index.first[base_of(u) + 1];
  for (std::size_t b = 1; b < index.first.size(); ++b) index.first[b] += index.first[b - 1];
  index.units.resize(by_label.size());
  std::vector<std::uint32_t> next(index.first.begin(), index.first.end() - 1);
  for (const std::uint32_t u : by_label) index.units[next[base_of(u)]++] = u;
  return index;
}

CharsMap::CharsMap(std::string blob, const std::string& where) {
  if (blob.empty()) return;  // SentencePiece: no map, no rules
  const auto fail = [&](std::size_t at, const std::string& what) {
    throw Error(where + ": precompiled_charsmap, byte " + std::to_string(at) + ": " + what);
  };
  if (blob.size() <= 4)
    fail(0, "the map is " + std::to_string(blob.size()) +
                " bytes, too short for its 4-byte trie size and a trie");
  const std::uint32_t trie_bytes = read_le32(blob, 0);
  if (trie_bytes == 0 || trie_bytes % 4 != 0)
    fail(0, "the trie size " + std::to_string(trie_bytes) +
                " is not a positive multiple of 4 (the size of a double-array unit)");
  if (std::uint64_t{trie_bytes} > blob.size() - 4)
    fail(0, "the trie size " + std::to_string(trie_bytes) + " runs past the end of the map (" +
                std::to_string(blob.size() - 4) + " bytes follow the size): truncated?");
  const std::size_t count = trie_bytes / 4;
  units_.resize(count);
  for (std::size_t i = 0; i < count; ++i) units_[i] = read_le32(blob, 4 + 4 * i);
  normalized_ = std::move(blob);
  normalized_.erase(0, 4 + std::size_t{trie_bytes});
  replacements_utf8_ = !utf8::find_invalid(normalized_).has_value();
  const std::size_t normalized_at = 4 + std::size_t{trie_bytes};
  const std::size_t last_nul = normalized_.rfind('\0');

  // Every state a walk can reach from the root, checked once: the 256 units a
  // state's children may sit at are in the array, and a state with a leaf names
  // a replacement that a '\0' ends.
  const auto unit_at = [&](std::size_t index) { return 4 + 4 * index; };
  const auto block_in_array = [&](std::uint32_t state, std::uint32_t base) {
    if ((std::uint64_t{base} | 0xFF) >= count)
      fail(unit_at(state), "double-array unit " + std::to_string(state) +
                               " points past the end of the array (" + std::to_string(count) +
                               " units)");
  };
  const std::uint32_t root_base = offset(units_[0]);
  block_in_array(0, root_base);
  // A state's children come from the index, not from probing its 256 slots:
  // loading the default nmt_nfkc map took 5 ms that way, more than encoding a
  // page of text.
  const ChildIndex children = index_children(units_);
  std::vector<bool> seen(count, false);
  std::vector<std::uint32_t> stack;
  const auto visit_children = [&](std::uint32_t base) {  // base | 0xFF < count
    for (std::uint32_t i = children.first[base]; i < children.first[base + 1]; ++i) {
      const std::uint32_t child = children.units[i];
      if (!seen[child]) {
        seen[child] = true;
        stack.push_back(child);
      }
    }
  };
  visit_children(root_base);
  for (std::uint32_t c = 0; c < 256; ++c) starts_[c] = label(units_[root_base ^ c]) == c;
  while (!stack.empty()) {
    const std::uint32_t state = stack.back();
    stack.pop_back();
    const std::uint32_t base = state ^ offset(units_[state]);
    block_in_array(state, base);
    if (has_leaf(units_[state])) {
      const std::uint32_t at = value(units_[base]);
      if (at >= normalized_.size() || last_nul == std::string::npos || at > last_nul)
        fail(unit_at(base),
             "the rule's replacement offset " + std::to_string(at) +
                 " is not a '\\0'-terminated string of the " + std::to_string(normalized_.size()) +
                 " bytes of replacements (at byte " + std::to_string(normalized_at) + ")");
      ++rules_;
    }
    visit_children(base);
  }
  // After the walk above: every block read here was checked.
  for (std::uint32_t c = 0; c < 0x80; ++c) {
    if (!starts_[c]) {
      ascii_safe_[c] = true;
      continue;
    }
    const std::uint32_t state = root_base ^ c;
    bool safe = !has_leaf(units_[state]);
    const std::uint32_t base = state ^ offset(units_[state]);
    for (std::uint32_t next = 0; next < 0x80 && safe; ++next)
      safe = label(units_[base ^ next]) != next;
    ascii_safe_[c] = safe;
  }
  index_bmp_characters();
}

void CharsMap::index_bmp_characters() {
  ruled_bmp_.assign(0x10000 / 64, 0);
  const auto mark = [&](std::uint32_t from, std::uint32_t count) {
    for (std::uint32_t cp = from; cp < from + count; ++cp) ruled_bmp_[cp >> 6] |= 1ULL << (cp & 63);
  };
  // Only the paths the trie has: a character none of whose bytes' walk
  // reaches a key (nor completes) keeps its bit clear. The walk is the
  // validated one, so every block it reads is in the array.
  const std::uint32_t root = offset(units_[0]);
  bool leaf = false;
  for (std::uint32_t b0 = 0; b0 < 0xF0; ++b0) {
    std::uint32_t p0 = root;
    if (!step(p0, static_cast<unsigned char>(b0), leaf)) continue;
    if (b0 < 0x80) {
      mark(b0, 1);
      continue;
    }
    if (b0 < 0xC2) continue;  // no character starts with it
    const bool two = b0 < 0xE0;
    const std::uint32_t from0 = two ? (b0 & 0x1F) << 6 : (b0 & 0x0F) << 12;
    if (leaf) {
      mark(from0, two ? 64 : 4096);
      continue;
    }
    for (std::uint32_t b1 = 0x80; b1 < 0xC0; ++b1) {
      std::uint32_t p1 = p0;
      if (!step(p1, static_cast<unsigned char>(b1), leaf)) continue;
      const std::uint32_t from1 = two ? from0 | (b1 & 0x3F) : from0 | ((b1 & 0x3F) << 6);
      if (two || leaf) {
        mark(from1, two ? 1 : 64);
        continue;
      }
      for (std::uint32_t b2 = 0x80; b2 < 0xC0; ++b2) {
        std::uint32_t p2 = p1;
        if (step(p2, static_cast<unsigned char>(b2), leaf)) mark(from1 | (b2 & 0x3F), 1);
      }
    }
  }
}

}  // namespace detail

namespace {

using detail::CharsMap;
using detail::kReplacementCharacter;

// Appends the normalization of text: at each position the longest rule, else
// one character as is (an ill-formed byte as U+FFFD), as SentencePiece's
// Normalizer::NormalizePrefix with no user-defined symbols.
void normalize_longest(const CharsMap& map, std::string_view text, std::string& out) {
  std::size_t i = 0;
  std::string_view replacement;
  while (i < text.size()) {
    const auto first = static_cast<unsigned char>(text[i]);
    if (first < 0x80 &&
        (!map.may_start(first) ||
         (map.ascii_safe(first) &&
          (i + 1 == text.size() || static_cast<unsigned char>(text[i + 1]) < 0x80)))) {
      // ASCII that no rule matches here: itself
      out += text[i++];
      continue;
    }
    const std::string_view rest = text.substr(i);
    if (const std::size_t length = map.longest_match(rest, replacement); length != 0) {
      out += replacement;
      i += length;
      continue;
    }
    const std::size_t length = utf8::sequence_length(text, i);
    if (length == 0) {
      out += kReplacementCharacter;
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
}

class SpmPrecompiledNormalizer final : public NormalizerStep {
 public:
  explicit SpmPrecompiledNormalizer(CharsMap map) : map_(std::move(map)) {}
  void apply(std::string& text) const override {
    thread_local std::string out;
    out.clear();
    out.reserve(text.size() + text.size() / 4 + 16);
    normalize_longest(map_, text, out);
    text.swap(out);
  }
  [[nodiscard]] std::string describe() const override {
    return "Precompiled(" + std::to_string(map_.rule_count()) + " rules, longest match)";
  }

 private:
  CharsMap map_;
};

// ICU's extended grapheme clusters, one iterator per thread.
icu::BreakIterator& grapheme_iterator() {
  thread_local std::unique_ptr<icu::BreakIterator> iterator;
  if (!iterator) {
    UErrorCode status = U_ZERO_ERROR;
    iterator.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || !iterator) {
      iterator.reset();
      throw Error(std::string("ICU grapheme break iterator: ") + u_errorName(status));
    }
  }
  return *iterator;
}

// HF tokenizers' Precompiled: grapheme by grapheme, a grapheme shorter than 6
// bytes replaced whole by the replacement of the shortest rule that is a prefix
// of it; otherwise, and when no rule matches, code point by code point with the
// shortest rule that is a prefix of the code point.
class HfPrecompiledNormalizer final : public NormalizerStep {
 public:
  explicit HfPrecompiledNormalizer(CharsMap map) : map_(std::move(map)) {}
  void apply(std::string& text) const override {
    if (text.empty()) return;
    thread_local std::string out;
    out.clear();
    out.reserve(text.size() + 16);
    icu::BreakIterator& graphemes = grapheme_iterator();
    UErrorCode status = U_ZERO_ERROR;
    UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
    if (U_FAILURE(status)) throw Error(std::string("ICU: ") + u_errorName(status));
    graphemes.setText(ut, status);
    if (U_FAILURE(status)) {
      utext_close(ut);
      throw Error(std::string("ICU: ") + u_errorName(status));
    }
    std::string_view replacement;
    std::int32_t start = graphemes.first();
    for (std::int32_t end = graphemes.next(); end != icu::BreakIterator::DONE;
         start = end, end = graphemes.next()) {
      const std::string_view grapheme(text.data() + start, static_cast<std::size_t>(end - start));
      if (grapheme.size() < 6 && map_.shortest_match(grapheme, replacement)) {
        out += replacement;
        continue;
      }
      for (std::size_t i = 0; i < grapheme.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8::sequence_length(grapheme, i));
        const std::string_view code_point = grapheme.substr(i, length);
        if (map_.shortest_match(code_point, replacement))
          out += replacement;
        else
          out += code_point;
        i += length;
      }
    }
    utext_close(ut);
    text.swap(out);
  }
  [[nodiscard]] std::string describe() const override {
    return "Precompiled(" + std::to_string(map_.rule_count()) +
           " rules, HF tokenizers' grapheme matching)";
  }

 private:
  CharsMap map_;
};

}  // namespace

std::unique_ptr<NormalizerStep> make_precompiled_normalizer(std::string charsmap,
                                                            const std::string& where,
                                                            bool hf_tokenizers) {
  if (hf_tokenizers) {
    // spm_precompiled's Precompiled::from: the map must parse and its
    // replacements must be UTF-8 (a Rust String).
    if (charsmap.empty())
      throw Error(where + ": precompiled_charsmap is empty (HF tokenizers cannot parse it)");
    CharsMap map(std::move(charsmap), where);
    if (!map.replacements_are_utf8())
      throw Error(where + ": precompiled_charsmap: the replacement strings are not valid UTF-8");
    return std::make_unique<HfPrecompiledNormalizer>(std::move(map));
  }
  return std::make_unique<SpmPrecompiledNormalizer>(CharsMap(std::move(charsmap), where));
}

}  // namespace tokenlab
