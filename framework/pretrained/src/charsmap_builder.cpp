#include "charsmap_builder.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <map>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::detail {

namespace {

// Darts-clone's unit layout (darts.h, DoubleArrayUnit): a node's unit holds its
// label (bits 0-7), whether it has a value (bit 8) and the XOR offset from its
// own index to its children's block (bits 10-31); the value sits in the child
// with label 0, as a unit with bit 31 set.
constexpr std::uint32_t kHasLeaf = 1U << 8;
constexpr std::uint32_t kIsLeaf = 1U << 31;
constexpr std::uint32_t kMaxOffset = 1U << 21;  // without darts' extension bit
constexpr std::size_t kBlock = 256;

class DartsBuilder {
 public:
  explicit DartsBuilder(const std::vector<std::pair<std::string, std::uint32_t>>& keys)
      : keys_(keys) {
    grow(kBlock);
    used_[0] = true;  // the root
    place(0, 0, keys_.size(), 0);
    finish();
  }

  [[nodiscard]] const std::vector<std::uint32_t>& units() const noexcept { return units_; }

 private:
  void grow(std::size_t size) {
    size = (size + kBlock - 1) / kBlock * kBlock;
    if (size <= units_.size()) return;
    if (size > kMaxOffset) throw Error("SentencePiece charsmap: too many rules for one trie");
    units_.resize(size, 0);
    used_.resize(size, false);
    base_used_.resize(size, false);
  }

  // The children labels of the node over keys [lo, hi) at depth: 0 first when
  // a key ends here (its value), then each next byte.
  std::vector<unsigned> labels(std::size_t lo, std::size_t hi, std::size_t depth) const {
    std::vector<unsigned> out;
    for (std::size_t i = lo; i < hi; ++i) {
      const std::string& key = keys_[i].first;
      const unsigned c = key.size() == depth ? 0U : static_cast<unsigned char>(key[depth]);
      if (out.empty() || out.back() != c) out.push_back(c);
    }
    return out;
  }

  std::uint32_t find_base(const std::vector<unsigned>& children) {
    for (std::size_t slot = first_free_;; ++slot) {
      if (slot >= used_.size()) grow(slot + kBlock);
      if (used_[slot]) continue;
      const std::size_t base = slot ^ children.front();
      if (base_used_[base]) continue;
      if (std::all_of(children.begin(), children.end(),
                      [&](unsigned c) { return !used_[base ^ c]; }))
        return static_cast<std::uint32_t>(base);
    }
  }

  // Places the children of the node at index over keys [lo, hi), then theirs.
  void place(std::uint32_t index, std::size_t lo, std::size_t hi, std::size_t depth) {
    const std::vector<unsigned> children = labels(lo, hi, depth);
    const std::uint32_t base = find_base(children);
    base_used_[base] = true;
    for (const unsigned c : children) used_[base ^ c] = true;
    while (first_free_ < used_.size() && used_[first_free_]) ++first_free_;
    const std::uint32_t offset = index ^ base;
    units_[index] |= offset << 10;
    std::size_t i = lo;
    if (keys_[i].first.size() == depth) {
      units_[index] |= kHasLeaf;
      units_[base] = kIsLeaf | keys_[i].second;
      ++i;
    }
    while (i < hi) {
      const auto c = static_cast<unsigned char>(keys_[i].first[depth]);
      std::size_t end = i;
      while (end < hi && static_cast<unsigned char>(keys_[end].first[depth]) == c) ++end;
      const std::uint32_t child = base ^ c;
      units_[child] = c;
      place(child, i, end, depth + 1);
      i = end;
    }
  }

  // Labels the unused units so that no walk takes them for a child: in each
  // block, a unit's label is its index XOR a base no node of the block uses.
  void finish() {
    for (std::size_t block = 0; block < units_.size(); block += kBlock) {
      unsigned spare = 0;
      while (spare < kBlock && base_used_[block | spare]) ++spare;
      for (std::size_t i = block; i < block + kBlock; ++i)
        if (!used_[i]) units_[i] = static_cast<std::uint32_t>((i ^ spare) & 0xFF);
    }
  }

  const std::vector<std::pair<std::string, std::uint32_t>>& keys_;
  std::vector<std::uint32_t> units_;
  std::vector<bool> used_;
  std::vector<bool> base_used_;
  std::size_t first_free_ = 1;
};

void append_le32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((v >> shift) & 0xFF);
}

std::string utf8_of(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

}  // namespace

std::string build_charsmap(CharsMapRules rules) {
  std::sort(rules.begin(), rules.end());
  std::string replacements;
  std::map<std::string, std::uint32_t> offsets;  // one copy of each replacement
  std::vector<std::pair<std::string, std::uint32_t>> keys;
  keys.reserve(rules.size());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& [key, replacement] = rules[i];
    if (key.empty() || key.find('\0') != std::string::npos)
      throw Error("SentencePiece charsmap: a rule's key is empty or holds a NUL byte");
    if (i > 0 && rules[i - 1].first == key)
      throw Error("SentencePiece charsmap: two rules for one key");
    const auto [it, fresh] =
        offsets.emplace(replacement, static_cast<std::uint32_t>(replacements.size()));
    if (fresh) {
      replacements += replacement;
      replacements += '\0';
    }
    keys.emplace_back(key, it->second);
  }
  std::string blob;
  if (keys.empty()) return blob;
  const DartsBuilder trie(keys);
  append_le32(blob, static_cast<std::uint32_t>(trie.units().size() * 4));
  for (const std::uint32_t unit : trie.units()) append_le32(blob, unit);
  blob += replacements;
  return blob;
}

CharsMapRules normalization_rules(const NormalizerOptions& options) {
  NormalizerOptions per_key = options;
  per_key.keep_whitespace = true;  // spaces are made here and collapsed by SentencePiece
  const Normalizer normalize(per_key);
  const auto rewrite = [&](const std::string& key) {
    std::string value = normalize.normalize(key);
    if (options.keep_whitespace) return value;
    std::string spaced;  // every White_Space character a space, runs as one
    for (std::size_t i = 0; i < value.size(); i += utf8::sequence_length(value, i)) {
      const char32_t cp = utf8::decode_at(value, i);
      if (u_isUWhiteSpace(static_cast<UChar32>(cp))) {
        if (spaced.empty() || spaced.back() != ' ') spaced += ' ';
      } else {
        utf8::append(spaced, cp);
      }
    }
    return spaced;
  };
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  const icu::Normalizer2* nfkd = icu::Normalizer2::getNFKDInstance(status);
  if (U_FAILURE(status)) throw Error("ICU: cannot open the NFD and NFKD normalizers");
  std::map<std::string, std::string> rules;
  const auto add = [&](const std::string& key) {
    if (rules.contains(key)) return;
    std::string value = rewrite(key);
    if (value != key) rules.emplace(key, std::move(value));
  };
  for (UChar32 cp = 1; cp <= 0x10FFFF; ++cp) {
    if (U_IS_SURROGATE(cp)) continue;
    std::string key;
    utf8::append(key, static_cast<char32_t>(cp));
    add(key);
    for (const icu::Normalizer2* decompose : {nfd, nfkd}) {
      icu::UnicodeString decomposition;
      if (decompose->getDecomposition(cp, decomposition) && decomposition.length() > 1) {
        const std::string sequence = utf8_of(decompose->normalize(decomposition, status));
        if (sequence.find('\0') == std::string::npos) add(sequence);
      }
    }
  }
  if (U_FAILURE(status)) throw Error("ICU: decomposing a code point failed");
  return {rules.begin(), rules.end()};
}

}  // namespace tokenlab::detail
