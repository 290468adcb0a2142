#include "tokenlab/vocabulary_allocation.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

constexpr std::string_view kMarker = "\xE2\x96\x81";  // U+2581

using LanguageCounts = std::vector<std::pair<std::uint32_t, std::uint64_t>>;  // sorted

void add_count(LanguageCounts& counts, std::uint32_t language, std::uint64_t count) {
  for (auto& [l, c] : counts)
    if (l == language) {
      c += count;
      return;
    }
  counts.emplace_back(language, count);
  std::sort(counts.begin(), counts.end());
}

// A distinct unit as the subject gives it, with the model's own ids.
struct Unit {
  std::string text;
  std::vector<TokenId> own;
  LanguageCounts counts;
};

// A distinct piece the figures are computed on: a unit, or a word of a unit
// cut at its markers (split_units).
struct Atom {
  std::string text;
  LanguageCounts counts;
};

// What one atom gives: its tokens, the entries it uses and builds, and the
// tokens more without each removable one it builds.
struct AtomResult {
  std::uint32_t tokens = 0;
  std::vector<std::pair<TokenId, std::uint32_t>> uses;  // id, occurrences
  std::vector<TokenId> made;                            // sorted, distinct
  std::vector<std::int32_t> delta;                      // parallel to made (0: not removable)
};

struct Collected {
  std::vector<Unit> units;
  std::vector<std::uint64_t> fixed_tokens;  // per language: added tokens' ids
  std::uint64_t occurrences = 0;
};

// Every language's units, distinct, in language then first-seen order.
Collected collect_units(const InferenceSubject& subject, const AllocationInput& input,
                        unsigned threads) {
  const std::size_t n = input.languages.size();
  std::vector<std::vector<Unit>> per_language(n);
  std::vector<std::uint64_t> fixed(input.held_out_order ? 2 * n : n, 0), occurrences(n, 0);
  parallel_for_workers(n, threads, [&](unsigned, std::size_t l) {
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < input.texts[l].size(); ++i)
      subject.for_each_unit(input.texts[l][i], [&](std::string_view unit,
                                                   std::span<const TokenId> own, bool is_fixed) {
        // With held_out_order, the odd-numbered texts count as language n + l.
        const std::size_t line =
            l < input.lines.size() && i < input.lines[l].size() ? input.lines[l][i] : i;
        const std::size_t slot = input.held_out_order && line % 2 == 1 ? n + l : l;
        if (is_fixed) {
          fixed[slot] += own.size();
          return;
        }
        ++occurrences[l];
        const auto [it, added] = index.emplace(std::string(unit), per_language[l].size());
        if (added) per_language[l].push_back({std::string(unit), {own.begin(), own.end()}, {}});
        add_count(per_language[l][it->second].counts, static_cast<std::uint32_t>(slot), 1);
      });
  });
  Collected out;
  out.fixed_tokens = std::move(fixed);
  std::unordered_map<std::string_view, std::size_t> index;
  out.units.reserve(std::accumulate(per_language.begin(), per_language.end(), std::size_t{0},
                                    [](std::size_t s, const auto& v) { return s + v.size(); }));
  for (std::size_t l = 0; l < n; ++l) {
    out.occurrences += occurrences[l];
    for (Unit& unit : per_language[l]) {
      const auto found = index.find(unit.text);
      if (found != index.end()) {
        for (const auto& [slot, count] : unit.counts)
          add_count(out.units[found->second].counts, slot, count);
        continue;
      }
      out.units.push_back(std::move(unit));
      index.emplace(out.units.back().text, out.units.size() - 1);
    }
  }
  return out;
}

// The unit cut before each marker after its start, when the method gives each
// word what the model's own ids give it (no token crosses a word's start): a
// whole line of a model without a pre-tokenizer becomes words, which repeat.
// Empty: keep the unit whole; differing says whether the method's ids for the
// whole unit are not the model's own.
std::vector<std::string_view> split_unit(const InferenceEngine& engine, InferenceMethod method,
                                         const Unit& unit, bool& differing) {
  std::vector<std::string_view> parts;
  std::string_view rest = unit.text;
  while (!rest.empty()) {
    const std::size_t cut = std::min(rest.find(kMarker, kMarker.size()), rest.size());
    parts.push_back(rest.substr(0, cut));
    rest.remove_prefix(cut);
  }
  std::vector<TokenId> ids;
  for (const std::string_view part : parts) engine.encode_without(method, part, {}, ids);
  if (parts.size() > 1 && ids == unit.own) return parts;
  if (parts.size() > 1) {
    ids.clear();
    engine.encode_without(method, unit.text, {}, ids);
  }
  differing = ids != unit.own;
  return {};
}

struct Atoms {
  std::vector<Atom> atoms;
  std::uint64_t differing_units = 0;
};

Atoms make_atoms(const InferenceEngine& engine, InferenceMethod method,
                 const std::vector<Unit>& units, unsigned threads) {
  std::vector<std::vector<std::string_view>> parts(units.size());
  std::vector<std::uint8_t> differing(units.size(), 0);
  parallel_for_workers(units.size(), threads, [&](unsigned, std::size_t i) {
    bool d = false;
    parts[i] = split_unit(engine, method, units[i], d);
    differing[i] = d ? 1 : 0;
  });
  Atoms out;
  std::unordered_map<std::string_view, std::size_t> index;
  const auto add = [&](std::string_view text, const LanguageCounts& counts) {
    const auto [it, added] = index.emplace(text, out.atoms.size());
    if (added) out.atoms.push_back({std::string(text), {}});
    for (const auto& [l, c] : counts) add_count(out.atoms[it->second].counts, l, c);
  };
  for (std::size_t i = 0; i < units.size(); ++i) {
    out.differing_units += differing[i];
    if (parts[i].empty()) add(units[i].text, units[i].counts);
    for (const std::string_view part : parts[i]) add(part, units[i].counts);
  }
  return out;
}

// Whether the method can go without id: a text piece that is not a byte piece
// and not the unknown token, longer than the method's smallest unit (a
// character, or a byte), or any such piece when byte pieces stand behind it.
std::vector<std::uint8_t> removable_entries(const InferenceVocabulary& v) {
  std::vector<std::uint8_t> removable(v.pieces.size(), 0);
  std::vector<std::uint8_t> is_byte(v.pieces.size(), 0);
  for (const TokenId id : v.byte_pieces)
    if (id < is_byte.size()) is_byte[id] = 1;
  const bool bytes_behind = v.byte_pieces.size() == 256;
  for (TokenId id = 0; id < v.pieces.size(); ++id) {
    std::string_view piece = v.pieces[id];
    if (piece.empty() || is_byte[id] != 0 || (v.unknown && *v.unknown == id)) continue;
    if (!v.continuation_prefix.empty() && piece.starts_with(v.continuation_prefix) &&
        piece.size() > v.continuation_prefix.size())
      piece.remove_prefix(v.continuation_prefix.size());
    const std::size_t first =
        v.byte_units ? 1 : std::max<std::size_t>(1, utf8::sequence_length(piece, 0));
    removable[id] = bytes_behind || piece.size() > first ? 1 : 0;
  }
  return removable;
}

AtomResult measure_atom(const InferenceEngine& engine, InferenceMethod method,
                        std::string_view text, const std::vector<std::uint8_t>& removable,
                        std::vector<std::uint8_t>& disabled) {
  AtomResult r;
  std::vector<TokenId> ids, made, again;
  engine.encode_without(method, text, {}, ids, &made);
  r.tokens = static_cast<std::uint32_t>(ids.size());
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j < ids.size() && ids[j] == ids[i]) ++j;
    r.uses.emplace_back(ids[i], static_cast<std::uint32_t>(j - i));
    i = j;
  }
  std::sort(made.begin(), made.end());
  made.erase(std::unique(made.begin(), made.end()), made.end());
  r.made = std::move(made);
  r.delta.assign(r.made.size(), 0);
  for (std::size_t k = 0; k < r.made.size(); ++k) {
    const TokenId e = r.made[k];
    if (e >= removable.size() || removable[e] == 0) continue;
    disabled[e] = 1;
    again.clear();
    engine.encode_without(method, text, disabled, again);
    disabled[e] = 0;
    r.delta[k] = static_cast<std::int32_t>(again.size()) - static_cast<std::int32_t>(r.tokens);
  }
  return r;
}

// Per-entry sums over the atoms, in id order.
std::vector<AllocationEntry> sum_entries(const std::vector<Atom>& atoms,
                                         const std::vector<AtomResult>& results,
                                         const std::vector<std::uint8_t>& removable,
                                         std::size_t languages) {
  std::vector<std::int64_t> slot(removable.size(), -1);
  std::vector<AllocationEntry> entries;
  const auto entry = [&](TokenId id) -> AllocationEntry& {
    if (slot[id] < 0) {
      slot[id] = static_cast<std::int64_t>(entries.size());
      entries.push_back({.id = id,
                         .removable = removable[id] != 0,
                         .uses = std::vector<std::uint64_t>(languages, 0),
                         .saved = std::vector<std::int64_t>(languages, 0)});
    }
    return entries[static_cast<std::size_t>(slot[id])];
  };
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    for (const auto& [l, count] : atoms[a].counts) {
      for (const auto& [id, n] : results[a].uses)
        if (id < slot.size()) entry(id).uses[l] += count * n;
      for (std::size_t k = 0; k < results[a].made.size(); ++k)
        if (results[a].made[k] < slot.size())
          entry(results[a].made[k]).saved[l] +=
              static_cast<std::int64_t>(count) * results[a].delta[k];
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const AllocationEntry& a, const AllocationEntry& b) { return a.id < b.id; });
  return entries;
}

// The removal order, from the entries' values: the removable entries by value, the least
// first; ties by fewer uses, then the later id (a later merge) first. Entries
// never used or built come first, latest id first. Returns the ids in order.
void set_values(std::vector<AllocationEntry>& entries, const std::vector<std::uint64_t>& tokens,
                std::size_t languages) {
  for (auto& e : entries) {
    e.value = 0.0;
    for (std::size_t l = 0; l < languages; ++l)
      if (e.saved[l] > 0 && tokens[l] > 0)
        e.value += static_cast<double>(e.saved[l]) / static_cast<double>(tokens[l]);
  }
}

std::vector<TokenId> removal_order(const std::vector<AllocationEntry>& entries,
                                   const std::vector<std::uint8_t>& removable, std::size_t fit) {
  // What the order may see: the first fit languages' slots (the even-numbered
  // lines with held_out_order: nothing of the lines the curve is read on).
  const auto fit_uses = [fit](const AllocationEntry& e) {
    return std::accumulate(e.uses.begin(), e.uses.begin() + static_cast<std::ptrdiff_t>(fit),
                           std::uint64_t{0});
  };
  const auto visible = [&](const AllocationEntry& e) {
    if (e.uses.size() == fit) return true;  // listed: used or built somewhere
    for (std::size_t l = 0; l < fit; ++l)
      if (e.uses[l] > 0 || e.saved[l] != 0) return true;
    return false;
  };
  std::vector<const AllocationEntry*> listed;
  std::vector<std::uint8_t> seen(removable.size(), 0);
  for (const auto& e : entries) {
    if (!visible(e)) continue;
    seen[e.id] = 1;
    if (e.removable) listed.push_back(&e);
  }
  std::sort(listed.begin(), listed.end(), [&](const AllocationEntry* a, const AllocationEntry* b) {
    if (a->value != b->value) return a->value < b->value;
    const std::uint64_t ua = fit_uses(*a), ub = fit_uses(*b);
    return ua != ub ? ua < ub : a->id > b->id;
  });
  std::vector<TokenId> order;
  for (TokenId id = static_cast<TokenId>(removable.size()); id-- > 0;)
    if (removable[id] != 0 && seen[id] == 0) order.push_back(id);
  for (const AllocationEntry* e : listed) order.push_back(e->id);
  return order;
}

// The pruning checkpoints: sizes kept, largest first, each checked.
std::vector<std::size_t> checkpoints(const AllocationInput& input, std::size_t size,
                                     std::size_t smallest) {
  std::vector<std::size_t> sizes = input.sizes;
  if (sizes.empty()) {
    sizes.push_back(size);
    for (std::size_t p = std::size_t{1} << 62; p > 0; p >>= 1)
      if (p < size && p > smallest) sizes.push_back(p);
    sizes.push_back(smallest);
  }
  for (const std::size_t s : sizes)
    if (s < smallest || s > size)
      throw Error("allocation: a vocabulary size of " + std::to_string(s) +
                  " cannot be reached: the method can take out " + std::to_string(size - smallest) +
                  " of " + std::to_string(size) + " ids, so sizes run from " +
                  std::to_string(smallest) + " to " + std::to_string(size));
  // The whole vocabulary's saving is read between these two.
  sizes.push_back(size);
  sizes.push_back(smallest);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Each language's tokens with the first removed entries of order taken out,
// re-encoding only the atoms that build one of them.
std::vector<std::uint64_t> tokens_without(const InferenceEngine& engine, InferenceMethod method,
                                          const std::vector<Atom>& atoms,
                                          const std::vector<AtomResult>& results,
                                          const std::vector<std::uint8_t>& disabled,
                                          const std::vector<std::uint64_t>& fixed,
                                          unsigned threads) {
  std::vector<std::uint32_t> length(atoms.size());
  parallel_for_workers(atoms.size(), threads, [&](unsigned, std::size_t a) {
    const auto& made = results[a].made;
    const bool touched = std::any_of(made.begin(), made.end(), [&](TokenId id) {
      return id < disabled.size() && disabled[id] != 0;
    });
    length[a] = results[a].tokens;
    if (!touched) return;
    std::vector<TokenId> ids;
    engine.encode_without(method, atoms[a].text, disabled, ids);
    length[a] = static_cast<std::uint32_t>(ids.size());
  });
  std::vector<std::uint64_t> tokens = fixed;
  for (std::size_t a = 0; a < atoms.size(); ++a)
    for (const auto& [l, count] : atoms[a].counts) tokens[l] += count * length[a];
  return tokens;
}

// Text entries (not byte pieces) that no atom uses or builds.
std::size_t count_unused(const InferenceVocabulary& v,
                         const std::vector<AllocationEntry>& entries) {
  std::vector<std::uint8_t> skip(v.pieces.size(), 0);
  for (const TokenId id : v.byte_pieces)
    if (id < skip.size()) skip[id] = 1;
  for (const auto& e : entries) skip[e.id] = 1;
  std::size_t unused = 0;
  for (TokenId id = 0; id < v.pieces.size(); ++id)
    unused += !v.pieces[id].empty() && skip[id] == 0 && !(v.unknown && *v.unknown == id) ? 1 : 0;
  return unused;
}

// Each entry's value split across the languages in proportion to what it saves
// each (relative to the language's tokens), summed per language.
void add_shares(VocabularyAllocation& a, const std::vector<std::uint64_t>& tokens) {
  for (const auto& e : a.entries) {
    bool saves = false;
    for (std::size_t l = 0; l < tokens.size(); ++l) {
      if (e.saved[l] <= 0 || tokens[l] == 0 || e.value <= 0.0) continue;
      saves = true;
      a.per_language[l].served_entries +=
          static_cast<double>(e.saved[l]) / static_cast<double>(tokens[l]) / e.value;
    }
    if (!saves && e.removable) ++a.no_savings;
  }
  for (auto& l : a.per_language)
    l.vocabulary_share =
        a.vocabulary_size > 0 ? l.served_entries / static_cast<double>(a.vocabulary_size) : 0.0;
}

// The odd-numbered texts' counts (slots n..2n) added to their language's.
void fold_slots(std::vector<AllocationEntry>& entries, std::vector<std::uint64_t>& tokens,
                std::size_t n) {
  if (tokens.size() == n) return;
  for (auto& e : entries) {
    for (std::size_t l = 0; l < n; ++l) {
      e.uses[l] += e.uses[n + l];
      e.saved[l] += e.saved[n + l];
    }
    e.uses.resize(n);
    e.saved.resize(n);
  }
  for (std::size_t l = 0; l < n; ++l) tokens[l] += tokens[n + l];
  tokens.resize(n);
}

// Pieces, removal ranks, the unused count and the per-language rows.
void describe_entries(VocabularyAllocation& a, const InferenceVocabulary& v,
                      const std::vector<TokenId>& order, const std::vector<std::uint64_t>& tokens) {
  std::vector<std::size_t> rank(a.vocabulary_size, 0);
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  for (auto& e : a.entries) {
    e.piece = v.pieces[e.id];
    e.removal_rank = e.removable ? rank[e.id] : 0;
  }
  for (std::size_t l = 0; l < a.languages.size(); ++l) {
    AllocationLanguage lang{.language = a.languages[l], .tokens = tokens[l]};
    for (const auto& e : a.entries) lang.entries_used += e.uses[l] > 0 ? 1 : 0;
    a.per_language.push_back(lang);
  }
  a.unused = count_unused(v, a.entries);
}

void add_pruning(VocabularyAllocation& a, const InferenceEngine& engine, InferenceMethod method,
                 const AllocationInput& input, const std::vector<Atom>& atoms,
                 const std::vector<AtomResult>& results, const std::vector<TokenId>& order,
                 const std::vector<std::uint64_t>& fixed, unsigned threads) {
  std::vector<std::uint8_t> disabled(engine.vocabulary().pieces.size(), 0);
  std::size_t removed = 0;
  for (const std::size_t kept :
       checkpoints(input, a.vocabulary_size, a.vocabulary_size - order.size())) {
    for (; removed < a.vocabulary_size - kept; ++removed) disabled[order[removed]] = 1;
    a.pruning.push_back(
        {kept, tokens_without(engine, method, atoms, results, disabled, fixed, threads)});
  }
}

}  // namespace

double VocabularyAllocation::saved_per_million(std::size_t language, std::size_t d_model) const {
  const double parameters =
      static_cast<double>(vocabulary_size) * static_cast<double>(d_model) / 1e6;
  return parameters > 0.0
             ? static_cast<double>(per_language.at(language).saved_by_vocabulary) / parameters
             : 0.0;
}

InferenceMethod allocation_method(const InferenceSubject& subject, bool& exact) {
  const InferenceEngine& engine = subject.engine();
  exact = true;
  if (engine.supports(InferenceMethod::merges)) return InferenceMethod::merges;
  if (engine.supports(InferenceMethod::likelihood)) return InferenceMethod::likelihood;
  if (engine.vocabulary().whole_word_unknown) return InferenceMethod::longest_prefix;
  exact = false;
  return InferenceMethod::fewest_tokens;
}

}  // namespace tokenlab

namespace tokenlab {

VocabularyAllocation allocate_vocabulary(const InferenceSubject& subject,
                                         const AllocationInput& input) {
  if (input.texts.size() != input.languages.size())
    throw Error("allocation: " + std::to_string(input.texts.size()) + " texts for " +
                std::to_string(input.languages.size()) + " languages");
  const unsigned threads = resolve_threads(input.threads);
  const InferenceEngine& engine = subject.engine();
  const std::size_t n = input.languages.size();
  VocabularyAllocation a;
  const InferenceMethod method = allocation_method(subject, a.exact);
  a.method = inference_method_name(method);
  a.languages = input.languages;
  a.held_out_order = input.held_out_order;
  a.vocabulary_size = engine.vocabulary().pieces.size();
  const std::vector<std::uint8_t> removable = removable_entries(engine.vocabulary());
  a.removable = static_cast<std::size_t>(std::count(removable.begin(), removable.end(), 1));

  Collected collected = collect_units(subject, input, threads);
  a.units = collected.occurrences;
  a.distinct_units = collected.units.size();
  Atoms atoms = make_atoms(engine, method, collected.units, threads);
  a.differing_units = atoms.differing_units;
  collected.units.clear();

  std::vector<AtomResult> results(atoms.atoms.size());
  std::vector<std::vector<std::uint8_t>> scratch(threads,
                                                 std::vector<std::uint8_t>(a.vocabulary_size, 0));
  parallel_for_workers(atoms.atoms.size(), threads, [&](unsigned w, std::size_t i) {
    results[i] = measure_atom(engine, method, atoms.atoms[i].text, removable, scratch[w]);
  });
  // Slots: the languages, then (held_out_order) their odd-numbered texts.
  const std::size_t slots = collected.fixed_tokens.size();
  a.entries = sum_entries(atoms.atoms, results, removable, slots);
  std::vector<std::uint64_t> tokens = collected.fixed_tokens;
  for (std::size_t i = 0; i < atoms.atoms.size(); ++i)
    for (const auto& [l, count] : atoms.atoms[i].counts) tokens[l] += count * results[i].tokens;
  set_values(a.entries, tokens, n);  // the even-numbered texts only, with held_out_order
  const std::vector<TokenId> order = removal_order(a.entries, removable, n);
  fold_slots(a.entries, tokens, n);
  set_values(a.entries, tokens, n);
  describe_entries(a, engine.vocabulary(), order, tokens);
  add_shares(a, tokens);
  add_pruning(a, engine, method, input, atoms.atoms, results, order, collected.fixed_tokens,
              threads);
  // Every removable entry out is the same set in any order: the saving over all the text.
  const std::vector<std::uint64_t>& bare = a.pruning.back().tokens;
  for (std::size_t l = 0; l < n; ++l)
    a.per_language[l].saved_by_vocabulary =
        static_cast<std::int64_t>(bare[l] + (slots > n ? bare[n + l] : 0)) -
        static_cast<std::int64_t>(tokens[l]);
  for (auto& point : a.pruning)  // the curve is read on the odd-numbered texts
    if (point.tokens.size() > n) point.tokens.erase(point.tokens.begin(), point.tokens.begin() + n);
  return a;
}

}  // namespace tokenlab
