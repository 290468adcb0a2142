#include "tokenlab/bpe/bpe_segmenter.hpp"

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

#include <boost/archive/binary_oarchive.hpp>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::bpe {

namespace {

constexpr TokenId kNone = std::numeric_limits<TokenId>::max();
// Stands where a character outside the alphabet was dropped, so that no merge spans
// it (training never saw such a pair either).
constexpr TokenId kBarrier = kNone;
// 2: tagged PayloadWriter layout (1 had no plugin tag).
constexpr std::uint32_t kFormatVersion = 2;
constexpr std::size_t kBuildChunkWords = 8192;

std::atomic<std::uint64_t> next_model_serial{1};

// GPT-2's bytes_to_unicode(): printable bytes stand for themselves, the rest are
// shifted, in byte order, to U+0100 and up.
constexpr std::array<char32_t, 256> make_byte_display_table() {
  std::array<char32_t, 256> table{};
  char32_t shifted = 0x100;
  for (unsigned b = 0; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    table[b] = printable ? static_cast<char32_t>(b) : shifted++;
  }
  return table;
}
constexpr std::array<char32_t, 256> kByteDisplay = make_byte_display_table();

}  // namespace

std::string byte_display(std::uint8_t byte) {
  std::string out;
  utf8::append(out, kByteDisplay[byte]);
  return out;
}

std::string bytes_display(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (const char c : raw) utf8::append(out, kByteDisplay[static_cast<unsigned char>(c)]);
  return out;
}

struct BpeSegmenter::Model {
  // Learned data (saved).
  Vocabulary vocab;
  Units units = Units::kChars;
  bool byte_fallback = false;
  TieBreak tie_break = TieBreak::kFirstSeen;
  double dropout = 0.0;
  std::vector<MergeRule> merges;
  std::vector<TokenId> base_ids;      // chars: one per alphabet character; bytes: by byte value
  std::vector<TokenId> fallback_ids;  // 256 <0xNN> tokens, or none

  // Derived by derive().
  std::uint64_t serial = 0;
  detail::PairMap ranks{16};         // packed pair -> rank
  std::array<TokenId, 128> ascii{};  // code point < 128 -> base id
  std::unordered_map<char32_t, TokenId> other_chars;
  std::array<TokenId, 256> byte_ids{};  // bytes: base ids; chars: fallback ids
  std::optional<TokenId> unknown;
  std::vector<std::string> surfaces;  // what decode() writes for each id

  [[nodiscard]] TokenId rank_of(TokenId left, TokenId right) const noexcept {
    if (left == kBarrier || right == kBarrier) return kNone;
    return ranks.find(detail::pack_pair(left, right));
  }

  [[nodiscard]] TokenId char_id(char32_t cp) const noexcept {
    if (cp < 128) return ascii[cp];
    const auto it = other_chars.find(cp);
    return it == other_chars.end() ? kNone : it->second;
  }

  // Calls on_known(id) per base unit and on_unknown(bytes) per unit outside the alphabet
  // (an ill-formed UTF-8 byte is one unknown unit).
  template <class Known, class Unknown>
  void for_each_unit(std::string_view word, Known&& on_known, Unknown&& on_unknown) const {
    if (units == Units::kBytes) {
      for (const char c : word) on_known(byte_ids[static_cast<unsigned char>(c)]);
      return;
    }
    std::size_t pos = 0;
    while (pos < word.size()) {
      const auto lead = static_cast<unsigned char>(word[pos]);
      if (lead < 0x80) {
        const TokenId id = ascii[lead];
        if (id == kNone)
          on_unknown(word.substr(pos, 1));
        else
          on_known(id);
        ++pos;
        continue;
      }
      const std::size_t len = utf8::sequence_length(word, pos);
      if (len == 0) {
        on_unknown(word.substr(pos, 1));
        ++pos;
        continue;
      }
      const TokenId id = char_id(utf8::decode_at(word, pos));
      if (id == kNone)
        on_unknown(word.substr(pos, len));
      else
        on_known(id);
      pos += len;
    }
  }

  // Appends what an unknown unit encodes to.
  template <class Emit>
  void emit_unknown(std::string_view bytes, Emit&& emit) const {
    if (byte_fallback) {
      for (const char c : bytes) emit(byte_ids[static_cast<unsigned char>(c)]);
    } else if (unknown) {
      emit(*unknown);
    } else {
      emit(kBarrier);
    }
  }

  // Validates the learned data and builds the lookup tables; throws Error.
  void derive();
};

void BpeSegmenter::Model::derive() {
  const std::size_t size = vocab.size();
  const auto check_id = [&](TokenId id, const char* what) {
    if (id >= size) throw Error(std::string("bpe model: ") + what + " id out of range");
  };
  if (size == 0) throw Error("bpe model: empty vocabulary");
  if (units != Units::kChars && units != Units::kBytes) throw Error("bpe model: bad units");
  if (tie_break != TieBreak::kFirstSeen && tie_break != TieBreak::kSmallerIds)
    throw Error("bpe model: bad tie-break rule");
  if (!(dropout >= 0.0 && dropout <= 1.0)) throw Error("bpe model: dropout outside [0, 1]");

  std::vector<std::uint8_t> role(size, 0);  // 1 base, 2 fallback, 3 merge result
  ascii.fill(kNone);
  byte_ids.fill(kNone);
  other_chars.clear();
  if (units == Units::kBytes) {
    if (base_ids.size() != 256 || !fallback_ids.empty() || byte_fallback)
      throw Error("bpe model: a byte-level model needs exactly 256 byte tokens");
    for (unsigned b = 0; b < 256; ++b) {
      check_id(base_ids[b], "byte");
      if (vocab.piece(base_ids[b]) != std::string(1, static_cast<char>(b)))
        throw Error("bpe model: byte token " + std::to_string(b) + " has the wrong piece");
      byte_ids[b] = base_ids[b];
      role[base_ids[b]] = 1;
    }
  } else {
    for (const TokenId id : base_ids) {
      check_id(id, "character");
      const std::string& piece = vocab.piece(id);
      if (piece.empty() || utf8::find_invalid(piece) ||
          utf8::sequence_length(piece, 0) != piece.size())
        throw Error("bpe model: base piece of id " + std::to_string(id) + " is not one character");
      const char32_t cp = utf8::decode_at(piece, 0);
      if (char_id(cp) != kNone) throw Error("bpe model: a character is listed twice");
      if (cp < 128)
        ascii[cp] = id;
      else
        other_chars.emplace(cp, id);
      role[id] = 1;
    }
    if (byte_fallback != !fallback_ids.empty() || (byte_fallback && fallback_ids.size() != 256))
      throw Error("bpe model: byte fallback needs exactly 256 byte tokens");
    for (unsigned b = 0; b < fallback_ids.size(); ++b) {
      check_id(fallback_ids[b], "byte fallback");
      if (vocab.piece(fallback_ids[b]) != byte_fallback_piece(b))
        throw Error("bpe model: byte fallback token " + std::to_string(b) + " has the wrong piece");
      byte_ids[b] = fallback_ids[b];
      if (role[fallback_ids[b]] == 0) role[fallback_ids[b]] = 2;
    }
  }
  ranks.reset(merges.size());
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const MergeRule& m = merges[r];
    check_id(m.left, "merge");
    check_id(m.right, "merge");
    check_id(m.result, "merge");
    if (role[m.result] != 0 || vocab.piece(m.result) != vocab.piece(m.left) + vocab.piece(m.right))
      throw Error("bpe model: merge " + std::to_string(r) + " does not build its result piece");
    role[m.result] = 3;
    bool inserted = false;
    ranks.insert(detail::pack_pair(m.left, m.right), static_cast<std::uint32_t>(r), inserted);
    if (!inserted) throw Error("bpe model: merge " + std::to_string(r) + " repeats a pair");
  }
  unknown = vocab.unknown_id();
  surfaces.assign(size, std::string());
  for (TokenId id = 0; id < size; ++id) {
    if (role[id] == 1 || role[id] == 3) {
      surfaces[id] = vocab.piece(id);
    } else if (role[id] == 2) {
      for (unsigned b = 0; b < 256; ++b)
        if (fallback_ids[b] == id) surfaces[id] = std::string(1, static_cast<char>(b));
    } else if (unknown && id == *unknown) {
      surfaces[id] = kUnknownSurface;
    }  // other special tokens have no surface text
  }
  serial = next_model_serial.fetch_add(1);
}

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

// ---- encoding ---------------------------------------------------------------

// Words of at most this many bytes and tokens are cached per thread.
constexpr std::size_t kCacheMaxBytes = 64;
constexpr std::size_t kCacheMaxIds = 14;
constexpr std::size_t kCacheSlots = 1u << 14;
constexpr std::size_t kCachesPerThread = 4;

struct CacheSlot {
  std::string word;
  std::uint8_t size = 0xFF;  // 0xFF = empty
  std::array<TokenId, kCacheMaxIds> ids{};
};

struct WordCache {
  std::uint64_t serial = 0;
  std::uint64_t last_use = 0;
  std::vector<CacheSlot> slots;
};

// Direct-mapped: a hit costs one hash and one string compare, a miss evicts one
// slot; a few models per thread, the least recently used one recycled.
struct ThreadCaches {
  std::array<WordCache, kCachesPerThread> caches;
  std::uint64_t clock = 0;

  WordCache& for_model(std::uint64_t serial) {
    ++clock;
    WordCache* victim = &caches[0];
    for (WordCache& c : caches) {
      if (c.serial == serial) {
        c.last_use = clock;
        return c;
      }
      if (c.last_use < victim->last_use) victim = &c;
    }
    victim->serial = serial;
    victim->last_use = clock;
    victim->slots.assign(kCacheSlots, CacheSlot{});
    return *victim;
  }
};

struct Scratch {
  std::vector<TokenId> symbols;
  std::vector<std::uint32_t> prev;
  std::vector<std::uint32_t> next;
  std::vector<std::uint64_t> heap;  // rank << 32 | position: lowest rank, then leftmost
  std::vector<std::uint64_t> skipped;
};

thread_local ThreadCaches tls_caches;
thread_local Scratch tls_scratch;

constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();

}  // namespace

BpeSegmenter::BpeSegmenter() : model_(std::make_unique<Model>()) {
  model_->serial = next_model_serial.fetch_add(1);
  model_->ascii.fill(kNone);
  model_->byte_ids.fill(kNone);
}

BpeSegmenter::~BpeSegmenter() = default;

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

  // An explicit special-token list is taken as given: without "<unk>" in it there
  // is no unknown token (the textbook example has no special tokens at all).
  const std::string unknown_token =
      settings.units == Units::kBytes ||
              (options.special_tokens &&
               std::find(options.special_tokens->begin(), options.special_tokens->end(), "<unk>") ==
                   options.special_tokens->end())
          ? std::string()
          : std::string("<unk>");
  const std::vector<std::string> default_specials = settings.units == Units::kBytes
                                                        ? std::vector<std::string>{}
                                                        : std::vector<std::string>{"<unk>"};
  add_special_tokens(model->vocab, options, default_specials, unknown_token, "bpe");

  if (settings.units == Units::kBytes && options.vocab_size < model->vocab.size() + 256)
    throw Error("bpe: units=bytes needs vocab_size of at least " +
                std::to_string(model->vocab.size() + 256) +
                " (the special tokens and the 256 bytes), got " +
                std::to_string(options.vocab_size));
  std::vector<char32_t> alphabet;
  if (settings.units == Units::kChars)
    alphabet = select_alphabet(counts, options.character_coverage, threads).characters;
  // SentencePiece's layout: the 256 byte pieces right after the special tokens. By
  // default they are added when the vocabulary has room for them beside the
  // alphabet, so that no character is ever unknown; smaller vocabularies and step-
  // limited runs (the textbook traces) keep the plain alphabet.
  const std::size_t with_bytes = model->vocab.size() + 256 + alphabet.size();
  model->byte_fallback = settings.units == Units::kChars &&
                         (settings.byte_fallback == ByteFallback::on ||
                          (settings.byte_fallback == ByteFallback::automatic &&
                           options.max_steps == 0 && options.vocab_size >= with_bytes));
  if (observer != nullptr && settings.units == Units::kChars &&
      settings.byte_fallback == ByteFallback::automatic && !model->byte_fallback &&
      options.max_steps == 0)
    observer->on_message("bpe: byte_fallback off: vocab_size " +
                         std::to_string(options.vocab_size) + " is below the " +
                         std::to_string(with_bytes) +
                         " entries that the special tokens, 256 byte pieces and the alphabet need");
  if (model->byte_fallback) {
    if (options.vocab_size < model->vocab.size() + 256)
      throw Error("bpe: byte_fallback=true needs vocab_size of at least " +
                  std::to_string(model->vocab.size() + 256) +
                  " (the special tokens and the 256 byte pieces), got " +
                  std::to_string(options.vocab_size));
    for (unsigned b = 0; b < 256; ++b)
      model->fallback_ids.push_back(model->vocab.add(byte_fallback_piece(b)));
  }
  const std::size_t room = options.vocab_size - std::min(options.vocab_size, model->vocab.size());
  if (alphabet.size() > room) {
    // As the other plugins do: never exceed vocab_size; keep the most frequent
    // characters and say what it costs.
    const std::size_t wanted = alphabet.size();
    alphabet = select_alphabet(counts, options.character_coverage, threads, room).characters;
    if (observer != nullptr)
      observer->on_message(
          "bpe: vocab_size " + std::to_string(options.vocab_size) + " keeps only the " +
          std::to_string(alphabet.size()) + " most frequent of " + std::to_string(wanted) +
          " characters: the alphabet needs at least " +
          std::to_string(model->vocab.size() + wanted) + " entries; the other characters are " +
          (model->byte_fallback ? "byte pieces" : "unknown"));
  }
  if (settings.units == Units::kBytes) {
    for (unsigned b = 0; b < 256; ++b)
      model->base_ids.push_back(model->vocab.add_or_find(std::string(1, static_cast<char>(b))));
  } else {
    for (const char32_t cp : alphabet) {
      std::string piece;
      utf8::append(piece, cp);
      model->base_ids.push_back(model->vocab.add_or_find(std::move(piece)));
    }
  }
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

  if (observer != nullptr) {
    const std::string size = std::to_string(model->vocab.size());
    switch (reason) {
      case StopReason::kSinkDone:
        observer->on_message("bpe: reached vocabulary size " + size + " after " +
                             std::to_string(model->merges.size()) + " merges");
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

  if (final_segmentation != nullptr) {
    const auto& entries = counts.entries();
    final_segmentation->assign(entries.size(), {});
    for (std::size_t w = 0; w < entries.size(); ++w) {
      auto& out = (*final_segmentation)[w];
      std::uint32_t segment = words.first_segment[w];
      bool in_run = false;
      const auto close_run = [&] {
        if (!in_run) return;
        const auto ids = trainer.word(segment++);
        out.insert(out.end(), ids.begin(), ids.end());
        in_run = false;
      };
      model->for_each_unit(
          entries[w].word, [&](TokenId) { in_run = true; },
          [&](std::string_view bytes) {
            close_run();
            model->emit_unknown(bytes, [&](TokenId id) {
              if (id != kBarrier) out.push_back(id);
            });
          });
      close_run();
    }
  }
  model_ = std::move(model);
}

void BpeSegmenter::encode_impl(std::string_view word, std::vector<TokenId>& out, std::uint64_t* rng,
                               double dropout) const {
  const Model& m = *model_;
  Scratch& s = tls_scratch;
  s.symbols.clear();
  m.for_each_unit(
      word, [&](TokenId id) { s.symbols.push_back(id); },
      [&](std::string_view bytes) {
        m.emit_unknown(bytes, [&](TokenId id) { s.symbols.push_back(id); });
      });
  const auto n = static_cast<std::uint32_t>(s.symbols.size());
  TokenId* sym = s.symbols.data();

  if (n >= 2 && !m.merges.empty()) {
    s.prev.resize(n);
    s.next.resize(n);
    s.heap.clear();
    s.skipped.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      s.prev[i] = i == 0 ? kEnd : i - 1;
      s.next[i] = i + 1 == n ? kEnd : i + 1;
    }
    const auto later = std::greater<std::uint64_t>{};
    // Queues the pair starting at i, if it has a merge; keep_heap restores the heap.
    const auto consider = [&](std::uint32_t i, bool keep_heap) {
      const std::uint32_t j = s.next[i];
      if (j == kEnd) return;
      const TokenId rank = m.rank_of(sym[i], sym[j]);
      if (rank == kNone) return;
      s.heap.push_back((std::uint64_t{rank} << 32) | i);
      if (keep_heap) std::push_heap(s.heap.begin(), s.heap.end(), later);
    };
    for (std::uint32_t i = 0; i + 1 < n; ++i) consider(i, false);
    std::make_heap(s.heap.begin(), s.heap.end(), later);
    while (!s.heap.empty()) {
      std::pop_heap(s.heap.begin(), s.heap.end(), later);
      const std::uint64_t entry = s.heap.back();
      s.heap.pop_back();
      const auto rank = static_cast<std::uint32_t>(entry >> 32);
      const auto i = static_cast<std::uint32_t>(entry);
      const std::uint32_t j = s.next[i];
      const MergeRule& rule = m.merges[rank];
      // Stale when position i was absorbed or its pair changed since the push.
      if (j == kEnd || sym[i] != rule.left || sym[j] != rule.right) continue;
      if (rng != nullptr && next_unit(*rng) < dropout) {
        s.skipped.push_back(entry);
        continue;
      }
      sym[i] = rule.result;
      sym[j] = kBarrier;
      s.next[i] = s.next[j];
      if (s.next[j] != kEnd) s.prev[s.next[j]] = i;
      s.next[j] = kEnd;  // marks j dead for stale entries
      if (s.prev[i] != kEnd) consider(s.prev[i], true);
      consider(i, true);
      // Dropout: what was skipped competes again now that the word changed.
      for (const std::uint64_t e : s.skipped) {
        s.heap.push_back(e);
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
      s.skipped.clear();
    }
    for (std::uint32_t i = 0; i != kEnd; i = s.next[i])
      if (sym[i] != kBarrier) out.push_back(sym[i]);
    return;
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (sym[i] != kBarrier) out.push_back(sym[i]);
}

void BpeSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  if (word.size() > kCacheMaxBytes) {
    encode_impl(word, out, nullptr, 0.0);
    return;
  }
  WordCache& cache = tls_caches.for_model(model_->serial);
  CacheSlot& slot = cache.slots[std::hash<std::string_view>{}(word) & (kCacheSlots - 1)];
  if (slot.size != 0xFF && slot.word == word) {
    out.insert(out.end(), slot.ids.begin(), slot.ids.begin() + slot.size);
    return;
  }
  const std::size_t start = out.size();
  encode_impl(word, out, nullptr, 0.0);
  const std::size_t produced = out.size() - start;
  if (produced <= kCacheMaxIds) {
    slot.word.assign(word);
    slot.size = static_cast<std::uint8_t>(produced);
    std::copy(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(), slot.ids.begin());
  }
}

void BpeSegmenter::encode_sampled(std::string_view word, const SamplingOptions& options,
                                  std::uint64_t& rng_state, std::vector<TokenId>& out) const {
  // A negative dropout means the model's default; NaN and values above 1 are errors,
  // never a silent "no sampling".
  if (std::isnan(options.dropout) || options.dropout > 1.0)
    throw Error(
        "bpe: dropout must be at most 1 (a probability in [0, 1], or negative for the "
        "model's default), got " +
        std::to_string(options.dropout));
  const double p = options.dropout < 0.0 ? model_->dropout : options.dropout;
  if (p == 0.0) {
    encode(word, out);
    return;
  }
  encode_impl(word, out, &rng_state, p);
}

std::string BpeSegmenter::decode(std::span<const TokenId> ids) const {
  const Model& m = *model_;
  std::size_t bytes = 0;
  for (const TokenId id : ids) {
    if (id >= m.surfaces.size())
      throw Error("bpe: token id " + std::to_string(id) + " out of range");
    bytes += m.surfaces[id].size();
  }
  std::string text;
  text.reserve(bytes);
  for (const TokenId id : ids) text += m.surfaces[id];
  return text;
}

const Vocabulary& BpeSegmenter::vocabulary() const {
  return model_->vocab;
}

std::string BpeSegmenter::display_piece(TokenId id) const {
  const std::string& piece = model_->vocab.piece(id);
  if (model_->units != Units::kBytes || model_->vocab.is_special(id)) return piece;
  return bytes_display(piece);
}

// The payload is written field by field with PayloadWriter, every variable-length
// part preceded by its length, so that load() can check each length against the
// bytes actually left before allocating: a corrupt length must fail, not request
// gigabytes.
void BpeSegmenter::save(std::ostream& out) const {
  const Model& m = *model_;
  std::vector<std::uint32_t> flat;
  flat.reserve(m.merges.size() * 3);
  for (const MergeRule& r : m.merges) {
    flat.push_back(r.left);
    flat.push_back(r.right);
    flat.push_back(r.result);
  }
  PayloadWriter writer(out, "bpe", kFormatVersion);
  writer.scalar<std::uint8_t>(static_cast<std::uint8_t>(m.units));
  writer.flag(m.byte_fallback);
  writer.scalar<std::uint8_t>(static_cast<std::uint8_t>(m.tie_break));
  writer.scalar<double>(m.dropout);
  writer.scalar<std::uint64_t>(m.vocab.size());
  writer.scalar<std::uint64_t>(m.vocab.special_count());
  writer.scalar<std::uint32_t>(m.vocab.unknown_id().value_or(kNone));
  for (const std::string& piece : m.vocab.pieces()) writer.text(piece);
  writer.array<std::uint32_t>(flat);
  writer.array<std::uint32_t>(m.base_ids);
  writer.array<std::uint32_t>(m.fallback_ids);
}

void BpeSegmenter::load(std::istream& in) {
  PayloadReader reader(in, "bpe", kFormatVersion);
  auto model = std::make_unique<Model>();
  const auto units = reader.scalar<std::uint8_t>("units");
  const bool fallback = reader.flag("byte_fallback");
  const auto tie = reader.scalar<std::uint8_t>("tie_break");
  model->dropout = reader.scalar<double>("dropout");
  if (units > 1 || tie > 1) reader.fail("bad settings");
  if (!(model->dropout >= 0.0 && model->dropout <= 1.0)) reader.fail("bad dropout");
  model->units = static_cast<Units>(units);
  model->byte_fallback = fallback;
  model->tie_break = static_cast<TieBreak>(tie);

  // Each piece takes at least its 8-byte length.
  const std::uint64_t pieces = reader.length(sizeof(std::uint64_t), "vocabulary");
  const auto specials = reader.scalar<std::uint64_t>("special token count");
  const auto unknown = reader.scalar<std::uint32_t>("unknown token id");
  if (specials > pieces) reader.fail("more special tokens than pieces");
  if (unknown != kNone && unknown >= specials) reader.fail("the unknown token is not special");
  for (std::uint64_t i = 0; i < pieces; ++i) {
    std::string piece = reader.text("piece", Vocabulary::kMaxPieceBytes);
    if (i < specials)
      model->vocab.add_special(std::move(piece));
    else
      model->vocab.add(std::move(piece));
  }
  if (unknown != kNone) model->vocab.set_unknown(unknown);

  const std::vector<std::uint32_t> flat = reader.array<std::uint32_t>("merge list");
  if (flat.size() % 3 != 0) reader.fail("truncated merge list");
  for (std::size_t k = 0; k < flat.size(); k += 3)
    model->merges.push_back({flat[k], flat[k + 1], flat[k + 2]});
  model->base_ids = reader.array<std::uint32_t>("base unit list");
  model->fallback_ids = reader.array<std::uint32_t>("byte fallback list");
  reader.finish();
  model->derive();
  model_ = std::move(model);
}

const std::vector<MergeRule>& BpeSegmenter::merges() const noexcept {
  return model_->merges;
}
Units BpeSegmenter::units() const noexcept {
  return model_->units;
}
bool BpeSegmenter::byte_fallback() const noexcept {
  return model_->byte_fallback;
}
TieBreak BpeSegmenter::tie_break() const noexcept {
  return model_->tie_break;
}
double BpeSegmenter::default_dropout() const noexcept {
  return model_->dropout;
}

}  // namespace tokenlab::bpe
