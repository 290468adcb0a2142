// tokenlab trace: every training step of a plugin, as the textbook tables.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands/marker_display.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli {

namespace {

// "low:5 lower:2" -> counts, in the order given, with the boundary marker added.
WordCounts parse_inline_words(const std::string& text, MarkerStyle marker) {
  WordCounts counts;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const auto colon = item.rfind(':');
    std::uint64_t count = 1;
    std::string word = item;
    if (colon != std::string::npos) {
      word = item.substr(0, colon);
      const std::string number = item.substr(colon + 1);
      auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
      if (ec != std::errc() || ptr != number.data() + number.size() || count == 0)
        throw UsageError("--words: bad count in '" + item + "' (expected word:count)");
    }
    if (word.empty()) throw UsageError("--words: empty word in '" + item + "'");
    if (auto bad = utf8::find_invalid(word))
      throw UsageError("--words: invalid UTF-8 in '" + item + "'");
    if (marker == MarkerStyle::prefix) word = kBoundaryMarker + word;
    if (marker == MarkerStyle::suffix) word += kBoundaryMarker;
    counts.add(word, count);
  }
  if (counts.empty()) throw UsageError("--words is empty");
  return counts;
}

// One table per kind of step (BPE has merges; unigram has EM rounds and pruning
// steps with different columns), in order of first appearance, and the notes.
class StepTables final : public TrainingObserver {
 public:
  explicit StepTables(MarkerStyle marker) : marker_(marker) {}

  [[nodiscard]] bool trace() const override { return true; }
  void on_step(const TrainingStep& step) override {
    auto it = std::find_if(tables_.begin(), tables_.end(),
                           [&](const auto& t) { return t.first == step.kind; });
    if (it == tables_.end()) {
      ReportTable table;
      table.title = step.kind;
      table.columns.push_back({"step", ColumnKind::integer});
      for (const auto& [name, value] : step.fields) {
        const bool numeric =
            !value.empty() &&
            (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-');
        table.columns.push_back({name, numeric ? ColumnKind::real : ColumnKind::text});
      }
      tables_.emplace_back(step.kind, std::move(table));
      it = std::prev(tables_.end());
    }
    std::vector<std::string> row{std::to_string(step.index)};
    for (const auto& [name, value] : step.fields) row.push_back(show(value, marker_));
    it->second.rows.push_back(std::move(row));
  }
  void on_message(std::string_view message) override { notes_.emplace_back(message); }

  void print(std::ostream& out) {
    for (std::size_t i = 0; i < tables_.size(); ++i) {
      auto& table = tables_[i].second;
      if (tables_.size() == 1) table.title.clear();  // a single table needs no heading
      if (i > 0) out << '\n';
      write_terminal(out, table);
    }
    for (const auto& note : notes_) out << note << '\n';
  }

 private:
  MarkerStyle marker_;
  std::vector<std::pair<std::string, ReportTable>> tables_;
  std::vector<std::string> notes_;
};

// The start of a trace: distinct words, tokens (characters) and symbols.
void print_start(std::ostream& out, const WordCounts& counts) {
  std::set<std::string> symbols;
  std::uint64_t tokens = 0;
  for (const auto& e : counts.entries())
    for (const auto cp : utf8::split_code_points(e.word)) {
      symbols.emplace(cp);
      tokens += e.count;
    }
  out << counts.size() << " distinct words; " << tokens << " tokens and " << symbols.size()
      << " symbols at the start\n\n";
}

// Each word as the trained segmenter cuts it, boundary marker added as in training.
void print_encodings(std::ostream& out, const Segmenter& segmenter,
                     const std::vector<std::string>& words, MarkerStyle marker) {
  for (const auto& w : words) {
    std::string word = w;
    if (marker == MarkerStyle::prefix) word = kBoundaryMarker + word;
    if (marker == MarkerStyle::suffix) word += kBoundaryMarker;
    std::vector<TokenId> ids;
    segmenter.encode(word, ids);
    check_ids(ids, segmenter.vocabulary().size(), segmenter.name());
    out << w << " ->";
    for (std::size_t i = 0; i < ids.size(); ++i)
      out << (i ? " + " : " ") << show(segmenter.display_piece(ids[i]), marker);
    // A vocabulary without an unknown token (a textbook trace has no specials)
    // drops characters it has never seen, as HF's BPE does without unk_token:
    // say so rather than print a segmentation that silently lost them.
    if (!segmenter.vocabulary().unknown_id()) {
      std::string dropped;
      for (const auto c : utf8::split_code_points(w))
        if (!segmenter.vocabulary().contains(c) && dropped.find(c) == std::string::npos)
          dropped += (dropped.empty() ? "" : " ") + std::string(c);
      if (!dropped.empty())
        out << "   (dropped, not in the vocabulary and no unknown token: " << dropped << ')';
    }
    out << '\n';
  }
}

struct TraceArgs {
  std::string algorithm;
  std::string words;
  std::vector<std::string> corpus;
  std::size_t merges = 0;
  std::size_t vocab_size = 0;
  std::vector<std::string> encode_words;
  std::vector<std::string> raw_options;
  std::vector<std::string> plugin_dirs;
  std::string specials;
  std::uint64_t min_frequency = 0;
  PipelineOptions pipeline;

  void add_to(po::options_description& desc) {
    desc.add_options()("algorithm", po::value(&algorithm)->required(), "plugin name, e.g. bpe")(
        "words", po::value(&words),
        "inline word counts, e.g. 'low:5 lower:2 newest:6 widest:3 wider:2'")(
        "corpus", po::value(&corpus)->multitoken(), "or corpus files")(
        "merges", ranged(&merges, std::size_t{1}, std::size_t{1} << 30),
        "stop after N steps beyond the base alphabet (no <0xNN> byte pieces are added then: the "
        "trace is the textbook's, alphabet and merges only)")(
        "vocab-size,v", ranged(&vocab_size, std::size_t{1}, kMaxVocabSize),
        "or: target vocabulary size (BPE and unigram add the 256 byte pieces only if it has room "
        "for them beside the alphabet)")("min-frequency",
                                         ranged(&min_frequency, std::uint64_t{0})->default_value(0),
                                         "minimum count")(
        "encode", po::value(&encode_words)->multitoken(), "words to encode with the result")(
        "option", po::value(&raw_options), "algorithm option key=value (repeatable)")(
        "special-tokens", po::value(&specials)->default_value(""),
        "comma-separated special tokens (default none, as in textbooks; the unknown token may "
        "still be added)")("plugin-dir", po::value(&plugin_dirs),
                           "extra plugin directory (repeatable)");
    add_pipeline_options(desc, pipeline);
  }

  [[nodiscard]] WordCounts counts(const PreTokenizerOptions& pre) const {
    if (!words.empty()) return parse_inline_words(words, pre.marker);
    CorpusReader reader(corpus, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
    return count_words(reader, Normalizer(pipeline.normalizer()), PreTokenizer(pre),
                       CountOptions{.threads = pipeline.threads});
  }

  [[nodiscard]] TrainOptions train_options() const {
    app::TraceRequest request{.steps = merges,
                              .vocab_size = vocab_size,
                              .min_frequency = min_frequency,
                              .threads = pipeline.threads};
    std::istringstream special_list(specials);
    for (std::string s; std::getline(special_list, s, ',');)
      if (!s.empty()) request.special_tokens.push_back(s);
    for (const auto& kv : raw_options) add_key_value(request.extra, kv, "option");
    return request.train_options();
  }
};

}  // namespace

int cmd_trace(const std::vector<std::string>& args) {
  TraceArgs trace;
  po::options_description desc("options");
  trace.add_to(desc);
  po::positional_options_description positional;
  positional.add("algorithm", 1);
  po::variables_map vm;
  if (!parse("trace",
             "ALGORITHM (--words 'w:n ...' | --corpus FILE...) (--merges N | --vocab-size N)", desc,
             positional, args, vm))
    return kExitOk;
  trace.pipeline.resolve();
  if (trace.words.empty() == trace.corpus.empty())
    throw UsageError("give exactly one of --words and --corpus");
  if ((trace.merges == 0) == (trace.vocab_size == 0))
    throw UsageError("give exactly one of --merges and --vocab-size");
  const PreTokenizerOptions pre = trace.pipeline.pre_tokenizer_options();
  PluginRegistry registry;
  load_plugins(registry, trace.plugin_dirs);
  if (!(registry.info(trace.algorithm).capabilities & kCapabilityTrace))
    throw Error("plugin '" + trace.algorithm +
                "' does not report training steps (no trace capability)");

  const WordCounts counts = trace.counts(pre);
  const TrainOptions options = trace.train_options();
  print_start(std::cout, counts);
  StepTables tables(pre.marker);
  auto segmenter = registry.create(trace.algorithm);
  segmenter->train(counts, options, &tables);
  tables.print(std::cout);
  std::cout << "\nvocabulary size " << segmenter->vocabulary().size() << '\n';
  print_encodings(std::cout, *segmenter, trace.encode_words, pre.marker);
  return kExitOk;
}

}  // namespace tokenlab::cli
