// WordPiece training, step 3: the entry points (WordPieceSegmenter::train, which
// lays out the specials and hands the rest to train_likelihood) and the automatic
// min_frequency search, which runs the trainer (wordpiece_trainer_state.hpp) at
// trial thresholds.

#include "tokenlab/wordpiece/wordpiece_trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"
#include "wordpiece_trainer_state.hpp"

namespace tokenlab::wordpiece {

std::string format_score(double score) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", score);
  return buffer;
}

namespace {

using detail::Trainer;

// Keeps a trial run's messages, to pass on if that trial is the one kept.
class MessageRecorder final : public TrainingObserver {
 public:
  void on_message(std::string_view message) override { messages.emplace_back(message); }
  std::vector<std::string> messages;
};

TrainerResult run_trainer(const WordCounts& counts, TrainerConfig config, std::uint64_t threshold,
                          TrainingObserver* observer) {
  config.min_frequency = threshold;
  Trainer trainer(counts, config, observer);
  return trainer.run();
}

// min_frequency 0: the largest threshold at which training still reaches its
// target (vocab_size, or max_steps), found by trisection. See trainer.hpp.
//
// Invariant: lo_ reaches the target (assumed for the floor), hi_ does not (or is
// the cap, not tried yet). The floor is 2, not 1: a pair seen once carries no
// evidence, and the likelihood score ranks such pairs highest, so when even 2
// cannot reach the target the vocabulary stays smaller instead of filling up
// with one-off pairs. The thresholds tried never depend on the thread count, so
// neither does the result; with two threads a round's two trials run at once.
class ThresholdSearch {
 public:
  ThresholdSearch(const WordCounts& counts, const TrainerConfig& config)
      : counts_(counts), config_(config), threads_(resolve_threads(config.threads)) {
    std::uint64_t occurrences = 0;
    for (const auto& e : counts.entries()) occurrences += e.count;
    cap_ = occurrences / std::max<std::uint64_t>(config.vocab_size, 1);
  }

  TrainerResult run(TrainingObserver* observer) {
    if (cap_ <= 1) {
      TrainerResult result = run_trainer(counts_, config_, 1, observer);
      if (observer != nullptr)
        observer->on_message(
            "min_frequency 0 (automatic): 1, since the corpus has fewer than 2 word occurrences "
            "per vocabulary entry");
      return result;
    }
    lo_ = 2;
    hi_ = cap_;
    Trial first{cap_, {}, {}};
    run_trial(first, threads_);
    if (first.result->reached_target) {
      lo_ = cap_;
      keep(first);
    } else {
      while (hi_ - lo_ > std::max<std::uint64_t>(1, lo_ / 16)) {
        narrow();
        if (observer != nullptr)
          observer->on_progress("min_frequency search",
                                1.0 - static_cast<double>(hi_ - lo_) / static_cast<double>(cap_));
      }
    }
    TrainerResult result = final_result(observer);
    // Last, so that a one-line summary (compare's note column) shows it.
    if (observer != nullptr)
      observer->on_message(
          "min_frequency 0 (automatic): " + std::to_string(lo_) +
          ", the largest threshold, at least 2 (trisection to 1/16, " + std::to_string(trials_) +
          " trial runs, at most " + std::to_string(cap_) +
          " = word occurrences per vocabulary entry) at which training still reaches its "
          "target; pairs rarer than that are never merged (set min_frequency 1 to merge any "
          "pair)");
    return result;
  }

 private:
  struct Trial {
    std::uint64_t threshold = 0;
    MessageRecorder messages;
    std::optional<TrainerResult> result;
  };

  void run_trial(Trial& t, unsigned threads) {
    TrainerConfig own = config_;
    own.threads = threads;
    t.result = run_trainer(counts_, own, t.threshold, &t.messages);
    ++trials_;
  }

  void keep(Trial& t) {
    kept_ = std::move(t.result);
    kept_threshold_ = t.threshold;
    kept_messages_ = std::move(t.messages);
  }

  // One round: two trials at the thirds of (lo, hi), or one midpoint when the
  // interval is too narrow for two distinct points.
  void narrow() {
    Trial low{lo_ + (hi_ - lo_) / 3, {}, {}};
    Trial high{lo_ + 2 * (hi_ - lo_) / 3, {}, {}};
    if (high.threshold == low.threshold || low.threshold == lo_) {
      Trial mid{lo_ + (hi_ - lo_) / 2, {}, {}};
      run_trial(mid, threads_);
      if (mid.result->reached_target) {
        lo_ = mid.threshold;
        keep(mid);
      } else {
        hi_ = mid.threshold;
      }
      return;
    }
    if (threads_ >= 2) {
      // Both trials at once; parallel_for joins both before an error escapes.
      parallel_for(2, 2, [&](std::size_t i) { run_trial(i == 0 ? low : high, 1); });
    } else {
      run_trial(low, 1);
      run_trial(high, 1);
    }
    if (high.result->reached_target) {
      lo_ = high.threshold;
      keep(high);
    } else if (low.result->reached_target) {
      lo_ = low.threshold;
      hi_ = high.threshold;
      keep(low);
    } else {
      hi_ = low.threshold;
    }
  }

  // The kept trial at lo, or a rerun at lo (when no trial ran there, or when
  // the observer wants a trace, which trials never record).
  TrainerResult final_result(TrainingObserver* observer) {
    if (kept_ && kept_threshold_ == lo_ && (observer == nullptr || !observer->trace())) {
      if (observer != nullptr) {
        for (const auto& m : kept_messages_.messages) observer->on_message(m);
        observer->on_progress("merges", 1.0);
      }
      return std::move(*kept_);
    }
    return run_trainer(counts_, config_, lo_, observer);
  }

  const WordCounts& counts_;
  const TrainerConfig& config_;
  const unsigned threads_;
  std::uint64_t cap_ = 0;
  std::uint64_t lo_ = 2;
  std::uint64_t hi_ = 0;
  std::size_t trials_ = 0;
  std::optional<TrainerResult> kept_;
  std::uint64_t kept_threshold_ = 0;
  MessageRecorder kept_messages_;
};

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
  return ThresholdSearch(counts, config).run(observer);
}

namespace {

const std::vector<std::string>& default_specials() {
  static const std::vector<std::string> specials{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  return specials;
}

}  // namespace

void WordPieceSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                               TrainingObserver* observer) {
  const OptionReader reader(
      "wordpiece", options.extra,
      {{"continuation_prefix", "prefix of non-initial pieces (default ##)"},
       {"max_input_chars_per_word", "longer words encode to [UNK] (default 100)"}});
  TrainerConfig config;
  config.continuation_prefix = reader.get_string("continuation_prefix", "##");
  config.max_input_chars_per_word = static_cast<std::size_t>(
      reader.get_uint("max_input_chars_per_word", 100, 1, kMaxInputCharsLimit));
  config.vocab_size = options.vocab_size;
  config.min_frequency = options.min_frequency;
  config.max_steps = options.max_steps;
  config.character_coverage = options.character_coverage;
  config.threads = options.threads;

  // Specials by the shared rule (vocabulary_layout.hpp): BERT's five by default;
  // the unknown token is "[UNK]" or "<unk>", and BERT's encoding needs one, so
  // "[UNK]" is added first when a given list has neither. The alphabet is the
  // trainer's (both forms of each character), so none is placed here.
  Vocabulary vocabulary = lay_out_vocabulary(counts, options,
                                             {.plugin = "wordpiece",
                                              .default_specials = default_specials(),
                                              .unknown_spellings = {"[UNK]", "<unk>"},
                                              .base = BaseUnits::none},
                                             observer)
                              .vocabulary;
  config.special_tokens = vocabulary.pieces();
  const TokenId unknown = *vocabulary.unknown_id();

  TrainerResult result = train_likelihood(counts, config, observer);
  for (auto& piece : result.pieces) vocabulary.add(std::move(piece));
  std::vector<TokenId> reserved(config.special_tokens.size());
  for (TokenId id = 0; id < reserved.size(); ++id) reserved[id] = id;
  install(std::move(vocabulary), config.continuation_prefix, config.max_input_chars_per_word, false,
          false, unknown, std::move(reserved));
  merges_ = std::move(result.merges);
}

}  // namespace tokenlab::wordpiece
