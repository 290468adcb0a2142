// WordPiece training, step 1: the alphabet (both forms of every kept character,
// the glued boundary-marker units) and each word's initial segmentation.
#include "wordpiece_trainer_state.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::wordpiece::detail {

Trainer::CorpusCharacters Trainer::count_characters() const {
  const auto& entries = counts_.entries();
  const std::size_t chunks = (entries.size() + kChunkWords - 1) / kChunkWords;
  std::vector<CorpusCharacters> local(chunks);
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
  PairIndex glued_index(1024);
  CorpusCharacters all;
  for (auto& l : local) {
    for (const auto& s : l.chars) {
      bool inserted = false;
      const std::uint32_t at =
          index.insert(s.key, static_cast<std::uint32_t>(all.chars.size()), inserted);
      if (inserted) all.chars.push_back({s.key, 0, 0});
      all.chars[at].count += s.count;
      all.chars[at].initial += s.initial;
    }
    for (const auto& [key, count] : l.glued) {
      bool inserted = false;
      const std::uint32_t at =
          glued_index.insert(key, static_cast<std::uint32_t>(all.glued.size()), inserted);
      if (inserted) all.glued.emplace_back(key, 0);
      all.glued[at].second += count;
    }
    l = CorpusCharacters{};
  }
  return all;
}

void Trainer::build_alphabet() {
  CorpusCharacters corpus = count_characters();
  std::vector<CharStat>& chars = corpus.chars;
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
    if (!std::binary_search(alphabet.begin(), alphabet.end(), static_cast<char32_t>(chars[i].key)))
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
  add_character_units(chars, kept, budget, form_kept);
  add_glued_units(corpus.glued, budget - std::min(budget, form_kept.size()));
  if (observer_ != nullptr && covered < total) {
    observer_->on_message("alphabet of " + std::to_string(unit_text_.size() / 2) +
                          " characters covers " + std::to_string(covered) + " of " +
                          std::to_string(total) +
                          " character occurrences; words with other characters are left out");
  }
}

void Trainer::add_character_units(const std::vector<CharStat>& chars,
                                  const std::vector<std::uint32_t>& kept, std::size_t budget,
                                  std::vector<bool>& form_kept) {
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
}

// Printable ASCII the corpus lacks (a "~" or "@" in a corpus of scripture) is
// added too when the vocabulary is large enough that its two forms per
// character cost at most 5% of it: then no printable ASCII character is ever
// unknown, whatever the training text. Small vocabularies (the textbook's)
// keep exactly the characters they saw.
void Trainer::keep_common_characters(std::vector<CharStat>& chars, std::vector<std::uint32_t>& kept,
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

std::string Trainer::key_text(std::uint32_t key) {
  std::string text;
  if (key < 0x110000u)
    utf8::append(text, static_cast<char32_t>(key));
  else
    text.push_back(static_cast<char>(key - 0x110000u));
  return text;
}

// A form that would be read back as something else, or clash with a special
// token, never becomes a piece; words that need it are left out.
bool Trainer::usable_text(const std::string& text, bool continuation) const {
  return specials_.count(text) == 0 &&
         (continuation || !std::string_view(text).starts_with(config_.continuation_prefix));
}

// The marker glued to a character: one initial unit per (marker, character)
// pairing seen, most frequent first, in whatever room the alphabet leaves.
// They are never needed to encode a word (the marker's own forms are in the
// alphabet), so they are the first thing given up when vocab_size is tight;
// a word whose glued unit is not kept starts with separate units.
void Trainer::add_glued_units(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& glued,
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

std::uint32_t Trainer::add_unit(std::string text, bool continuation) {
  const auto id = static_cast<std::uint32_t>(unit_text_.size());
  const bool usable = usable_text(text, continuation);
  unit_text_.push_back(std::move(text));
  unit_cont_.push_back(continuation);
  unit_usable_.push_back(usable);
  unit_count_.push_back(0);
  unit_pairs_.emplace_back();
  return id;
}

void Trainer::build_words() {
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
bool Trainer::initial_units(const std::vector<std::uint32_t>& keys,
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

}  // namespace tokenlab::wordpiece::detail
