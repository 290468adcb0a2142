// The fast likelihood trainer.
//
// State (all flat arrays, indexed by small integers):
//  * units: id -> text, continuation flag, weighted count;
//  * words: one uint32 symbol array per distinct word, rewritten in place;
//  * pairs: id -> (left, right, count, score, heap slot); the id is also the
//    tie-break rank, because ids are handed out in first-appearance order;
//  * pair -> words that held it when it was created (may be stale, never missing);
//  * unit -> pairs it takes part in, because a merge of (a, b) lowers count(a)
//    and count(b) and so raises the score of every pair that touches a or b;
//  * an indexed max-heap of eligible pairs by (score, -rank). Scores go up and
//    down as unit counts change, so the heap updates entries in place instead of
//    relying on lazy invalidation (which only works when keys never increase).

#include "tokenlab/wordpiece/trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pair_map.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::wordpiece {

std::string format_score(double score) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", score);
  return buffer;
}

namespace {

// Chunks have a fixed size, never derived from the thread count, so per-chunk
// results reduced in chunk order are the same for any number of threads.
constexpr std::size_t kChunkWords = 4096;
constexpr std::uint32_t kNotInHeap = 0xFFFFFFFFu;
constexpr std::uint32_t kDroppedChar = 0xFFFFFFFFu;

std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) noexcept {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}

// A character as a 32-bit key: its code point, or, for a byte that does not
// start well-formed UTF-8, a value above the code point range.
std::uint32_t char_key(std::string_view word, std::size_t pos, std::size_t& length) noexcept {
  length = utf8::sequence_length(word, pos);
  if (length == 0) {
    length = 1;
    return 0x110000u + static_cast<unsigned char>(word[pos]);
  }
  return static_cast<std::uint32_t>(utf8::decode_at(word, pos));
}

std::size_t code_points(std::string_view word) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < word.size();) {
    std::size_t length = 0;
    char_key(word, i, length);
    i += length;
    ++n;
  }
  return n;
}

void char_keys(std::string_view word, std::vector<std::uint32_t>& keys) {
  keys.clear();
  for (std::size_t i = 0; i < word.size();) {
    std::size_t length = 0;
    keys.push_back(char_key(word, i, length));
    i += length;
  }
}

// Where the boundary marker is glued to its neighbour in the initial
// segmentation (see trainer.hpp). Keys of glued units: kind << 32 | character.
enum GlueKind : std::uint64_t {
  kGluePrefix = 1,
  kGlueSuffixContinuation = 2,
  kGlueSuffixInitial = 3
};

struct Glue {
  bool prefix = false;  // units 0 and 1 form one unit
  bool suffix = false;  // units n-2 and n-1 form one unit
};

Glue glue_of(const std::vector<std::uint32_t>& keys) noexcept {
  const std::size_t n = keys.size();
  Glue g;
  g.prefix = n >= 2 && keys[0] == kBoundaryMarkerCodePoint;
  // The character before a suffix marker must not already be glued to a prefix marker.
  g.suffix = n >= 2 && keys[n - 1] == kBoundaryMarkerCodePoint && !(g.prefix && n < 4);
  return g;
}

std::uint64_t prefix_glue_key(const std::vector<std::uint32_t>& keys) noexcept {
  return (kGluePrefix << 32) | keys[1];
}

std::uint64_t suffix_glue_key(const std::vector<std::uint32_t>& keys) noexcept {
  const std::size_t j = keys.size() - 2;
  return ((j == 0 ? kGlueSuffixInitial : kGlueSuffixContinuation) << 32) | keys[j];
}

struct PairInfo {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
  std::int64_t count = 0;
  double score = 0.0;
  std::uint32_t heap_pos = kNotInHeap;
  std::uint32_t rescored_at = 0;  // merge step that last rescored it
  std::uint8_t listed = 0;        // bit 0: in unit_pairs[left]; bit 1: in unit_pairs[right]
  bool forbidden = false;         // merging would make a piece that must not exist
};

class Trainer {
 public:
  Trainer(const WordCounts& counts, const TrainerConfig& config, TrainingObserver* observer)
      : counts_(counts), config_(config), observer_(observer) {
    for (const auto& s : config_.special_tokens) {
      specials_.insert(s);
      max_special_size_ = std::max(max_special_size_, s.size());
    }
    threshold_ = static_cast<std::int64_t>(std::max<std::uint64_t>(config_.min_frequency, 1));
  }

  TrainerResult run() {
    build_alphabet();
    build_words();
    count_pairs();
    build_heap();
    merge_loop();
    return std::move(result_);
  }

 private:
  // ---- initial segmentation ------------------------------------------------

  struct CharStat {
    std::uint32_t key = 0;
    std::uint64_t count = 0;
    std::uint64_t initial = 0;  // occurrences as a word's first character
  };

  [[nodiscard]] bool word_usable_length(std::string_view word) const noexcept {
    return !word.empty() && code_points(word) <= config_.max_input_chars_per_word;
  }

  void build_alphabet() {
    const auto& entries = counts_.entries();
    const std::size_t chunks = (entries.size() + kChunkWords - 1) / kChunkWords;
    struct Local {
      std::vector<CharStat> chars;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> glued;  // glue key, count
    };
    std::vector<Local> local(chunks);
    parallel_for(chunks, threads(), [&](std::size_t c) {
      PairIndex index(256);
      PairIndex glued_index(256);
      auto& stats = local[c].chars;
      auto& glued = local[c].glued;
      std::vector<std::uint32_t> keys;
      const auto count_glued = [&](std::uint64_t key, std::uint64_t count) {
        bool inserted = false;
        const std::uint32_t at =
            glued_index.insert(key, static_cast<std::uint32_t>(glued.size()), inserted);
        if (inserted) glued.emplace_back(key, 0);
        glued[at].second += count;
      };
      const std::size_t end = std::min(entries.size(), (c + 1) * kChunkWords);
      for (std::size_t w = c * kChunkWords; w < end; ++w) {
        const std::string_view word = entries[w].word;
        if (entries[w].count == 0 || !word_usable_length(word)) continue;
        char_keys(word, keys);
        for (std::size_t i = 0; i < keys.size(); ++i) {
          bool inserted = false;
          const std::uint32_t at =
              index.insert(keys[i], static_cast<std::uint32_t>(stats.size()), inserted);
          if (inserted) stats.push_back({keys[i], 0, 0});
          stats[at].count += entries[w].count;
          if (i == 0) stats[at].initial += entries[w].count;
        }
        const Glue glue = glue_of(keys);
        if (glue.prefix) count_glued(prefix_glue_key(keys), entries[w].count);
        if (glue.suffix) count_glued(suffix_glue_key(keys), entries[w].count);
      }
    });

    // Reduce in chunk order: the global lists are in corpus first-seen order.
    PairIndex index(1024);
    std::vector<CharStat> chars;
    PairIndex glued_index(1024);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> glued;  // glue key, count
    for (auto& l : local) {
      for (const auto& s : l.chars) {
        bool inserted = false;
        const std::uint32_t at =
            index.insert(s.key, static_cast<std::uint32_t>(chars.size()), inserted);
        if (inserted) chars.push_back({s.key, 0, 0});
        chars[at].count += s.count;
        chars[at].initial += s.initial;
      }
      for (const auto& [key, count] : l.glued) {
        bool inserted = false;
        const std::uint32_t at =
            glued_index.insert(key, static_cast<std::uint32_t>(glued.size()), inserted);
        if (inserted) glued.emplace_back(key, 0);
        glued[at].second += count;
      }
      l = Local{};
    }
    std::uint64_t total = 0;
    for (const auto& c : chars) total += c.count;

    std::vector<std::uint32_t> order(chars.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
      return chars[x].count > chars[y].count;
    });

    // The framework's alphabet, the one every algorithm starts from (SentencePiece's
    // coverage rule); kept here most frequent first.
    const std::vector<char32_t> alphabet =
        select_alphabet(counts_, config_.character_coverage, threads()).characters;
    std::uint64_t covered = 0;
    std::vector<std::uint32_t> kept;
    for (std::uint32_t i : order) {
      if (!std::binary_search(alphabet.begin(), alphabet.end(),
                              static_cast<char32_t>(chars[i].key)))
        continue;
      covered += chars[i].count;
      kept.push_back(i);
    }
    if (config_.max_steps == 0) {
      keep_common_characters(chars, kept, config_.vocab_size);
      covered = 0;  // the message below reports what the whole alphabet covers
      for (const std::uint32_t i : kept) covered += chars[i].count;
    }

    // Both forms of every kept character, so that any word spelled with them
    // can be encoded. If that does not fit in vocab_size, keep the most
    // frequent forms instead: the vocabulary never exceeds its target.
    const std::size_t budget =
        config_.vocab_size - std::min(config_.vocab_size, config_.special_tokens.size());
    std::vector<bool> form_kept(2 * kept.size(), true);
    if (form_kept.size() > budget) {
      std::vector<std::uint32_t> forms(form_kept.size());
      for (std::uint32_t f = 0; f < forms.size(); ++f) forms[f] = f;
      const auto form_count = [&](std::uint32_t f) {
        const CharStat& c = chars[kept[f / 2]];
        return f % 2 == 0 ? c.initial : c.count - c.initial;
      };
      std::stable_sort(forms.begin(), forms.end(), [&](std::uint32_t x, std::uint32_t y) {
        return form_count(x) > form_count(y);
      });
      for (std::size_t r = budget; r < forms.size(); ++r) form_kept[forms[r]] = false;
    }
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const std::uint32_t i = kept[k];
      const std::string text = key_text(chars[i].key);
      bool inserted = false;
      char_units_.insert(chars[i].key, static_cast<std::uint32_t>(unit_text_.size()), inserted);
      const std::uint32_t initial = add_unit(text, false);
      const std::uint32_t continuation = add_unit(config_.continuation_prefix + text, true);
      if (!form_kept[2 * k]) unit_usable_[initial] = false;
      if (!form_kept[2 * k + 1]) unit_usable_[continuation] = false;
      unit_by_text_.emplace(unit_text_[initial], initial);
      unit_by_text_.emplace(unit_text_[continuation], continuation);
    }
    add_glued_units(glued, budget - std::min(budget, form_kept.size()));
    if (observer_ != nullptr && covered < total) {
      observer_->on_message("alphabet of " + std::to_string(unit_text_.size() / 2) +
                            " characters covers " + std::to_string(covered) + " of " +
                            std::to_string(total) +
                            " character occurrences; words with other characters are left out");
    }
  }

  // WordPiece has no byte fallback, so a character outside the alphabet makes its
  // whole word [UNK]. Coverage never drops printable ASCII or common punctuation
  // the corpus has (Latin-1's signs, curly quotes, dashes, the ellipsis): a rare
  // "~" or "…" must not turn words of English prose or code into [UNK]. They come
  // after the covered characters, so that when vocab_size is tight their forms are
  // the first given up. Other characters the corpus never has stay out: that is
  // WordPiece's [UNK], by design.
  [[nodiscard]] static bool always_kept(std::uint32_t c) noexcept {
    return (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xBF) || c == 0xD7 || c == 0xF7 ||
           (c >= 0x2010 && c <= 0x205E);
  }

  // Printable ASCII the corpus lacks (a "~" or "@" in a corpus of scripture) is
  // added too when the vocabulary is large enough that its two forms per
  // character cost at most 5% of it: then no printable ASCII character is ever
  // unknown, whatever the training text. Small vocabularies (the textbook's)
  // keep exactly the characters they saw.
  static void keep_common_characters(std::vector<CharStat>& chars, std::vector<std::uint32_t>& kept,
                                     std::size_t vocab_size) {
    std::vector<bool> is_kept(chars.size(), false);
    for (const std::uint32_t i : kept) is_kept[i] = true;
    std::array<bool, 128> seen{};
    for (std::uint32_t i = 0; i < chars.size(); ++i) {
      if (chars[i].key < 128) seen[chars[i].key] = true;
      if (!is_kept[i] && always_kept(chars[i].key)) kept.push_back(i);
    }
    std::size_t missing = 0;
    for (std::uint32_t c = 0x21; c <= 0x7E; ++c) missing += seen[c] ? 0 : 1;
    if (chars.empty() || missing == 0 || 2 * missing * 20 > vocab_size) return;
    for (std::uint32_t c = 0x21; c <= 0x7E; ++c) {
      if (seen[c]) continue;
      kept.push_back(static_cast<std::uint32_t>(chars.size()));
      chars.push_back({c, 0, 0});
    }
  }

  [[nodiscard]] static std::string key_text(std::uint32_t key) {
    std::string text;
    if (key < 0x110000u)
      utf8::append(text, static_cast<char32_t>(key));
    else
      text.push_back(static_cast<char>(key - 0x110000u));
    return text;
  }

  // A form that would be read back as something else, or clash with a special
  // token, never becomes a piece; words that need it are left out.
  [[nodiscard]] bool usable_text(const std::string& text, bool continuation) const {
    return specials_.count(text) == 0 &&
           (continuation || !std::string_view(text).starts_with(config_.continuation_prefix));
  }

  // The marker glued to a character: one initial unit per (marker, character)
  // pairing seen, most frequent first, in whatever room the alphabet leaves.
  // They are never needed to encode a word (the marker's own forms are in the
  // alphabet), so they are the first thing given up when vocab_size is tight;
  // a word whose glued unit is not kept starts with separate units.
  void add_glued_units(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& glued,
                       std::size_t room) {
    if (char_units_.find(kBoundaryMarkerCodePoint) == PairIndex::kMissing) return;
    std::vector<std::uint32_t> order;
    for (std::uint32_t g = 0; g < glued.size(); ++g)
      if (char_units_.find(static_cast<std::uint32_t>(glued[g].first)) != PairIndex::kMissing)
        order.push_back(g);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
      return glued[x].second > glued[y].second;
    });
    for (const std::uint32_t g : order) {
      if (room == 0) break;
      const auto kind = glued[g].first >> 32;
      const std::string text = key_text(static_cast<std::uint32_t>(glued[g].first));
      const bool continuation = kind == kGlueSuffixContinuation;
      std::string unit = kind == kGluePrefix ? kBoundaryMarker + text
                         : continuation      ? config_.continuation_prefix + text + kBoundaryMarker
                                             : text + kBoundaryMarker;
      if (!usable_text(unit, continuation)) continue;
      const std::uint32_t id = add_unit(unit, continuation);
      bool inserted = false;
      glued_units_.insert(glued[g].first, id, inserted);
      unit_by_text_.emplace(std::move(unit), id);
      --room;
    }
  }

  std::uint32_t add_unit(std::string text, bool continuation) {
    const auto id = static_cast<std::uint32_t>(unit_text_.size());
    const bool usable = usable_text(text, continuation);
    unit_text_.push_back(std::move(text));
    unit_cont_.push_back(continuation);
    unit_usable_.push_back(usable);
    unit_count_.push_back(0);
    unit_pairs_.emplace_back();
    return id;
  }

  void build_words() {
    const auto& entries = counts_.entries();
    const std::size_t chunks = (entries.size() + kChunkWords - 1) / kChunkWords;
    struct Local {
      std::vector<std::uint32_t> symbols;
      std::vector<std::uint32_t> lengths;
      std::vector<std::uint64_t> weights;
    };
    std::vector<Local> local(chunks);
    parallel_for(chunks, threads(), [&](std::size_t c) {
      Local& out = local[c];
      std::vector<std::uint32_t> word_symbols;
      std::vector<std::uint32_t> keys;
      const std::size_t end = std::min(entries.size(), (c + 1) * kChunkWords);
      for (std::size_t w = c * kChunkWords; w < end; ++w) {
        const std::string_view word = entries[w].word;
        if (entries[w].count == 0 || !word_usable_length(word)) continue;
        char_keys(word, keys);
        if (!initial_units(keys, word_symbols)) continue;
        out.symbols.insert(out.symbols.end(), word_symbols.begin(), word_symbols.end());
        out.lengths.push_back(static_cast<std::uint32_t>(word_symbols.size()));
        out.weights.push_back(entries[w].count);
      }
    });
    std::size_t total_symbols = 0;
    std::size_t total_words = 0;
    for (const auto& l : local) {
      total_symbols += l.symbols.size();
      total_words += l.lengths.size();
    }
    if (total_words >= 0xFFFFFFFFu) throw Error("wordpiece: too many distinct words (over 2^32)");
    if (total_symbols >= 0xFFFFFFFFu)
      throw Error("wordpiece: the distinct words hold too many characters (over 2^32)");
    symbols_.reserve(total_symbols);
    words_.reserve(total_words);
    for (auto& l : local) {
      std::size_t at = 0;
      for (std::size_t i = 0; i < l.lengths.size(); ++i) {
        words_.push_back({l.weights[i], static_cast<std::uint32_t>(symbols_.size()), l.lengths[i]});
        symbols_.insert(symbols_.end(), l.symbols.begin() + static_cast<std::ptrdiff_t>(at),
                        l.symbols.begin() + static_cast<std::ptrdiff_t>(at + l.lengths[i]));
        at += l.lengths[i];
      }
      l = Local{};
    }
    for (const Word& word : words_) {
      const std::uint32_t* s = symbols_.data() + word.begin;
      for (std::uint32_t i = 0; i < word.length; ++i)
        unit_count_[s[i]] += static_cast<std::int64_t>(word.weight);
    }
  }

  // The initial segmentation of a word: its characters, continuation forms
  // after the first, with the boundary marker glued to its neighbour where
  // that unit was kept. False if the word needs a character that was not.
  bool initial_units(const std::vector<std::uint32_t>& keys,
                     std::vector<std::uint32_t>& symbols) const {
    symbols.clear();
    const std::size_t n = keys.size();
    const Glue glue = glue_of(keys);
    std::size_t i = 0;
    if (glue.prefix) {
      const std::uint32_t unit = glued_units_.find(prefix_glue_key(keys));
      if (unit != PairIndex::kMissing) {
        symbols.push_back(unit);
        i = 2;
      }
    }
    for (; i < n; ++i) {
      if (glue.suffix && i == n - 2) {
        const std::uint32_t unit = glued_units_.find(suffix_glue_key(keys));
        if (unit != PairIndex::kMissing) {
          symbols.push_back(unit);
          break;
        }
      }
      const std::uint32_t base = char_units_.find(keys[i]);
      if (base == PairIndex::kMissing) return false;
      const std::uint32_t unit = base + (i == 0 ? 0u : 1u);
      if (!unit_usable_[unit]) return false;
      symbols.push_back(unit);
    }
    return true;
  }

  void count_pairs() {
    const std::size_t words = words_.size();
    const std::size_t chunks = (words + kChunkWords - 1) / kChunkWords;
    struct Local {
      std::vector<std::uint64_t> keys;  // first-seen order within the chunk
      std::vector<std::int64_t> counts;
    };
    std::vector<Local> local(chunks);
    parallel_for(chunks, threads(), [&](std::size_t c) {
      PairIndex index(1024);
      Local& out = local[c];
      const std::size_t end = std::min(words, (c + 1) * kChunkWords);
      for (std::size_t w = c * kChunkWords; w < end; ++w) {
        const std::uint32_t* s = symbols_.data() + words_[w].begin;
        const auto weight = static_cast<std::int64_t>(words_[w].weight);
        for (std::uint32_t i = 0; i + 1 < words_[w].length; ++i) {
          bool inserted = false;
          const std::uint32_t at = index.insert(
              pair_key(s[i], s[i + 1]), static_cast<std::uint32_t>(out.keys.size()), inserted);
          if (inserted) {
            out.keys.push_back(pair_key(s[i], s[i + 1]));
            out.counts.push_back(0);
          }
          out.counts[at] += weight;
        }
      }
    });

    // Chunk order is corpus order, so ids (= ranks) come out in global first-seen order.
    for (const auto& l : local) {
      for (std::size_t i = 0; i < l.keys.size(); ++i) {
        const std::uint32_t id = find_or_create_pair(l.keys[i]);
        pairs_[id].count += l.counts[i];
      }
    }
    local.clear();
    for (std::uint32_t id = 0; id < pairs_.size(); ++id)
      if (eligible(pairs_[id])) list_pair(id);

    // Which words hold each pair: gathered per chunk in parallel (read-only map
    // lookups), appended in chunk order so every list is sorted by word.
    std::vector<std::vector<std::uint32_t>> occurrence(chunks);
    parallel_for(chunks, threads(), [&](std::size_t c) {
      auto& out = occurrence[c];
      const std::size_t end = std::min(words, (c + 1) * kChunkWords);
      for (std::size_t w = c * kChunkWords; w < end; ++w) {
        const std::uint32_t* s = symbols_.data() + words_[w].begin;
        for (std::uint32_t i = 0; i + 1 < words_[w].length; ++i)
          out.push_back(pair_index_.find(pair_key(s[i], s[i + 1])));
      }
    });
    for (std::size_t c = 0; c < chunks; ++c) {
      std::size_t at = 0;
      const std::size_t end = std::min(words, (c + 1) * kChunkWords);
      for (std::size_t w = c * kChunkWords; w < end; ++w) {
        for (std::uint32_t i = 0; i + 1 < words_[w].length; ++i)
          note_word(occurrence[c][at++], static_cast<std::uint32_t>(w));
      }
      std::vector<std::uint32_t>().swap(occurrence[c]);
    }
  }

  // ---- pairs ----------------------------------------------------------------

  [[nodiscard]] unsigned threads() const noexcept { return resolve_threads(config_.threads); }

  [[nodiscard]] std::string merged_text(std::uint32_t left, std::uint32_t right) const {
    std::string text = unit_text_[left];
    text.append(unit_text_[right], config_.continuation_prefix.size());
    return text;
  }

  [[nodiscard]] bool is_forbidden(std::uint32_t left, std::uint32_t right) const {
    const std::size_t size =
        unit_text_[left].size() + unit_text_[right].size() - config_.continuation_prefix.size();
    // An initial piece starting with the prefix would decode as a continuation;
    // only an initial unit shorter than the prefix can produce one.
    const bool may_mimic_prefix =
        !unit_cont_[left] && unit_text_[left].size() < config_.continuation_prefix.size();
    if (!may_mimic_prefix && size > max_special_size_) return false;
    const std::string text = merged_text(left, right);
    if (may_mimic_prefix && std::string_view(text).starts_with(config_.continuation_prefix))
      return true;
    return specials_.count(text) > 0;
  }

  std::uint32_t find_or_create_pair(std::uint64_t key) {
    bool inserted = false;
    const std::uint32_t id =
        pair_index_.insert(key, static_cast<std::uint32_t>(pairs_.size()), inserted);
    if (inserted) {
      if (pairs_.size() >= 0xFFFFFFF0u)
        throw Error("wordpiece: too many distinct pairs (over 2^32)");
      PairInfo p;
      p.left = static_cast<std::uint32_t>(key >> 32);
      p.right = static_cast<std::uint32_t>(key & 0xFFFFFFFFu);
      p.forbidden = is_forbidden(p.left, p.right);
      pairs_.push_back(p);
      pair_words_.emplace_back();
    }
    return id;
  }

  // Whether a pair may be merged: often enough, and not forbidden. Only these
  // are listed under their units and kept in the heap.
  [[nodiscard]] bool eligible(const PairInfo& p) const noexcept {
    return p.count >= threshold_ && !p.forbidden;
  }

  void list_pair(std::uint32_t id) {
    PairInfo& p = pairs_[id];
    if ((p.listed & 1u) == 0) {
      unit_pairs_[p.left].push_back(id);
      p.listed |= 1u;
      if (p.left == p.right) p.listed |= 2u;
    }
    if ((p.listed & 2u) == 0) {
      unit_pairs_[p.right].push_back(id);
      p.listed |= 2u;
    }
  }

  void note_word(std::uint32_t pair, std::uint32_t word) {
    auto& words = pair_words_[pair];
    if (words.empty() || words.back() != word) words.push_back(word);
  }

  // ---- indexed max-heap ------------------------------------------------------

  [[nodiscard]] bool before(std::uint32_t x, std::uint32_t y) const noexcept {
    const double sx = pairs_[x].score;
    const double sy = pairs_[y].score;
    if (sx != sy) return sx > sy;
    return x < y;  // pair id == first-appearance rank
  }

  void heap_set(std::size_t pos, std::uint32_t id) {
    heap_[pos] = id;
    pairs_[id].heap_pos = static_cast<std::uint32_t>(pos);
  }

  void sift_up(std::size_t pos) {
    const std::uint32_t id = heap_[pos];
    while (pos > 0) {
      const std::size_t parent = (pos - 1) / 2;
      if (!before(id, heap_[parent])) break;
      heap_set(pos, heap_[parent]);
      pos = parent;
    }
    heap_set(pos, id);
  }

  void sift_down(std::size_t pos) {
    const std::uint32_t id = heap_[pos];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], id)) break;
      heap_set(pos, heap_[child]);
      pos = child;
    }
    heap_set(pos, id);
  }

  void heap_remove(std::uint32_t id) {
    const std::uint32_t pos = pairs_[id].heap_pos;
    pairs_[id].heap_pos = kNotInHeap;
    const std::uint32_t last = heap_.back();
    heap_.pop_back();
    if (last == id) return;
    heap_set(pos, last);
    sift_up(pos);
    sift_down(pairs_[last].heap_pos);
  }

  // Recomputes a pair's score from the current counts and fixes its heap slot.
  void rescore(std::uint32_t id) {
    PairInfo& p = pairs_[id];
    if (p.count < threshold_ || p.forbidden) {
      if (p.heap_pos != kNotInHeap) heap_remove(id);
      return;
    }
    const double score = static_cast<double>(p.count) / (static_cast<double>(unit_count_[p.left]) *
                                                         static_cast<double>(unit_count_[p.right]));
    if (p.heap_pos == kNotInHeap) {
      p.score = score;
      heap_.push_back(id);
      p.heap_pos = static_cast<std::uint32_t>(heap_.size() - 1);
      sift_up(p.heap_pos);
    } else if (score != p.score) {
      p.score = score;
      sift_up(p.heap_pos);
      sift_down(p.heap_pos);
    }
  }

  void build_heap() {
    for (std::uint32_t id = 0; id < pairs_.size(); ++id) {
      PairInfo& p = pairs_[id];
      if (p.count < threshold_ || p.forbidden) continue;
      p.score = static_cast<double>(p.count) / (static_cast<double>(unit_count_[p.left]) *
                                                static_cast<double>(unit_count_[p.right]));
      heap_.push_back(id);
    }
    // Floyd's bottom-up construction: O(pairs).
    for (std::size_t i = 0; i < heap_.size(); ++i)
      pairs_[heap_[i]].heap_pos = static_cast<std::uint32_t>(i);
    for (std::size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  }

  // ---- merging ---------------------------------------------------------------

  void merge_loop() {
    std::size_t vocabulary = config_.special_tokens.size();
    for (std::uint32_t u = 0; u < unit_text_.size(); ++u) {
      if (unit_usable_[u]) {
        result_.pieces.push_back(unit_text_[u]);
        ++vocabulary;
      }
    }
    const std::size_t start = vocabulary;
    const bool trace = observer_ != nullptr && observer_->trace();
    std::size_t next_progress = 0;
    std::uint32_t step = 0;
    const bool limited = config_.max_steps > 0;
    while (vocabulary < config_.vocab_size && !heap_.empty() &&
           (!limited || step < config_.max_steps)) {
      const std::uint32_t best = heap_.front();
      const PairInfo chosen = pairs_[best];
      ++step;
      const std::uint32_t left = chosen.left;
      const std::uint32_t right = chosen.right;
      std::string text = merged_text(left, right);
      std::uint32_t merged = 0;
      bool new_piece = false;
      if (auto it = unit_by_text_.find(text); it != unit_by_text_.end()) {
        merged = it->second;
      } else {
        merged = add_unit(text, unit_cont_[left]);
        unit_by_text_.emplace(text, merged);
        result_.pieces.push_back(text);
        new_piece = true;
        ++vocabulary;
      }
      apply_merge(best, left, right, merged, step);

      Merge m{unit_text_[left], unit_text_[right],
              std::move(text),  static_cast<std::uint64_t>(chosen.count),
              chosen.score,     new_piece};
      if (trace) {
        TrainingStep record;
        record.kind = "merge";
        record.index = step;
        record.fields = {{"pair", m.left + " + " + m.right},
                         {"score", format_score(m.score)},
                         {"count", std::to_string(m.count)},
                         {"vocabulary", std::to_string(vocabulary)}};
        observer_->on_step(record);
      }
      result_.merges.push_back(std::move(m));
      if (observer_ != nullptr && config_.vocab_size > start && vocabulary >= next_progress) {
        double fraction = static_cast<double>(vocabulary - start) /
                          static_cast<double>(config_.vocab_size - start);
        if (limited)
          fraction = std::max(fraction,
                              static_cast<double>(step) / static_cast<double>(config_.max_steps));
        observer_->on_progress("merges", fraction);
        next_progress = vocabulary + std::max<std::size_t>(1, (config_.vocab_size - start) / 100);
      }
    }
    result_.reached_target =
        vocabulary >= config_.vocab_size || (limited && step >= config_.max_steps);
    result_.min_frequency = static_cast<std::uint64_t>(threshold_);
    if (observer_ != nullptr) {
      observer_->on_progress("merges", 1.0);
      if (limited && step >= config_.max_steps && vocabulary < config_.vocab_size) {
        observer_->on_message("stopped after " + std::to_string(step) + " merges (max_steps) at " +
                              std::to_string(vocabulary) + " pieces");
      } else if (vocabulary < config_.vocab_size) {
        observer_->on_message("stopped at " + std::to_string(vocabulary) +
                              " pieces: no pair left with count >= " + std::to_string(threshold_));
      }
    }
  }

  void apply_merge(std::uint32_t best, std::uint32_t a, std::uint32_t b, std::uint32_t ab,
                   std::uint32_t step) {
    std::vector<std::uint32_t> words = std::move(pair_words_[best]);
    pair_words_[best] = {};
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());

    // The words lie scattered over memory, and a visit is mostly two cache
    // misses (the record, then its symbols): fetch both a few words ahead.
    constexpr std::size_t kRecordsAhead = 16;
    constexpr std::size_t kSymbolsAhead = 8;
    for (std::size_t k = 0; k < words.size(); ++k) {
      if (k + kRecordsAhead < words.size()) __builtin_prefetch(&words_[words[k + kRecordsAhead]]);
      if (k + kSymbolsAhead < words.size())
        __builtin_prefetch(symbols_.data() + words_[words[k + kSymbolsAhead]].begin);
      const std::uint32_t w = words[k];
      std::uint32_t* s = symbols_.data() + words_[w].begin;
      const std::uint32_t length = words_[w].length;
      bool present = false;
      for (std::uint32_t i = 0; i + 1 < length && !present; ++i)
        present = s[i] == a && s[i + 1] == b;
      if (!present) continue;  // stale entry: an earlier merge rewrote this spot

      old_keys_.clear();
      for (std::uint32_t i = 0; i + 1 < length; ++i) old_keys_.push_back(pair_key(s[i], s[i + 1]));
      std::uint32_t out = 0;
      std::int64_t occurrences = 0;
      for (std::uint32_t i = 0; i < length;) {
        if (i + 1 < length && s[i] == a && s[i + 1] == b) {
          s[out++] = ab;
          i += 2;
          ++occurrences;
        } else {
          s[out++] = s[i++];
        }
      }
      words_[w].length = out;
      const auto weight = static_cast<std::int64_t>(words_[w].weight);
      unit_count_[a] -= occurrences * weight;
      unit_count_[b] -= occurrences * weight;
      unit_count_[ab] += occurrences * weight;

      // New adjacencies all involve ab; creating them left to right here is
      // what defines their tie-break rank.
      // Their ids are kept for the count update below, which then needs no
      // second lookup (a new-only adjacency always involves ab).
      new_keys_.clear();
      for (std::uint32_t i = 0; i + 1 < out; ++i) {
        const std::uint64_t key = pair_key(s[i], s[i + 1]);
        std::uint32_t id = PairIndex::kMissing;
        if (s[i] == ab || s[i + 1] == ab) {
          id = find_or_create_pair(key);
          note_word(id, w);
        }
        new_keys_.emplace_back(key, id);
      }

      // Apply only the net change between the old and new adjacency multisets.
      std::sort(old_keys_.begin(), old_keys_.end());
      std::sort(new_keys_.begin(), new_keys_.end());
      std::size_t i = 0;
      std::size_t j = 0;
      while (i < old_keys_.size() || j < new_keys_.size()) {
        if (j == new_keys_.size() || (i < old_keys_.size() && old_keys_[i] < new_keys_[j].first)) {
          add_count(pair_index_.find(old_keys_[i++]), -weight);
        } else if (i == old_keys_.size() || new_keys_[j].first < old_keys_[i]) {
          const auto [key, id] = new_keys_[j++];
          add_count(id != PairIndex::kMissing ? id : pair_index_.find(key), weight);
        } else {
          ++i;
          ++j;
        }
      }
    }

    // Every pair whose count changed touches a, b or ab, and so does every pair
    // whose score changed through count(a), count(b) or count(ab).
    rescore_unit(a, step);
    if (b != a) rescore_unit(b, step);
    if (ab != a && ab != b) rescore_unit(ab, step);
  }

  void add_count(std::uint32_t id, std::int64_t delta) {
    PairInfo& p = pairs_[id];
    const bool was_eligible = eligible(p);
    p.count += delta;
    if (!was_eligible && eligible(p)) list_pair(id);
    // No word holds a dead pair, so its word list is all stale (a pair revived
    // later in the same merge is noted again by the words that now hold it).
    if (p.count <= 0) std::vector<std::uint32_t>().swap(pair_words_[id]);
  }

  // Rescores the pairs of a unit and drops the ineligible ones from its list.
  // An ineligible pair is never in the heap, and its count rises again only
  // through add_count, which lists it anew: so a frequent unit's list holds
  // only the pairs that can be merged, not the thousands of rare ones that
  // would otherwise be rescanned at every merge touching the unit.
  void rescore_unit(std::uint32_t unit, std::uint32_t step) {
    auto& list = unit_pairs_[unit];
    std::size_t keep = 0;
    for (const std::uint32_t id : list) {
      PairInfo& p = pairs_[id];
      if (!eligible(p)) {
        if (p.left == unit) p.listed &= static_cast<std::uint8_t>(~1u);
        if (p.right == unit) p.listed &= static_cast<std::uint8_t>(~2u);
        if (p.heap_pos != kNotInHeap) heap_remove(id);
        continue;
      }
      list[keep++] = id;
      if (p.rescored_at != step) {
        p.rescored_at = step;
        rescore(id);
      }
    }
    list.resize(keep);
  }

  const WordCounts& counts_;
  const TrainerConfig& config_;
  TrainingObserver* observer_;
  std::unordered_set<std::string> specials_;
  std::size_t max_special_size_ = 0;
  std::int64_t threshold_ = 1;

  PairIndex char_units_;  // character key -> id of its initial unit (continuation is +1)
  std::vector<std::string> unit_text_;
  std::vector<bool> unit_cont_;
  std::vector<bool> unit_usable_;
  std::vector<std::int64_t> unit_count_;
  std::vector<std::vector<std::uint32_t>> unit_pairs_;
  PairIndex glued_units_;  // glue key -> unit id (kept glued units only)
  // Every unit by its text, so that a merge making an existing string reuses its unit.
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> unit_by_text_;

  std::vector<std::uint32_t> symbols_;
  // One record per distinct word, so that a visit loads one cache line.
  struct Word {
    std::uint64_t weight = 0;  // the word's count
    std::uint32_t begin = 0;   // its symbols: symbols_[begin, begin + length)
    std::uint32_t length = 0;
  };
  std::vector<Word> words_;

  PairIndex pair_index_{1 << 16};
  std::vector<PairInfo> pairs_;
  std::vector<std::vector<std::uint32_t>> pair_words_;
  std::vector<std::uint32_t> heap_;

  std::vector<std::uint64_t> old_keys_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> new_keys_;  // key, id if created
  TrainerResult result_;
};

// Keeps a trial run's messages, to pass on if that trial is the one kept.
class MessageRecorder final : public TrainingObserver {
 public:
  void on_message(std::string_view message) override { messages.emplace_back(message); }
  std::vector<std::string> messages;
};

// min_frequency 0: the largest threshold at which training still reaches its
// target (vocab_size, or max_steps), found by trisection. See trainer.hpp.
TrainerResult train_with_automatic_threshold(const WordCounts& counts, const TrainerConfig& config,
                                             TrainingObserver* observer) {
  std::uint64_t occurrences = 0;
  for (const auto& e : counts.entries()) occurrences += e.count;
  const std::uint64_t cap = occurrences / std::max<std::uint64_t>(config.vocab_size, 1);
  TrainerConfig trial = config;
  const auto run = [&](std::uint64_t threshold, TrainingObserver* to) {
    trial.min_frequency = threshold;
    Trainer trainer(counts, trial, to);
    return trainer.run();
  };
  if (cap <= 1) {
    TrainerResult result = run(1, observer);
    if (observer != nullptr) {
      observer->on_message(
          "min_frequency 0 (automatic): 1, since the corpus has fewer than 2 word occurrences "
          "per vocabulary entry");
    }
    return result;
  }

  // Invariant: lo reaches the target (assumed for the floor), hi does not (or is
  // the cap, not tried yet). The floor is 2, not 1: a pair seen once carries no
  // evidence, and the likelihood score ranks such pairs highest, so when even 2
  // cannot reach the target the vocabulary stays smaller instead of filling up
  // with one-off pairs.
  std::uint64_t lo = 2;
  std::uint64_t hi = cap;
  std::optional<TrainerResult> kept;
  std::uint64_t kept_threshold = 0;
  MessageRecorder kept_messages;
  std::size_t trials = 0;
  const unsigned threads = resolve_threads(config.threads);
  // Trisection: each round tries two thresholds, on two threads when there are two.
  // The thresholds tried never depend on the thread count, so neither does the
  // result; with two threads a round costs one trial's time, not two.
  struct Trial {
    std::uint64_t threshold = 0;
    MessageRecorder messages;
    std::optional<TrainerResult> result;
  };
  const auto run_trial = [&](Trial& t, unsigned trial_threads) {
    TrainerConfig own = config;
    own.min_frequency = t.threshold;
    own.threads = trial_threads;
    Trainer trainer(counts, own, &t.messages);
    t.result = trainer.run();
  };
  const auto keep = [&](Trial& t) {
    kept = std::move(t.result);
    kept_threshold = t.threshold;
    kept_messages = std::move(t.messages);
  };
  Trial first{cap, {}, {}};
  run_trial(first, threads);
  ++trials;
  if (first.result->reached_target) {
    lo = cap;
    keep(first);
  } else {
    while (hi - lo > std::max<std::uint64_t>(1, lo / 16)) {
      Trial low{lo + (hi - lo) / 3, {}, {}};
      Trial high{lo + 2 * (hi - lo) / 3, {}, {}};
      if (high.threshold == low.threshold || low.threshold == lo) {
        // Too narrow for two distinct points: one midpoint.
        Trial mid{lo + (hi - lo) / 2, {}, {}};
        run_trial(mid, threads);
        ++trials;
        if (mid.result->reached_target) {
          lo = mid.threshold;
          keep(mid);
        } else {
          hi = mid.threshold;
        }
      } else {
        if (threads >= 2) {
          // Both trials at once; parallel_for joins both before an error escapes.
          parallel_for(2, 2, [&](std::size_t i) { run_trial(i == 0 ? low : high, 1); });
        } else {
          run_trial(low, 1);
          run_trial(high, 1);
        }
        trials += 2;
        if (high.result->reached_target) {
          lo = high.threshold;
          keep(high);
        } else if (low.result->reached_target) {
          lo = low.threshold;
          hi = high.threshold;
          keep(low);
        } else {
          hi = low.threshold;
        }
      }
      if (observer != nullptr)
        observer->on_progress("min_frequency search",
                              1.0 - static_cast<double>(hi - lo) / static_cast<double>(cap));
    }
  }
  if (kept && kept_threshold != lo) kept.reset();
  TrainerResult result;
  if (!kept || (observer != nullptr && observer->trace())) {
    result = run(lo, observer);
  } else {
    result = std::move(*kept);
    if (observer != nullptr) {
      for (const auto& m : kept_messages.messages) observer->on_message(m);
      observer->on_progress("merges", 1.0);
    }
  }
  // Last, so that a one-line summary (compare's note column) shows it.
  if (observer != nullptr) {
    observer->on_message(
        "min_frequency 0 (automatic): " + std::to_string(lo) +
        ", the largest threshold, at least 2 (trisection to 1/16, " + std::to_string(trials) +
        " trial runs, at most " + std::to_string(cap) +
        " = word occurrences per vocabulary entry) at which training still reaches its target; "
        "pairs rarer than that are never merged (set min_frequency 1 to merge any pair)");
  }
  return result;
}

}  // namespace

TrainerResult train_likelihood(const WordCounts& counts, const TrainerConfig& config,
                               TrainingObserver* observer) {
  const std::string& prefix = config.continuation_prefix;
  if (prefix.empty()) throw Error("wordpiece: continuation_prefix must not be empty");
  if (utf8::find_invalid(prefix)) throw Error("wordpiece: continuation_prefix is not valid UTF-8");
  for (const char c : prefix) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
      throw Error("wordpiece: continuation_prefix must not contain whitespace");
  }
  if (config.max_input_chars_per_word == 0)
    throw Error("wordpiece: max_input_chars_per_word must be at least 1");
  if (!(config.character_coverage > 0.0 && config.character_coverage <= 1.0))
    throw Error("wordpiece: character_coverage must be in (0, 1], got " +
                std::to_string(config.character_coverage));
  if (config.min_frequency > 0) {
    Trainer trainer(counts, config, observer);
    return trainer.run();
  }
  return train_with_automatic_threshold(counts, config, observer);
}

}  // namespace tokenlab::wordpiece
