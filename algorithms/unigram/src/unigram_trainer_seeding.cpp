// Unigram seeding: the corpus of distinct words, the required characters and the
// seed pieces from a suffix array.
#include "unigram_trainer_corpus.hpp"

namespace tokenlab::unigram {

namespace detail {

// The sum of count x length over the words (character occurrences), exactly.
Uint128 character_weight(const Corpus& c) {
  Uint128 weight = 0;
  for (std::size_t w = 0; w < c.size(); ++w)
    weight += static_cast<Uint128>(c.count[w]) * c.length(w);
  return weight;
}

Corpus load_corpus(const WordCounts& counts) {
  Corpus c;
  c.text.reserve(counts.size());
  c.count.reserve(counts.size());
  c.cp_begin.reserve(counts.size() + 1);
  for (const auto& e : counts.entries()) {
    if (e.count == 0 || e.word.empty()) continue;
    std::string_view word = e.word;
    if (utf8::find_invalid(word)) {
      c.repaired.push_back(utf8::replace_invalid(word));
      word = c.repaired.back();
    }
    const std::size_t start = c.cps.size();
    for (std::size_t i = 0; i < word.size();) {
      c.cps.push_back(utf8::decode_at(word, i));
      i += std::max<std::size_t>(1, utf8::sequence_length(word, i));
    }
    if (c.cps.size() - start > kMaxWordChars) {
      c.cps.resize(start);
      ++c.skipped;
      continue;
    }
    c.text.push_back(word);
    c.count.push_back(e.count);
    c.cp_begin.push_back(c.cps.size());
    c.total += e.count;
  }
  // Every sum the trainer forms in 64 bits (substring frequencies for seeding,
  // character counts, Viterbi frequencies in pruning) is at most the weighted
  // character count. Counts so large that it reaches 2^62 (only hostile or
  // fabricated counts: 4.6e18 characters) are divided by a power of two, rounding
  // up so that no word drops out; the proportions of such counts are kept.
  if (character_weight(c) >= kMaxCharacterWeight) {
    const std::vector<std::uint64_t> original = c.count;
    for (unsigned shift = 1; shift < 64 && character_weight(c) >= kMaxCharacterWeight; ++shift) {
      c.total = 0;
      for (std::size_t w = 0; w < c.size(); ++w) {
        c.count[w] = std::max<std::uint64_t>(
            1, (original[w] >> shift) + ((original[w] & ((1ull << shift) - 1)) != 0));
        c.total += c.count[w];
      }
      c.scaled_by = shift;
    }
  }
  return c;
}

// The framework's alphabet (the one every algorithm starts from), with each
// character's weighted count in the training corpus, most frequent first.
std::vector<std::pair<std::uint32_t, std::uint64_t>> required_characters(
    const Corpus& c, const WordCounts& counts, const TrainerConfig& config) {
  const Alphabet alphabet =
      select_alphabet(counts, config.character_coverage, config.threads, config.piece_target);
  std::unordered_map<std::uint32_t, std::uint64_t> tally;
  for (const char32_t cp : alphabet.characters) tally.emplace(static_cast<std::uint32_t>(cp), 0);
  for (std::size_t w = 0; w < c.size(); ++w)
    for (std::size_t i = c.cp_begin[w]; i < c.cp_begin[w + 1]; ++i)
      if (auto it = tally.find(c.cps[i]); it != tally.end()) it->second += c.count[w];
  std::vector<std::pair<std::uint32_t, std::uint64_t>> required;
  for (const auto& entry : tally)
    if (entry.second > 0) required.push_back(entry);  // seen only in words left out
  std::sort(required.begin(), required.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return required;
}

std::string to_utf8(const std::uint32_t* cps, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) utf8::append(s, static_cast<char32_t>(cps[i]));
  return s;
}

void to_log_probabilities(std::vector<ScoredPiece>& pieces) {
  double sum = 0.0;
  for (const auto& p : pieces) sum += p.score;
  const double log_sum = std::log(sum);
  for (auto& p : pieces) p.score = std::log(p.score) - log_sum;
}

namespace {

// A suffix of the seed text: its first three code points (21 bits each, 0 after
// the end) as a sort key, where it starts, and its word (for the word's count).
struct Suffix {
  std::uint64_t key;
  std::uint32_t pos;
  std::uint32_t word;
};

// A seed candidate: the substring t[pos, pos + len) scored frequency x length.
struct Candidate {
  std::uint64_t score;
  std::uint32_t pos;
  std::uint32_t len;
};

// The seed text: each word's code points then 0; characters outside the
// required set become 0 too, so no substring spans one.
std::vector<std::uint32_t> seed_text(
    const Corpus& corpus, const std::vector<std::pair<std::uint32_t, std::uint64_t>>& required) {
  std::unordered_set<std::uint32_t> is_required;
  for (const auto& r : required) is_required.insert(r.first);
  if (corpus.cps.size() + corpus.size() >= 0xFFFFFFFFu)
    throw Error(
        "unigram: the distinct words hold too many characters for seeding (over 4 billion)");
  std::vector<std::uint32_t> t;
  t.reserve(corpus.cps.size() + corpus.size());
  for (std::size_t w = 0; w < corpus.size(); ++w) {
    for (std::size_t i = corpus.cp_begin[w]; i < corpus.cp_begin[w + 1]; ++i)
      t.push_back(is_required.count(corpus.cps[i]) != 0 ? corpus.cps[i] : 0);
    t.push_back(0);
  }
  return t;
}

// Every suffix of t that starts with a kept character, sorted by its first
// max_len code points. The order is total (equal truncated suffixes by
// position), so the array does not depend on how the sort was split between
// threads: sorted in parts in parallel, then merged pairwise.
std::vector<Suffix> sorted_suffixes(const Corpus& corpus, const std::vector<std::uint32_t>& t,
                                    std::size_t max_len, unsigned threads) {
  std::vector<Suffix> sfx;
  sfx.reserve(corpus.cps.size());
  const std::size_t key_len = std::min<std::size_t>(3, max_len);
  for (std::size_t w = 0; w < corpus.size(); ++w) {
    const std::size_t begin = corpus.cp_begin[w] + w;
    const std::size_t end = corpus.cp_begin[w + 1] + w;
    for (std::size_t p = begin; p < end; ++p) {
      if (t[p] == 0) continue;
      std::uint64_t key = 0;
      bool live = true;
      for (std::size_t i = 0; i < 3; ++i) {
        std::uint64_t c = 0;
        if (live && i < key_len) {
          c = t[p + i];
          live = c != 0;
        }
        key = (key << 21) | c;
      }
      sfx.push_back({key, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(w)});
    }
  }
  const auto suffix_less = [&](const Suffix& a, const Suffix& b) {
    if (a.key != b.key) return a.key < b.key;
    if (max_len > 3 && (a.key & kMask21) != 0) {
      for (std::size_t i = 3; i < max_len; ++i) {
        const std::uint32_t x = t[a.pos + i];
        const std::uint32_t y = t[b.pos + i];
        if (x != y) return x < y;
        if (x == 0) break;
      }
    }
    return a.pos < b.pos;
  };
  const std::size_t parts = std::max<unsigned>(1, threads);
  std::vector<std::size_t> bounds(parts + 1);
  for (std::size_t i = 0; i <= parts; ++i) bounds[i] = sfx.size() * i / parts;
  const auto at = [&](std::size_t i) { return sfx.begin() + static_cast<std::ptrdiff_t>(i); };
  parallel_for(parts, threads, [&](std::size_t part) {
    std::sort(at(bounds[part]), at(bounds[part + 1]), suffix_less);
  });
  for (std::size_t width = 1; width < parts; width *= 2)
    for (std::size_t i = 0; i + width < parts; i += 2 * width)
      std::inplace_merge(at(bounds[i]), at(bounds[i + width]),
                         at(bounds[std::min(parts, i + 2 * width)]), suffix_less);
  return sfx;
}

// lcp[i]: the common prefix of suffixes i-1 and i, in code points, at most max_len.
std::vector<std::uint8_t> lcp_array(const std::vector<Suffix>& sfx,
                                    const std::vector<std::uint32_t>& t, std::size_t max_len,
                                    unsigned threads) {
  const std::size_t n = sfx.size();
  std::vector<std::uint8_t> lcp(n + 1, 0);
  constexpr std::size_t kLcpBlock = 1 << 16;
  parallel_for((n + kLcpBlock - 1) / kLcpBlock, threads, [&](std::size_t block) {
    const std::size_t from = std::max<std::size_t>(1, block * kLcpBlock);
    const std::size_t to = std::min(n, (block + 1) * kLcpBlock);
    for (std::size_t i = from; i < to; ++i) {
      const std::uint32_t a = sfx[i - 1].pos, b = sfx[i].pos;
      std::size_t l = 0;
      while (l < max_len && t[a + l] == t[b + l] && t[a + l] != 0) ++l;
      lcp[i] = static_cast<std::uint8_t>(l);
    }
  });
  return lcp;
}

// One candidate per node of the truncated suffix tree: its longest substring,
// with the node's weighted frequency. A substring seen once in the whole corpus
// is not a useful seed: such candidates (every long tail of a rare word) would
// crowd out real ones. A boundary marker may only start or end a candidate.
std::vector<Candidate> enumerate_candidates(const Corpus& corpus,
                                            const std::vector<std::uint32_t>& t,
                                            const std::vector<Suffix>& sfx,
                                            const std::vector<std::uint8_t>& lcp,
                                            std::size_t max_len, std::uint64_t min_frequency) {
  const std::size_t n = sfx.size();
  std::vector<std::uint64_t> weight(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) weight[i + 1] = weight[i] + corpus.count[sfx[i].word];
  std::vector<Candidate> candidates;
  const auto consider = [&](std::uint32_t pos, std::size_t len, std::uint64_t freq) {
    if (len < 2 || freq < min_frequency) return;
    int markers = 0;
    for (std::size_t i = 0; i < len; ++i) {
      if (t[pos + i] != kBoundaryMarkerCodePoint) continue;
      if ((i != 0 && i != len - 1) || ++markers > 1) return;
    }
    std::uint64_t score = 0;
    if (__builtin_mul_overflow(freq, static_cast<std::uint64_t>(len), &score))
      score = std::numeric_limits<std::uint64_t>::max();
    candidates.push_back({score, pos, static_cast<std::uint32_t>(len)});
  };
  // Internal nodes: bottom-up traversal of the lcp-intervals.
  struct Open {
    std::size_t depth;
    std::size_t lb;
  };
  std::vector<Open> stack{{0, 0}};
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t h = i < n ? lcp[i] : 0;
    std::size_t lb = i - 1;
    while (h < stack.back().depth) {
      const Open top = stack.back();
      stack.pop_back();
      consider(sfx[top.lb].pos, top.depth, weight[i] - weight[top.lb]);
      lb = top.lb;
    }
    if (h > stack.back().depth) stack.push_back({h, lb});
  }
  // Leaves: substrings that occur at one position only, but still in the
  // corpus more than once when their word's count is above 1.
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t p = sfx[i].pos;
    std::size_t full = 0;
    while (full < max_len && t[p + full] != 0) ++full;
    if (full > std::max<std::size_t>(lcp[i], lcp[i + 1]))
      consider(p, full, corpus.count[sfx[i].word]);
  }
  return candidates;
}

// The want best candidates, best first: by score, then by text.
void keep_best(std::vector<Candidate>& candidates, const std::vector<std::uint32_t>& t,
               std::size_t want) {
  const auto better = [&](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return std::lexicographical_compare(t.begin() + a.pos, t.begin() + a.pos + a.len,
                                        t.begin() + b.pos, t.begin() + b.pos + b.len);
  };
  if (candidates.size() > want) {
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(want),
                     candidates.end(), better);
    candidates.resize(want);
  }
  std::sort(candidates.begin(), candidates.end(), better);
}

}  // namespace

// Seed substrings from a suffix array of the distinct words truncated to
// max_piece_length code points. Every distinct substring s of the text belongs to
// exactly one node of the (truncated) suffix tree: an lcp-interval when it occurs
// at two or more positions, a leaf otherwise. All substrings of one node occur at
// the same positions, so the longest has the best frequency x length; it is the
// node's only candidate (as in SentencePiece, which enumerates the same nodes with
// an enhanced suffix array). Frequencies are weighted by word counts.
SeedVocabulary seed_from_corpus(
    const Corpus& corpus, const std::vector<std::pair<std::uint32_t, std::uint64_t>>& required,
    const TrainerConfig& config) {
  SeedVocabulary seeds;
  const std::unordered_set<std::string> reserved(config.reserved.begin(), config.reserved.end());
  for (const auto& [cp, count] : required) {
    std::string s;
    utf8::append(s, static_cast<char32_t>(cp));
    if (reserved.count(s) != 0) continue;
    seeds.pieces.push_back({std::move(s), static_cast<double>(count)});
  }
  seeds.required_characters = seeds.pieces.size();

  const std::size_t max_len = std::min<std::size_t>(config.max_piece_length, 255);
  const std::size_t want =
      config.seed_size > seeds.pieces.size() ? config.seed_size - seeds.pieces.size() : 0;
  if (want > 0 && max_len >= 2 && corpus.size() > 0) {
    const std::vector<std::uint32_t> t = seed_text(corpus, required);
    const std::vector<Suffix> sfx = sorted_suffixes(corpus, t, max_len, config.threads);
    const std::vector<std::uint8_t> lcp = lcp_array(sfx, t, max_len, config.threads);
    std::vector<Candidate> candidates = enumerate_candidates(
        corpus, t, sfx, lcp, max_len, std::max<std::uint64_t>(2, config.min_frequency));
    keep_best(candidates, t, want);
    for (const auto& c : candidates) {
      std::string s = to_utf8(t.data() + c.pos, c.len);
      if (reserved.count(s) != 0) continue;
      seeds.pieces.push_back({std::move(s), static_cast<double>(c.score)});
    }
  }
  if (!seeds.pieces.empty()) to_log_probabilities(seeds.pieces);
  return seeds;
}

}  // namespace detail

using namespace detail;

SeedVocabulary make_seed_pieces(const WordCounts& counts, const TrainerConfig& config) {
  const Corpus corpus = load_corpus(counts);
  const auto required = required_characters(corpus, counts, config);
  return seed_from_corpus(corpus, required, config);
}

}  // namespace tokenlab::unigram
