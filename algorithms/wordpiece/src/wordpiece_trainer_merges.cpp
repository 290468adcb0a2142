// WordPiece training, step 2: pair statistics, the indexed max-heap of scores
// and the merge loop (see wordpiece_trainer_state.hpp for the state).
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

void Trainer::count_pairs() {
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

std::string Trainer::merged_text(std::uint32_t left, std::uint32_t right) const {
  std::string text = unit_text_[left];
  text.append(unit_text_[right], config_.continuation_prefix.size());
  return text;
}

bool Trainer::is_forbidden(std::uint32_t left, std::uint32_t right) const {
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

std::uint32_t Trainer::find_or_create_pair(std::uint64_t key) {
  bool inserted = false;
  const std::uint32_t id =
      pair_index_.insert(key, static_cast<std::uint32_t>(pairs_.size()), inserted);
  if (inserted) {
    if (pairs_.size() >= 0xFFFFFFF0u) throw Error("wordpiece: too many distinct pairs (over 2^32)");
    PairInfo p;
    p.left = static_cast<std::uint32_t>(key >> 32);
    p.right = static_cast<std::uint32_t>(key & 0xFFFFFFFFu);
    p.forbidden = is_forbidden(p.left, p.right);
    pairs_.push_back(p);
    pair_words_.emplace_back();
  }
  return id;
}

void Trainer::list_pair(std::uint32_t id) {
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

void Trainer::note_word(std::uint32_t pair, std::uint32_t word) {
  auto& words = pair_words_[pair];
  if (words.empty() || words.back() != word) words.push_back(word);
}

void Trainer::heap_set(std::size_t pos, std::uint32_t id) {
  heap_[pos] = id;
  pairs_[id].heap_pos = static_cast<std::uint32_t>(pos);
}

void Trainer::sift_up(std::size_t pos) {
  const std::uint32_t id = heap_[pos];
  while (pos > 0) {
    const std::size_t parent = (pos - 1) / 2;
    if (!before(id, heap_[parent])) break;
    heap_set(pos, heap_[parent]);
    pos = parent;
  }
  heap_set(pos, id);
}

void Trainer::sift_down(std::size_t pos) {
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

void Trainer::heap_remove(std::uint32_t id) {
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
void Trainer::rescore(std::uint32_t id) {
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

void Trainer::build_heap() {
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

void Trainer::merge_loop() {
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
      double fraction =
          static_cast<double>(vocabulary - start) / static_cast<double>(config_.vocab_size - start);
      if (limited)
        fraction =
            std::max(fraction, static_cast<double>(step) / static_cast<double>(config_.max_steps));
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

void Trainer::apply_merge(std::uint32_t best, std::uint32_t a, std::uint32_t b, std::uint32_t ab,
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
    for (std::uint32_t i = 0; i + 1 < length && !present; ++i) present = s[i] == a && s[i + 1] == b;
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

void Trainer::add_count(std::uint32_t id, std::int64_t delta) {
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
void Trainer::rescore_unit(std::uint32_t unit, std::uint32_t step) {
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

}  // namespace tokenlab::wordpiece::detail
