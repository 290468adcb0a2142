#include "tokenlab/inference_methods.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <queue>
#include <unordered_set>

#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

constexpr std::array<std::pair<InferenceMethod, const char*>, 7> kNames = {{
    {InferenceMethod::own, "own"},
    {InferenceMethod::longest_prefix, "longest-prefix"},
    {InferenceMethod::longest_suffix, "longest-suffix"},
    {InferenceMethod::longest_token, "longest-token"},
    {InferenceMethod::fewest_tokens, "fewest-tokens"},
    {InferenceMethod::merges, "merges"},
    {InferenceMethod::likelihood, "likelihood"},
}};

std::uint64_t pair_key(TokenId left, TokenId right) {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}

// The byte length of the character at pos; 1 inside a character (a byte-level
// piece may end there) or on a byte that starts none.
std::size_t character_length(std::string_view unit, std::size_t pos) {
  const std::size_t n = utf8::sequence_length(unit, pos);
  return n == 0 ? 1 : std::min(n, unit.size() - pos);
}

// Whether id is taken out of the vocabulary.
bool is_off(std::span<const std::uint8_t> off, TokenId id) {
  return id < off.size() && off[id] != 0;
}

}  // namespace

const char* inference_method_name(InferenceMethod method) noexcept {
  for (const auto& [m, name] : kNames)
    if (m == method) return name;
  return "?";
}

std::optional<InferenceMethod> parse_inference_method(std::string_view name) noexcept {
  for (const auto& [m, n] : kNames)
    if (name == n) return m;
  return std::nullopt;
}

std::vector<InferenceMethod> parse_inference_methods(std::string_view list) {
  std::vector<InferenceMethod> methods;
  const auto add = [&](InferenceMethod m) {
    if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
  };
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    if (name == "all") {
      for (const auto& entry : kNames) add(entry.first);
      continue;
    }
    const auto method = parse_inference_method(name);
    if (!method) {
      std::string valid;
      for (const auto& entry : kNames)
        valid += std::string(valid.empty() ? "" : ", ") + entry.second;
      throw Error("unknown inference method '" + std::string(name) + "' (valid: " + valid +
                  ", or all)");
    }
    add(*method);
  }
  return methods;
}

InferenceEngine::InferenceEngine(InferenceVocabulary vocabulary)
    : vocabulary_(std::move(vocabulary)) {
  const std::string& prefix = vocabulary_.continuation_prefix;
  const std::unordered_set<TokenId> bytes(vocabulary_.byte_pieces.begin(),
                                          vocabulary_.byte_pieces.end());
  // The first id of a spelling wins; byte pieces stand for bytes, not for the
  // text "<0x41>", so they never match text.
  std::unordered_map<std::string_view, TokenId> initial;
  std::unordered_map<std::string_view, TokenId> continuation;
  for (TokenId id = 0; id < vocabulary_.pieces.size(); ++id) {
    const std::string_view piece = vocabulary_.pieces[id];
    if (piece.empty() || bytes.count(id) != 0) continue;
    if (prefix.empty()) {
      initial.emplace(piece, id);
      continuation.emplace(piece, id);
    } else if (piece.starts_with(prefix)) {
      if (piece.size() > prefix.size()) continuation.emplace(piece.substr(prefix.size()), id);
    } else {
      initial.emplace(piece, id);
    }
  }
  const auto trie = [](const std::unordered_map<std::string_view, TokenId>& keys) {
    std::vector<std::pair<std::string_view, std::uint32_t>> entries(keys.begin(), keys.end());
    return PieceTrie(std::move(entries));
  };
  initial_ = trie(initial);
  continuation_ = trie(continuation);

  if (!vocabulary_.merges.empty()) {
    std::unordered_map<std::string, TokenId> by_text;
    for (TokenId id = 0; id < vocabulary_.pieces.size(); ++id)
      if (!vocabulary_.pieces[id].empty()) by_text.emplace(vocabulary_.pieces[id], id);
    for (std::uint32_t rank = 0; rank < vocabulary_.merges.size(); ++rank) {
      const auto [left, right] = vocabulary_.merges[rank];
      if (left >= vocabulary_.pieces.size() || right >= vocabulary_.pieces.size()) continue;
      std::string_view tail = vocabulary_.pieces[right];
      if (!prefix.empty() && tail.starts_with(prefix)) tail.remove_prefix(prefix.size());
      const auto merged = by_text.find(vocabulary_.pieces[left] + std::string(tail));
      const std::uint32_t r =
          rank < vocabulary_.merge_ranks.size() ? vocabulary_.merge_ranks[rank] : rank;
      if (merged != by_text.end())
        merge_ranks_.emplace(pair_key(left, right), std::make_pair(r, merged->second));
    }
  }
  // A fallback edge costs more than any real piece, as SentencePiece's unknown
  // penalty (the lowest score minus 10) does.
  if (!vocabulary_.scores.empty()) {
    double lowest = 0.0;
    for (const double s : vocabulary_.scores) lowest = std::min(lowest, s);
    unknown_score_ = lowest - 10.0;
  }
}

bool InferenceEngine::supports(InferenceMethod method) const noexcept {
  switch (method) {
    case InferenceMethod::own:
      return false;
    case InferenceMethod::merges:
      return !merge_ranks_.empty();
    case InferenceMethod::likelihood:
      return vocabulary_.scores.size() == vocabulary_.pieces.size() && !vocabulary_.scores.empty();
    case InferenceMethod::longest_prefix:
    case InferenceMethod::longest_suffix:
    case InferenceMethod::longest_token:
    case InferenceMethod::fewest_tokens:
      return true;
  }
  return false;
}

std::size_t InferenceEngine::piece_length(TokenId id, std::size_t start) const noexcept {
  if (vocabulary_.unknown && id == *vocabulary_.unknown) return 0;
  if (std::find(vocabulary_.byte_pieces.begin(), vocabulary_.byte_pieces.end(), id) !=
      vocabulary_.byte_pieces.end())
    return 1;
  if (id >= vocabulary_.pieces.size()) return 0;
  std::string_view piece = vocabulary_.pieces[id];
  const std::string& prefix = vocabulary_.continuation_prefix;
  if (start > 0 && !prefix.empty() && piece.starts_with(prefix)) piece.remove_prefix(prefix.size());
  return piece.size();
}

std::vector<std::vector<InferenceEngine::Edge>> InferenceEngine::lattice(
    std::string_view unit, std::span<const std::uint8_t> off) const {
  std::vector<std::vector<Edge>> edges(unit.size());
  for (std::size_t pos = 0; pos < unit.size(); ++pos) {
    const PieceTrie& trie = pos == 0 ? initial_ : continuation_;
    trie.common_prefixes(unit, pos, [&](std::size_t length, std::uint32_t id) {
      if (!is_off(off, id))
        edges[pos].push_back(Edge{static_cast<std::uint32_t>(pos + length), id});
    });
  }
  return edges;
}

void InferenceEngine::fall_back(std::string_view unit, std::size_t pos, std::vector<TokenId>& out,
                                std::vector<std::uint32_t>& ends) const {
  const std::size_t length = character_length(unit, pos);
  if (vocabulary_.byte_pieces.size() == 256) {
    for (std::size_t i = pos; i < pos + length; ++i) {
      out.push_back(vocabulary_.byte_pieces[static_cast<unsigned char>(unit[i])]);
      ends.push_back(static_cast<std::uint32_t>(i + 1));
    }
    return;
  }
  if (!vocabulary_.unknown)
    throw Error("inference: no piece covers '" + std::string(unit.substr(pos, length)) + "' in '" +
                std::string(unit) +
                "' and the vocabulary has neither byte pieces nor an unknown token");
  out.push_back(*vocabulary_.unknown);
  ends.push_back(static_cast<std::uint32_t>(pos + length));
}

void InferenceEngine::encode(InferenceMethod method, std::string_view unit,
                             std::vector<TokenId>& out, std::vector<std::uint32_t>* ends) const {
  if (!supports(method))
    throw Error(std::string("inference method ") + inference_method_name(method) +
                " is not available for this vocabulary");
  std::vector<std::uint32_t> local;
  std::vector<std::uint32_t>& e = ends ? *ends : local;
  const std::size_t first = out.size();
  const std::size_t first_end = e.size();
  encode_unit(method, unit, {}, out, e, nullptr);
  if (vocabulary_.whole_word_unknown && vocabulary_.unknown &&
      std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                *vocabulary_.unknown) != out.end()) {
    out.resize(first);
    e.resize(first_end);
    out.push_back(*vocabulary_.unknown);
    e.push_back(static_cast<std::uint32_t>(unit.size()));
  }
}

void InferenceEngine::encode_without(InferenceMethod method, std::string_view unit,
                                     std::span<const std::uint8_t> disabled,
                                     std::vector<TokenId>& out, std::vector<TokenId>* made) const {
  if (!supports(method))
    throw Error(std::string("inference method ") + inference_method_name(method) +
                " is not available for this vocabulary");
  std::vector<std::uint32_t> ends;
  const std::size_t first = out.size();
  encode_unit(method, unit, disabled, out, ends, made);
  if (vocabulary_.whole_word_unknown && vocabulary_.unknown &&
      std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                *vocabulary_.unknown) != out.end()) {
    out.resize(first);
    out.push_back(*vocabulary_.unknown);
  }
  if (made && method != InferenceMethod::merges)
    made->insert(made->end(), out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

void InferenceEngine::encode_unit(InferenceMethod method, std::string_view unit,
                                  std::span<const std::uint8_t> off, std::vector<TokenId>& out,
                                  std::vector<std::uint32_t>& e, std::vector<TokenId>* made) const {
  switch (method) {
    case InferenceMethod::longest_prefix:
    case InferenceMethod::longest_suffix:
      encode_greedy(method, unit, lattice(unit, off), out, e);
      return;
    case InferenceMethod::longest_token:
      encode_longest_token(unit, lattice(unit, off), 0, unit.size(), out, e);
      return;
    case InferenceMethod::fewest_tokens:
    case InferenceMethod::likelihood:
      encode_best_path(method, unit, lattice(unit, off), out, e);
      return;
    case InferenceMethod::merges:
      encode_merges(unit, off, out, e, made);
      return;
    case InferenceMethod::own:
      return;
  }
}

void InferenceEngine::encode_greedy(InferenceMethod method, std::string_view unit,
                                    const std::vector<std::vector<Edge>>& edges,
                                    std::vector<TokenId>& out,
                                    std::vector<std::uint32_t>& ends) const {
  if (method == InferenceMethod::longest_prefix) {
    for (std::size_t pos = 0; pos < unit.size();) {
      if (edges[pos].empty()) {
        fall_back(unit, pos, out, ends);
      } else {
        out.push_back(edges[pos].back().id);
        ends.push_back(edges[pos].back().end);
      }
      pos = ends.back();
    }
    return;
  }
  // Longest suffix: for each end, the edge that starts earliest.
  std::vector<std::pair<std::uint32_t, TokenId>> earliest(unit.size() + 1, {0xFFFFFFFFu, 0});
  for (std::size_t pos = unit.size(); pos-- > 0;)
    for (const Edge& edge : edges[pos])
      earliest[edge.end] = {static_cast<std::uint32_t>(pos), edge.id};
  std::vector<std::pair<std::vector<TokenId>, std::vector<std::uint32_t>>> reversed;
  for (std::size_t end = unit.size(); end > 0;) {
    std::vector<TokenId> ids;
    std::vector<std::uint32_t> token_ends;
    std::size_t start = earliest[end].first;
    if (start == 0xFFFFFFFFu) {
      start = end - 1;  // back to the start of the character that ends here
      while (start > 0 && (static_cast<unsigned char>(unit[start]) & 0xC0) == 0x80 &&
             end - start < 4)
        --start;
      fall_back(unit, start, ids, token_ends);
      if (token_ends.back() != end) {  // not a whole character: one byte
        ids.clear();
        token_ends.clear();
        start = end - 1;
        fall_back(unit.substr(0, end), start, ids, token_ends);
      }
    } else {
      ids.push_back(earliest[end].second);
      token_ends.push_back(static_cast<std::uint32_t>(end));
    }
    reversed.emplace_back(std::move(ids), std::move(token_ends));
    end = start;
  }
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    out.insert(out.end(), it->first.begin(), it->first.end());
    ends.insert(ends.end(), it->second.begin(), it->second.end());
  }
}

void InferenceEngine::encode_longest_token(std::string_view unit,
                                           const std::vector<std::vector<Edge>>& edges,
                                           std::size_t begin, std::size_t end,
                                           std::vector<TokenId>& out,
                                           std::vector<std::uint32_t>& ends) const {
  while (begin < end) {
    // The longest piece inside [begin, end); ties go to the leftmost.
    std::size_t best_start = end;
    Edge best{0, 0};
    for (std::size_t pos = begin; pos < end; ++pos)
      for (const Edge& edge : edges[pos])
        if (edge.end <= end && (best_start == end || edge.end - pos > best.end - best_start)) {
          best_start = pos;
          best = edge;
        }
    if (best_start == end) {
      fall_back(unit.substr(0, end), begin, out, ends);
      begin = ends.back();
      continue;
    }
    encode_longest_token(unit, edges, begin, best_start, out, ends);
    out.push_back(best.id);
    ends.push_back(best.end);
    begin = best.end;  // the right part, iteratively
  }
}

void InferenceEngine::encode_best_path(InferenceMethod method, std::string_view unit,
                                       const std::vector<std::vector<Edge>>& edges,
                                       std::vector<TokenId>& out,
                                       std::vector<std::uint32_t>& ends) const {
  const std::size_t n = unit.size();
  const bool likelihood = method == InferenceMethod::likelihood;
  // Backward: best[pos] is the best cost of segmenting unit[pos..n). Edges are
  // tried longest first and only a strictly better one replaces the best, so
  // ties go to the longest first token.
  constexpr double kWorst = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, kWorst);
  std::vector<std::uint32_t> next(n + 1, 0);
  std::vector<TokenId> choice(n + 1, 0);
  best[n] = 0.0;
  for (std::size_t pos = n; pos-- > 0;) {
    for (auto it = edges[pos].rbegin(); it != edges[pos].rend(); ++it) {
      const double cost = (likelihood ? -vocabulary_.scores[it->id] : 1.0) + best[it->end];
      if (cost < best[pos]) {
        best[pos] = cost;
        next[pos] = it->end;
        choice[pos] = it->id;
      }
    }
    if (edges[pos].empty()) {  // the fallback: marked by next == pos
      const std::size_t length = character_length(unit, pos);
      const bool bytes = vocabulary_.byte_pieces.size() == 256;
      const double per_token = likelihood ? -unknown_score_ : 1.0;
      best[pos] = per_token * static_cast<double>(bytes ? length : 1) + best[pos + length];
      next[pos] = static_cast<std::uint32_t>(pos);
    }
  }
  for (std::size_t pos = 0; pos < n;) {
    if (next[pos] == pos) {
      fall_back(unit, pos, out, ends);
    } else {
      out.push_back(choice[pos]);
      ends.push_back(next[pos]);
    }
    pos = ends.back();
  }
}

void InferenceEngine::first_symbols(std::string_view unit, std::span<const std::uint8_t> off,
                                    std::vector<TokenId>& symbols,
                                    std::vector<std::uint32_t>& ends) const {
  // Each character's piece, else its bytes' pieces (byte-level vocabularies have
  // them as pieces), else the fallback.
  for (std::size_t pos = 0; pos < unit.size();) {
    const std::size_t length = vocabulary_.byte_units ? 1 : character_length(unit, pos);
    const PieceTrie& trie = pos == 0 ? initial_ : continuation_;
    const std::uint32_t id = trie.find(unit.substr(pos, length));
    if (id != PieceTrie::kNone && !is_off(off, id)) {
      symbols.push_back(id);
      ends.push_back(static_cast<std::uint32_t>(pos + length));
    } else {
      for (std::size_t i = pos; i < pos + length; ++i) {
        const std::uint32_t byte = (i == 0 ? initial_ : continuation_).find(unit.substr(i, 1));
        if (byte != PieceTrie::kNone && !is_off(off, byte)) {
          symbols.push_back(byte);
          ends.push_back(static_cast<std::uint32_t>(i + 1));
        } else {
          fall_back(unit, i, symbols, ends);
          if (ends.back() > i + 1) break;  // the whole character fell back
        }
      }
    }
    pos += length;
  }
}

void InferenceEngine::encode_merges(std::string_view unit, std::span<const std::uint8_t> off,
                                    std::vector<TokenId>& out, std::vector<std::uint32_t>& ends,
                                    std::vector<TokenId>* made) const {
  if (vocabulary_.whole_unit_first && !unit.empty()) {
    const std::uint32_t id = initial_.find(unit);
    if (id != PieceTrie::kNone && !is_off(off, id)) {
      out.push_back(id);
      ends.push_back(static_cast<std::uint32_t>(unit.size()));
      if (made) made->push_back(id);
      return;
    }
  }
  std::vector<TokenId> symbols;
  std::vector<std::uint32_t> symbol_ends;
  first_symbols(unit, off, symbols, symbol_ends);
  if (made) made->insert(made->end(), symbols.begin(), symbols.end());
  // The lowest-ranked adjacent pair, leftmost on ties, until none applies: a heap
  // of candidates over a linked list, stale ones skipped when popped.
  const std::size_t n = symbols.size();
  std::vector<std::int32_t> next(n), prev(n);
  std::vector<std::uint8_t> alive(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? static_cast<std::int32_t>(i + 1) : -1;
    prev[i] = static_cast<std::int32_t>(i) - 1;
  }
  struct Candidate {
    std::uint32_t rank;
    std::uint32_t pos;
    TokenId merged;
    bool operator<(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  const auto rank_of = [&](std::size_t left,
                           std::size_t right) -> std::pair<std::uint32_t, TokenId> {
    const auto it = merge_ranks_.find(pair_key(symbols[left], symbols[right]));
    if (it == merge_ranks_.end() || is_off(off, it->second.second)) return {0xFFFFFFFFu, 0};
    return it->second;
  };
  std::priority_queue<Candidate> queue;
  const auto push = [&](std::int32_t left) {
    if (left < 0 || next[static_cast<std::size_t>(left)] < 0) return;
    const auto l = static_cast<std::size_t>(left);
    const auto [rank, merged] = rank_of(l, static_cast<std::size_t>(next[l]));
    if (rank != 0xFFFFFFFFu) queue.push({rank, static_cast<std::uint32_t>(l), merged});
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(static_cast<std::int32_t>(i));
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    const std::size_t l = top.pos;
    if (!alive[l] || next[l] < 0) continue;
    const auto r = static_cast<std::size_t>(next[l]);
    const auto now = rank_of(l, r);
    if (now.first != top.rank || now.second != top.merged) continue;  // stale
    symbols[l] = top.merged;
    symbol_ends[l] = symbol_ends[r];
    alive[r] = 0;
    next[l] = next[r];
    if (next[r] >= 0) prev[static_cast<std::size_t>(next[r])] = static_cast<std::int32_t>(l);
    if (made) made->push_back(top.merged);
    push(prev[l]);
    push(static_cast<std::int32_t>(l));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!alive[i]) continue;
    out.push_back(symbols[i]);
    ends.push_back(symbol_ends[i]);
  }
}

}  // namespace tokenlab
