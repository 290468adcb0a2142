#include "tokenlab/pretrained/added_tokens.hpp"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstring>

#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

// Rust regex's Unicode classes (regex_syntax::is_word_character, Unicode 16.0),
// which HF uses for these decisions.
bool is_word_character(char32_t c) {
  return is_alphabetic(c, kHfUnicode) ||
         (general_category_mask(c, kHfUnicode) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) ||
         u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_JOIN_CONTROL);
}

bool is_space(char32_t c) {
  return u_isUWhiteSpace(static_cast<UChar32>(c));
}

char32_t last_code_point(std::string_view s, std::size_t end, std::size_t& start) {
  start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  return utf8::decode_at(s, start);
}

}  // namespace

std::uint32_t AddedTokens::Trie::child(std::uint32_t node, char byte) {
  const auto fresh = static_cast<std::uint32_t>(tokens.size());
  bool inserted = false;
  const std::uint32_t found =
      children.insert(pack_pair(node, static_cast<unsigned char>(byte)), fresh, inserted);
  if (inserted) tokens.push_back(-1);
  return found;
}

void AddedTokens::Trie::end_key(std::string_view key, std::uint32_t node, std::int32_t token) {
  const auto first = static_cast<unsigned char>(key.front());
  if (!first_byte[first]) {
    first_byte[first] = true;
    ++first_bytes;
    some_first_byte = first;
  }
  // The first token with a given content wins, as HF's map keeps one id per content.
  if (tokens[node] < 0) tokens[node] = token;
}

void AddedTokens::Trie::insert(std::string_view key, std::int32_t token) {
  if (tokens.empty()) tokens.push_back(-1);  // the root
  std::uint32_t node = 0;
  for (const char ch : key) node = child(node, ch);
  end_key(key, node, token);
}

std::pair<std::size_t, std::int32_t> AddedTokens::Trie::longest(std::string_view text,
                                                                std::size_t pos) const {
  std::pair<std::size_t, std::int32_t> best{0, -1};
  std::uint32_t node = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const std::uint32_t* child =
        children.find(pack_pair(node, static_cast<unsigned char>(text[i])));
    if (child == nullptr) break;
    node = *child;
    if (tokens[node] >= 0) best = {i + 1 - pos, tokens[node]};
  }
  return best;
}

void AddedTokens::Trie::insert_all(std::vector<std::pair<std::string_view, std::int32_t>> keys) {
  // In byte order, each key shares its first bytes with the one before (a
  // prefix already in the trie, whose nodes are on the path kept below) and
  // only its other bytes are inserted: Gemma 3's 6,415 tokens are 76,792
  // bytes but 12,976 nodes (6,242 of them start "<unused"). A stable sort
  // keeps equal keys in the order they came, so the first still wins.
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // How many first bytes of each key the key before shares.
  std::vector<std::size_t> shared(keys.size(), 0);
  std::size_t fresh_edges = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string_view key = keys[k].first;
    if (k > 0) {
      const std::string_view before = keys[k - 1].first;
      shared[k] = static_cast<std::size_t>(
          std::mismatch(key.begin(), key.end(), before.begin(), before.end()).first - key.begin());
    }
    fresh_edges += key.size() - shared[k];
  }
  if (tokens.empty()) tokens.push_back(-1);  // the root
  children.reserve(children.size() + fresh_edges);
  tokens.reserve(tokens.size() + fresh_edges);
  std::vector<std::uint32_t> path{0};  // path[d]: the node d bytes into the key before
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto& [key, token] = keys[k];
    path.resize(shared[k] + 1);
    for (std::size_t d = shared[k]; d < key.size(); ++d) path.push_back(child(path.back(), key[d]));
    end_key(key, path.back(), token);
  }
}

void AddedTokens::add_all(std::vector<AddedToken> tokens) {
  tokens_.reserve(tokens_.size() + tokens.size());
  by_id_.reserve(by_id_.size() + tokens.size());
  std::vector<std::pair<std::string_view, std::int32_t>> raw_keys;
  std::vector<std::pair<std::string_view, std::int32_t>> normalized_keys;
  for (AddedToken& token : tokens) {
    if (token.content.empty()) continue;
    const auto index = static_cast<std::int32_t>(tokens_.size());
    remember(std::move(token));
    // Views of the token as kept: tokens_ was sized for all of them above.
    const AddedToken& kept = tokens_.back();
    if (const std::string_view key = key_of(kept); !key.empty())
      (kept.normalized ? normalized_keys : raw_keys).emplace_back(key, index);
  }
  if (!raw_keys.empty()) raw_.insert_all(std::move(raw_keys));
  if (!normalized_keys.empty()) normalized_.insert_all(std::move(normalized_keys));
}

void AddedTokens::remember(AddedToken token) {
  by_id_.emplace(token.id, tokens_.size());  // the first token with an id wins
  id_limit_ = std::max<std::size_t>(id_limit_, std::size_t{token.id} + 1);
  tokens_.push_back(std::move(token));
}

std::string_view AddedTokens::key_of(const AddedToken& token) noexcept {
  if (token.normalized && !token.normalized_content.empty()) return token.normalized_content;
  return token.content;
}

void AddedTokens::add(AddedToken token) {
  if (token.content.empty()) return;  // HF ignores empty added tokens
  const auto index = static_cast<std::int32_t>(tokens_.size());
  (token.normalized ? normalized_ : raw_).insert(key_of(token), index);
  remember(std::move(token));
}

const AddedToken* AddedTokens::find(TokenId id) const noexcept {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

void AddedTokens::split(std::string_view text, bool normalized, const SegmentFn& fn) const {
  const Trie& trie = normalized ? normalized_ : raw_;
  if (trie.empty() || text.empty()) {
    fn(text, std::nullopt);
    return;
  }
  std::size_t emitted = 0;  // end of what has been passed to fn
  std::size_t pos = 0;
  // Where every added token starts with the same byte (tiktoken's and most
  // chat models' specials start with '<'), memchr finds the candidates: the
  // loop below took 7 instructions a byte of text, 3% of encoding English.
  const int only_first = trie.first_bytes == 1 ? trie.some_first_byte : -1;
  while (pos < text.size()) {
    if (only_first >= 0) {
      const void* next = std::memchr(text.data() + pos, only_first, text.size() - pos);
      if (next == nullptr) break;
      pos = static_cast<std::size_t>(static_cast<const char*>(next) - text.data());
    } else if (!trie.first_byte[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    const auto [length, index] = trie.longest(text, pos);
    if (index < 0) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens_[static_cast<std::size_t>(index)];
    std::size_t start = pos;
    std::size_t stop = pos + length;
    pos = stop;  // non-overlapping: a discarded match still consumes its span
    if (token.single_word) {
      bool word_before = false;
      if (start > 0) {
        std::size_t s = 0;
        word_before = is_word_character(last_code_point(text, start, s));
      }
      const bool word_after = stop < text.size() && is_word_character(utf8::decode_at(text, stop));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      std::size_t new_start = start;
      while (new_start > 0) {
        std::size_t s = 0;
        if (!is_space(last_code_point(text, new_start, s))) break;
        new_start = s;
      }
      start = std::max(new_start, emitted);
    }
    if (token.rstrip) {
      while (stop < text.size()) {
        const char32_t c = utf8::decode_at(text, stop);
        if (!is_space(c)) break;
        stop += utf8::sequence_length(text, stop);
      }
      // HF's matcher resumes at the match's end, not after the swallowed spaces.
    }
    if (emitted < start) fn(text.substr(emitted, start - emitted), std::nullopt);
    fn(text.substr(start, stop - start), token.id);
    emitted = std::max(emitted, stop);
  }
  if (emitted != text.size()) fn(text.substr(emitted), std::nullopt);
}

}  // namespace tokenlab
