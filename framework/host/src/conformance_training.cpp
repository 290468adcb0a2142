// The checks on a plugin's identity and its training: the descriptor, training at
// all, determinism, vocab_size, max_steps, that the vocabulary is used, and
// unknown options.
#include <set>
#include <span>

#include "conformance_internal.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::conformance {

namespace {

// Far more entries than the corpus supports: a plugin stops short, and says why.
constexpr std::size_t kHighVocabSize = 10000;
// What `tokenlab trace --merges 3` asks for.
constexpr std::size_t kMaxSteps = 3;
// For frequent_word_counts(): room for many pieces beyond its ten letters.
constexpr std::size_t kRoomyVocabSize = 100;
// Tokens per character (weighted by count) a model that uses its pieces stays under
// on frequent_word_counts(): the built-in plugins give 0.15 to 0.3 and the example
// 0.39; n-grams taken in hash-table order (tests/broken_plugins) give 0.98.
constexpr double kMaxTokensPerCharacter = 0.5;

// The example's description, which a plugin copied by hand ships under another
// name when its author forgot to write one (new-plugin writes kNewPluginPlaceholder).
constexpr std::string_view kExampleName = "ngram";
constexpr std::string_view kExampleMarker = "(example plugin)";

// What a training said: its notes and, when tracing, how many steps it reported.
struct Listener final : TrainingObserver {
  explicit Listener(bool trace_steps) : tracing(trace_steps) {}
  void on_message(std::string_view message) override { notes.emplace_back(message); }
  void on_step(const TrainingStep&) override { ++steps; }
  [[nodiscard]] bool trace() const override { return tracing; }

  bool tracing;
  std::vector<std::string> notes;
  std::size_t steps = 0;
};

// One training of a fresh segmenter at a vocab_size: what it made and said.
struct Sized {
  std::size_t requested = 0;
  std::size_t size = 0;
  std::vector<std::string> notes;
};

Sized train_sized(const Run& run, std::size_t vocab_size) {
  auto segmenter = run.fresh();
  TrainOptions options = run.options;
  options.vocab_size = vocab_size;
  Listener listener(false);
  segmenter->train(run.counts, options, &listener);
  return {vocab_size, segmenter->vocabulary().size(), std::move(listener.notes)};
}

std::string n(std::size_t value) {
  return std::to_string(value);
}

// "" when the size is right: the request exactly, or fewer with a note saying why.
std::string size_problem(const Sized& t, const std::string& which) {
  const std::string asked =
      "asked for " + n(t.requested) + " entries" + which + ", got " + n(t.size);
  if (t.size > t.requested)
    return asked +
           ": a vocabulary never holds more than vocab_size entries, special tokens included";
  if (t.size < t.requested && t.notes.empty())
    return asked +
           " and no note: when the corpus supports fewer entries than vocab_size, say so "
           "(observer->on_message; compare shows it beside the size)";
  return {};
}

std::string describe(const Sized& t) {
  std::string out = n(t.requested) + " -> " + n(t.size);
  if (t.size == t.requested || t.notes.empty()) return out;
  std::string note = t.notes.front();
  if (note.size() > 70) {  // cut at a character boundary
    std::size_t cut = 67;
    while (cut > 0 && (static_cast<unsigned char>(note[cut]) & 0xC0) == 0x80) --cut;
    note = note.substr(0, cut) + "...";
  }
  return out + " (\"" + note + "\"" +
         (t.notes.size() > 1 ? " +" + n(t.notes.size() - 1) + " more" : std::string()) + ")";
}

// Whether the model holds a piece of two characters or more (specials and byte
// pieces aside): a model of single characters is character-level by design.
bool has_longer_pieces(const Segmenter& s) {
  const Vocabulary& vocabulary = s.vocabulary();
  const auto bytes = byte_fallback_ids(vocabulary);
  const std::set<TokenId> exempt(bytes.begin(), bytes.end());
  for (TokenId id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.is_special(id) || exempt.count(id) > 0) continue;
    if (utf8::count_code_points(s.decode(std::span<const TokenId>(&id, 1))) > 1) return true;
  }
  return false;
}

}  // namespace

bool creates(Run& run, std::string& d) {
  run.segmenter = run.fresh();
  d = run.segmenter->name() + " " + run.segmenter->version();
  return true;
}

bool descriptor_matches(Run& run, std::string& d) {
  const PluginInfo& info = run.registry.info(run.plugin);
  const Segmenter& s = *run.segmenter;
  std::vector<std::string> wrong;
  if (s.name() != info.name)
    wrong.push_back("name() '" + s.name() + "', expected '" + info.name + "'");
  if (s.version() != info.version)
    wrong.push_back("version() '" + s.version() + "', expected '" + info.version + "'");
  if (s.capabilities() != info.capabilities)
    wrong.push_back("capabilities() " + std::to_string(s.capabilities()) + ", expected " +
                    std::to_string(info.capabilities));
  if (info.description.empty()) wrong.push_back("the description is empty, expected one line");
  for (const auto& w : wrong) d += (d.empty() ? "" : "; ") + w;
  if (!wrong.empty())
    d += " (the descriptor's values; declare kName, kVersion, kCapabilities once)";
  const std::string replace = ": replace kDescription with one line saying what " + info.name +
                              " does (tokenlab plugins shows it)";
  if (info.description.find(kNewPluginPlaceholder) != std::string::npos)
    run.warning = "the description is still the placeholder tokenlab new-plugin wrote" + replace;
  else if (info.description.find(kExampleMarker) != std::string::npos && info.name != kExampleName)
    run.warning = "the description is the example plugin's ('" + info.description + "')" + replace;
  return wrong.empty();
}

bool trains(Run& run, std::string& d) {
  Listener listener(false);
  run.segmenter->train(run.counts, run.options, &listener);
  run.notes = std::move(listener.notes);
  const std::size_t size = run.vocabulary().size();
  d = "vocabulary size " + n(size);
  if (size == 0) d = "expected a vocabulary, got 0 entries";
  return size > 0;
}

bool deterministic_training(Run& run, std::string& d) {
  auto other = run.fresh();
  TrainOptions two = run.options;
  two.threads = 2;
  other->train(run.counts, two, nullptr);
  const bool same = saved_bytes(*other) == saved_bytes(*run.segmenter);
  if (!same) d = "expected the same save() bytes at threads=1 and threads=2, they differ";
  return same;
}

bool honours_vocab_size(Run& run, std::string& d) {
  // At the suite's size, far above what the corpus supports, and at half of what
  // the plugin reaches: exactly the request each time, or fewer with a note.
  const Sized main{run.options.vocab_size, run.vocabulary().size(), run.notes};
  d = size_problem(main, "");
  if (!d.empty()) return false;
  const Sized high = train_sized(run, kHighVocabSize);
  d = size_problem(high, " (far more than this corpus supports)");
  if (!d.empty()) return false;
  if (high.size < 4) {
    d = describe(main) + ", " + describe(high) + "; too few entries to train below them";
    return true;
  }
  const Sized low = train_sized(run, high.size / 2);
  d = size_problem(low, " (half of the " + n(high.size) + " it reaches)");
  if (!d.empty()) return false;
  d = describe(main) + ", " + describe(high) + ", " + describe(low);
  return true;
}

bool honours_max_steps(Run& run, std::string& d) {
  if (!(run.segmenter->capabilities() & kCapabilityTrace)) {
    d = "not checked: no trace capability, so no steps to count";
    return true;
  }
  // As tokenlab trace --merges 3 asks: a large vocab_size, max_steps 3, tracing on.
  auto s = run.fresh();
  TrainOptions options = run.options;
  options.vocab_size = kHighVocabSize;
  options.max_steps = kMaxSteps;
  Listener listener(true);
  s->train(run.counts, options, &listener);
  d = n(listener.steps) + " steps with max_steps = " + n(kMaxSteps);
  if (listener.steps == 0)
    d = "expected steps (observer->on_step) from a plugin that declares kCapabilityTrace, got none";
  else if (listener.steps > kMaxSteps)
    d = "expected at most " + n(kMaxSteps) + " steps with max_steps = " + n(kMaxSteps) +
        " (tokenlab trace --merges " + n(kMaxSteps) + "), got " + n(listener.steps) +
        ": stop after options.max_steps steps when it is not 0";
  return listener.steps > 0 && listener.steps <= kMaxSteps;
}

bool uses_its_pieces(Run& run, std::string& d) {
  // Six frequent words over ten letters, 300 rare ones, and room for ~85 pieces:
  // a trainer that weighs pieces by their counts encodes the frequent words in a
  // token or two. On a thread of its own, so that no per-thread cache of the
  // suite's model answers for this one (two_models checks that).
  const WordCounts counts = frequent_word_counts();
  return on_fresh_thread([&] {
    auto s = run.fresh();
    TrainOptions options = run.options;
    options.vocab_size = kRoomyVocabSize;
    s->train(counts, options, nullptr);
    if (!has_longer_pieces(*s)) {
      d = "not checked: every piece is one character (a character-level model)";
      return true;
    }
    double tokens = 0;
    double characters = 0;
    for (const auto& e : counts.entries()) {
      const auto count = static_cast<double>(e.count);
      tokens += count * static_cast<double>(encode_one(*s, e.word).size());
      characters += count * static_cast<double>(utf8::count_code_points(e.word));
    }
    const double ratio = tokens / characters;
    const std::string measured = std::to_string(ratio).substr(0, 4) +
                                 " tokens per character (weighted by count) with vocab_size " +
                                 n(kRoomyVocabSize) + " for a ten-letter alphabet";
    d = measured;
    if (ratio <= kMaxTokensPerCharacter) return true;
    d = "expected at most " + std::to_string(kMaxTokensPerCharacter).substr(0, 4) + ", got " +
        measured +
        " on 'lowest' x400, 'newest' x300, ... and 300 rare words: pieces chosen "
        "without regard to their counts (in unordered_map order, say)";
    return false;
  });
}

bool unknown_option(Run& run, std::string& d) {
  auto other = run.fresh();
  TrainOptions bad = run.options;
  bad.extra["no_such_option"] = "1";
  try {
    other->train(run.counts, bad, nullptr);
  } catch (const Error& e) {
    d = e.what();
    if (d.find("no_such_option") != std::string::npos && d.find("valid") != std::string::npos)
      return true;
    d = "expected the message to name no_such_option and the valid options, got: " + d;
    return false;
  }
  d = "expected train() to throw tokenlab::Error for no_such_option=1, it accepted it";
  return false;
}

}  // namespace tokenlab::conformance
