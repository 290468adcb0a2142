// BPE training: the alphabet, byte pieces, the training words and the merge loop.
#include "bpe_model_data.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::bpe {

namespace {

using Model = BpeSegmenter::Model;

enum class ByteFallback { automatic, on, off };

struct Settings {
  Units units = Units::kChars;
  std::size_t max_token_length = 0;
  ByteFallback byte_fallback = ByteFallback::automatic;
  TieBreak tie_break = TieBreak::kFirstSeen;
  double dropout = 0.0;
};

Settings read_settings(const TrainOptions& options) {
  OptionReader reader(
      "bpe", options.extra,
      {{"units", "chars|bytes, default chars"},
       {"max_token_length", "longest piece in units, 0 = no limit, default 0"},
       {"byte_fallback",
        "auto|true|false, default auto (true when vocab_size has room for the 256 byte pieces "
        "beside the alphabet): characters outside the alphabet as <0xNN> bytes"},
       {"tie_break", "first-seen|hf, default first-seen"},
       {"dropout", "0..1, the model's default BPE-dropout for sampling, default 0"}});
  Settings s;
  s.units = reader.get_choice("units", {"chars", "bytes"}, "chars") == "bytes" ? Units::kBytes
                                                                               : Units::kChars;
  s.max_token_length = reader.get_uint("max_token_length", 0, 0, 1u << 20);
  const std::string fallback =
      reader.get_choice("byte_fallback", {"auto", "true", "false"}, "auto");
  s.byte_fallback = fallback == "true"    ? ByteFallback::on
                    : fallback == "false" ? ByteFallback::off
                                          : ByteFallback::automatic;
  s.tie_break = reader.get_choice("tie_break", {"first-seen", "hf"}, "first-seen") == "hf"
                    ? TieBreak::kSmallerIds
                    : TieBreak::kFirstSeen;
  s.dropout = reader.get_double("dropout", 0.0, 0.0, 1.0);
  if (s.units == Units::kBytes && s.byte_fallback == ByteFallback::on)
    throw Error(
        "bpe: byte_fallback=true needs units=chars (byte-level BPE never has unknown units)");
  if (!(options.character_coverage > 0.0 && options.character_coverage <= 1.0))
    throw Error("bpe: character_coverage must be in (0, 1]");
  return s;
}

// The words as the trainer sees them: maximal runs of alphabet units, one trainer
// word per run, in corpus order.
struct TrainingWords {
  MergeTrainerInput input;
  std::vector<std::uint32_t> first_segment;  // per word, then the total
  std::uint64_t unknown_tokens = 0;          // weighted tokens outside the runs
};

TrainingWords build_training_words(const Model& model, const WordCounts& counts, unsigned threads) {
  const auto& entries = counts.entries();
  const std::size_t chunks = (entries.size() + kBuildChunkWords - 1) / kBuildChunkWords;
  struct Local {
    std::vector<TokenId> symbols;
    std::vector<std::uint32_t> lengths;
    std::vector<std::uint64_t> counts;
    std::vector<std::uint32_t> segments_per_word;
    std::uint64_t unknown_tokens = 0;
  };
  std::vector<Local> locals(chunks);
  parallel_for(chunks, threads, [&](std::size_t k) {
    Local& local = locals[k];
    const std::size_t end = std::min(entries.size(), (k + 1) * kBuildChunkWords);
    for (std::size_t w = k * kBuildChunkWords; w < end; ++w) {
      const std::uint64_t c = entries[w].count;
      std::uint32_t run = 0;
      std::uint32_t segments = 0;
      const auto close_run = [&] {
        if (run == 0) return;
        local.lengths.push_back(run);
        local.counts.push_back(c);
        ++segments;
        run = 0;
      };
      model.for_each_unit(
          entries[w].word,
          [&](TokenId id) {
            local.symbols.push_back(id);
            ++run;
          },
          [&](std::string_view bytes) {
            close_run();
            model.emit_unknown(bytes, [&](TokenId id) {
              if (id != kBarrier) local.unknown_tokens += c;
            });
          });
      close_run();
      local.segments_per_word.push_back(segments);
    }
  });
  TrainingWords out;
  std::size_t symbol_total = 0;
  std::size_t segment_total = 0;
  for (const Local& l : locals) {
    symbol_total += l.symbols.size();
    segment_total += l.lengths.size();
  }
  if (symbol_total >= std::numeric_limits<std::uint32_t>::max())
    throw Error("bpe: the distinct words hold too many characters (at most 2^32 - 1)");
  out.input.symbols.reserve(symbol_total);
  out.input.offsets.reserve(segment_total + 1);
  out.input.counts.reserve(segment_total);
  out.first_segment.reserve(entries.size() + 1);
  out.input.offsets.push_back(0);
  std::uint32_t segment = 0;
  for (Local& l : locals) {
    out.input.symbols.insert(out.input.symbols.end(), l.symbols.begin(), l.symbols.end());
    for (const std::uint32_t len : l.lengths)
      out.input.offsets.push_back(out.input.offsets.back() + len);
    out.input.counts.insert(out.input.counts.end(), l.counts.begin(), l.counts.end());
    for (const std::uint32_t s : l.segments_per_word) {
      out.first_segment.push_back(segment);
      segment += s;
    }
    out.unknown_tokens += l.unknown_tokens;
    l = Local{};
  }
  out.first_segment.push_back(segment);
  return out;
}

class VocabularySink final : public MergeSink {
 public:
  VocabularySink(Model& model, std::size_t target, std::size_t max_merges,
                 TrainingObserver* observer, std::uint64_t unknown_tokens)
      : model_(model),
        target_(target),
        max_merges_(max_merges),
        start_(model.vocab.size()),
        observer_(observer),
        trace_(observer != nullptr && observer->trace()),
        unknown_tokens_(unknown_tokens) {}

  [[nodiscard]] bool done() const override {
    return model_.vocab.size() >= target_ ||
           (max_merges_ > 0 && model_.merges.size() >= max_merges_);
  }

  std::optional<TokenId> create(TokenId left, TokenId right) override {
    std::string piece = model_.vocab.piece(left);
    piece += model_.vocab.piece(right);
    if (model_.vocab.contains(piece)) return std::nullopt;
    return model_.vocab.add(std::move(piece));
  }

  void merged(const MergeRule& rule, std::uint64_t count, std::uint64_t tokens) override {
    model_.merges.push_back(rule);
    if (observer_ == nullptr) return;
    if (trace_) {
      TrainingStep step;
      step.kind = "merge";
      step.index = model_.merges.size();
      step.fields = {{"pair", display(rule.left) + " + " + display(rule.right)},
                     {"count", std::to_string(count)},
                     {"tokens", std::to_string(tokens + unknown_tokens_)},
                     {"vocabulary", std::to_string(model_.vocab.size())}};
      observer_->on_step(step);
    }
    const std::size_t span = target_ > start_ ? target_ - start_ : 1;
    const std::size_t percent = (model_.vocab.size() - start_) * 100 / span;
    if (percent != last_percent_) {
      last_percent_ = percent;
      observer_->on_progress("bpe merges", std::min(1.0, static_cast<double>(percent) / 100.0));
    }
  }

 private:
  [[nodiscard]] std::string display(TokenId id) const {
    const std::string& piece = model_.vocab.piece(id);
    return model_.units == Units::kBytes ? bytes_display(piece) : piece;
  }

  Model& model_;
  std::size_t target_;
  std::size_t max_merges_;
  std::size_t start_;
  TrainingObserver* observer_;
  bool trace_;
  std::uint64_t unknown_tokens_;
  std::size_t last_percent_ = 0;
};

// ---- training steps ---------------------------------------------------------

// The vocabulary before any merge, by the rule every trainer shares
// (vocabulary_layout.hpp): special tokens, the 256 byte pieces when byte fallback
// is on, then the base alphabet (characters, or the 256 bytes with units=bytes).
// BPE's part of the rule: an explicit special-token list without "<unk>" means no
// unknown token (the textbook example has no special tokens at all), and
// byte-level BPE has none, since every byte is a base unit.
void lay_out_base_vocabulary(Model& model, const Settings& settings, const WordCounts& counts,
                             const TrainOptions& options, TrainingObserver* observer) {
  const bool bytes = settings.units == Units::kBytes;
  LayoutRule rule{.plugin = "bpe"};
  rule.default_specials = bytes ? std::vector<std::string>{} : std::vector<std::string>{"<unk>"};
  rule.unknown = bytes ? UnknownToken::none : UnknownToken::when_listed;
  rule.byte_pieces = bytes                                               ? BytePieces::off
                     : settings.byte_fallback == ByteFallback::on        ? BytePieces::on
                     : settings.byte_fallback == ByteFallback::automatic ? BytePieces::automatic
                                                                         : BytePieces::off;
  rule.base = bytes ? BaseUnits::bytes : BaseUnits::characters;
  VocabularyLayout layout = lay_out_vocabulary(counts, options, rule, observer);
  model.vocab = std::move(layout.vocabulary);
  model.byte_fallback = layout.byte_fallback();
  if (model.byte_fallback)
    for (unsigned b = 0; b < 256; ++b)
      model.fallback_ids.push_back(static_cast<TokenId>(*layout.first_byte_piece + b));
  model.base_ids = std::move(layout.base_ids);
}

// What training stopped on, for the observer.
void report_stop(const Model& model, StopReason reason, const TrainOptions& options,
                 TrainingObserver* observer) {
  if (observer == nullptr) return;
  const std::string size = std::to_string(model.vocab.size());
  switch (reason) {
    case StopReason::kSinkDone:
      observer->on_message("bpe: reached vocabulary size " + size + " after " +
                           std::to_string(model.merges.size()) + " merges");
      break;
    case StopReason::kBelowMinCount:
      observer->on_message("bpe: stopped at vocabulary size " + size +
                           ": no remaining pair occurs at least " +
                           std::to_string(std::max<std::uint64_t>(1, options.min_frequency)) +
                           " times (min_frequency)");
      break;
    case StopReason::kNoPairs:
      observer->on_message("bpe: stopped at vocabulary size " + size + ": no pair left to merge");
      break;
  }
  observer->on_progress("bpe merges", 1.0);
}

// Each training word's segmentation under the merges learned (only the lab's
// BPE walkthrough asks for it).
void final_segmentation_of(const Model& model, const WordCounts& counts, const TrainingWords& words,
                           const MergeTrainer& trainer,
                           std::vector<std::vector<TokenId>>& segmentation) {
  const auto& entries = counts.entries();
  segmentation.assign(entries.size(), {});
  for (std::size_t w = 0; w < entries.size(); ++w) {
    auto& out = segmentation[w];
    std::uint32_t segment = words.first_segment[w];
    bool in_run = false;
    const auto close_run = [&] {
      if (!in_run) return;
      const auto ids = trainer.word(segment++);
      out.insert(out.end(), ids.begin(), ids.end());
      in_run = false;
    };
    model.for_each_unit(
        entries[w].word, [&](TokenId) { in_run = true; },
        [&](std::string_view bytes) {
          close_run();
          model.emit_unknown(bytes, [&](TokenId id) {
            if (id != kBarrier) out.push_back(id);
          });
        });
    close_run();
  }
}

}  // namespace

void BpeSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                         TrainingObserver* observer) {
  train(counts, options, observer, nullptr);
}

void BpeSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                         TrainingObserver* observer,
                         std::vector<std::vector<TokenId>>* final_segmentation) {
  const Settings settings = read_settings(options);
  const unsigned threads = resolve_threads(options.threads);
  auto model = std::make_unique<Model>();
  model->units = settings.units;
  model->tie_break = settings.tie_break;
  model->dropout = settings.dropout;

  lay_out_base_vocabulary(*model, settings, counts, options, observer);
  model->derive();  // the unit tables, needed to map the words to ids
  if (observer != nullptr && model->vocab.size() >= options.vocab_size)
    observer->on_message("bpe: the special tokens and the base alphabet already fill vocab_size " +
                         std::to_string(options.vocab_size) + "; no merges learned");

  TrainingWords words = build_training_words(*model, counts, threads);
  std::vector<std::uint32_t> unit_lengths(model->vocab.size(), 1);
  words.input.unit_lengths = unit_lengths;
  MergeTrainer trainer(std::move(words.input),
                       {.min_count = std::max<std::uint64_t>(1, options.min_frequency),
                        .max_token_length = settings.max_token_length,
                        .tie_break = settings.tie_break,
                        .threads = threads});
  VocabularySink sink(*model, options.vocab_size, options.max_steps, observer,
                      words.unknown_tokens);
  const StopReason reason = trainer.run(sink);
  model->derive();

  report_stop(*model, reason, options, observer);

  if (final_segmentation != nullptr)
    final_segmentation_of(*model, counts, words, trainer, *final_segmentation);
  model_ = std::move(model);
}

}  // namespace tokenlab::bpe
