// trace, import and export: the commands for courses and for interoperability.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "any_model.hpp"
#include "cli.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/pretrained/rank_merges.hpp"
#include "tokenlab/pretrained/sentencepiece_writer.hpp"
#include "tokenlab/pretrained/tiktoken_writer.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/report.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"
#include "tokenlab/word_counts.hpp"
#include "workflows.hpp"

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

// Shows the boundary marker the way textbooks do: </w> at the end of a word.
std::string show(const std::string& text, MarkerStyle marker) {
  if (marker != MarkerStyle::suffix) return text;
  std::string out;
  const std::string_view m(kBoundaryMarker);
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, m.size(), m) == 0) {
      out += "</w>";
      i += m.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace

namespace {

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
    pipeline.add_to(desc);
  }

  [[nodiscard]] WordCounts counts(const PreTokenizerOptions& pre) const {
    if (!words.empty()) return parse_inline_words(words, pre.marker);
    CorpusReader reader(corpus, CorpusOptions{.invalid_utf8 = pipeline.invalid_utf8_policy()});
    return count_words(reader, Normalizer(pipeline.normalizer()), PreTokenizer(pre),
                       CountOptions{.threads = pipeline.threads});
  }

  [[nodiscard]] TrainOptions train_options() const {
    TrainOptions options;
    options.special_tokens = std::vector<std::string>();
    std::istringstream special_list(specials);
    for (std::string s; std::getline(special_list, s, ',');)
      if (!s.empty()) options.special_tokens->push_back(s);
    // --merges counts steps, whatever the algorithm's starting alphabet (WordPiece
    // starts with two forms of each character): the size limit is then lifted.
    options.vocab_size = vocab_size > 0 ? vocab_size : std::size_t{1} << 30;
    options.max_steps = merges;
    options.min_frequency = min_frequency;
    options.threads = pipeline.threads;
    options.character_coverage = 1.0;
    for (const auto& kv : raw_options) add_key_value(options.extra, kv, "option");
    validate(options);
    return options;
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

int cmd_nbest(const std::vector<std::string>& args) {
  std::string model;
  bool ids_only = false;
  std::size_t k = 5;
  std::vector<std::string> texts;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(),
                     "model: a .tkl with n-best (unigram), or a SentencePiece unigram .model")(
      "number,k", ranged(&k, std::size_t{1}, kMaxNBest)->default_value(5),
      "how many segmentations per word")("text", po::value(&texts)->multitoken(),
                                         "text to segment (its words are shown one by one)")(
      "ids", po::bool_switch(&ids_only),
      "print only the ids of each segmentation, one per line (as spm_encode "
      "--output_format=nbest_id)")("plugin-dir", po::value(&plugin_dirs),
                                   "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("text", -1);
  po::variables_map vm;
  if (!parse("nbest", "-m MODEL [-k N] [--ids] TEXT...", desc, positional, args, vm))
    return kExitOk;
  if (texts.empty()) throw UsageError("give the text to segment");
  if (k == 0) throw UsageError("-k must be at least 1");
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  const AnyModel loaded = load_any_model(model, registry);
  const auto print_ids = [](const std::vector<TokenId>& ids) {
    for (std::size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
    std::cout << '\n';
  };
  const auto print_score = [](double value) {
    char score[32];
    std::snprintf(score, sizeof score, "%10.4f", value);
    std::cout << "  " << score << "  ";
  };
  if (loaded.pretrained) {
    // A real model's n-best, as its own library lists it (SentencePiece unigram:
    // over the whole normalized text).
    const PretrainedTokenizer& pretrained = *loaded.pretrained;
    for (const auto& text : texts) {
      pretrained.for_each_nbest(text, k, [&](std::string_view piece, const auto& candidates) {
        if (ids_only) {
          for (const auto& candidate : candidates) print_ids(candidate.ids);
          return;
        }
        std::cout << piece << '\n';
        for (const auto& candidate : candidates) {
          print_score(candidate.score);
          for (std::size_t i = 0; i < candidate.ids.size(); ++i)
            std::cout << (i ? " + " : "") << pretrained.display_piece(candidate.ids[i]);
          std::cout << '\n';
        }
      });
    }
    return kExitOk;
  }
  const Tokenizer& tokenizer = *loaded.trained;
  const Segmenter& segmenter = tokenizer.segmenter();
  if (!(segmenter.capabilities() & kCapabilityNBest))
    throw Error("segmenter '" + segmenter.name() + "' does not support n-best segmentation");
  const MarkerStyle marker = tokenizer.pre_tokenizer().options().marker;
  for (const auto& text : texts) {
    tokenizer.for_each_word(text, [&](std::string_view word) {
      if (!ids_only) std::cout << show(std::string(word), marker) << '\n';
      for (const auto& candidate : segmenter.nbest(word, k)) {
        check_ids(candidate.ids, segmenter.vocabulary().size(), segmenter.name());
        if (ids_only) {
          print_ids(candidate.ids);
          continue;
        }
        print_score(candidate.score);
        for (std::size_t i = 0; i < candidate.ids.size(); ++i)
          std::cout << (i ? " + " : "") << show(segmenter.display_piece(candidate.ids[i]), marker);
        std::cout << '\n';
      }
    });
  }
  return kExitOk;
}

int cmd_import(const std::vector<std::string>& args) {
  std::string format;
  std::string input;
  std::string output;
  std::string algorithm;
  bool uncased = false;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("format", po::value(&format)->default_value("auto"),
                     "auto (detect tokenizer.json, tiktoken, SentencePiece .model), "
                     "tokenizer.json, tiktoken[:ENCODING], sentencepiece, or vocab.txt (BERT "
                     "WordPiece vocabulary, read by --algorithm)")(
      "input", po::value(&input)->required(), "file to import")(
      "algorithm", po::value(&algorithm)->default_value("wordpiece"),
      "plugin that reads the format")("uncased", po::bool_switch(&uncased),
                                      "lowercase and strip accents (BERT uncased vocabularies)")(
      "output,o", po::value(&output)->required(),
      "model file to write (- for stdout when it is not a terminal)")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parse("import", "FILE -o MODEL [--format FORMAT] [--uncased]", desc, positional, args, vm))
    return kExitOk;
  if (format != "vocab.txt") {
    if (uncased) throw UsageError("--uncased applies to --format vocab.txt only");
    return import_pretrained(input, format, output);
  }
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  check_binary_output_path(output);
  check_not_an_input(output, {input});
  std::shared_ptr<Segmenter> segmenter = registry.create(algorithm);
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) throw Error(input + ": is a directory, not a file");
  std::ifstream in(input, std::ios::binary);
  if (!in) throw Error(input + ": cannot open");
  segmenter->import_model(in, format, input);
  // A BERT vocabulary comes with BERT's own text handling: clean text, no Unicode
  // composition, split at white space, punctuation and CJK ideographs, no boundary
  // marker; uncased also strips accents and lowercases.
  NormalizerOptions normalizer{.form = NormalizationForm::bert};
  normalizer.lowercase = uncased;
  normalizer.strip_accents = uncased;
  const PreTokenizerOptions pre{.kind = PreTokenizerKind::bert, .marker = MarkerStyle::none};
  const Tokenizer tokenizer(normalizer, pre, segmenter);
  with_binary_output(output, [&](const std::filesystem::path& path) { tokenizer.save(path); });
  std::cerr << "imported " << segmenter->vocabulary().size() << " tokens from " << input << " -> "
            << output << '\n';
  return kExitOk;
}

namespace {

// The exported file read back through tokenlab's own reader, against the model,
// line by line: what --verify reports.
int verify_export(const Tokenizer& model, const std::string& exported, const std::string& format,
                  const std::string& text_file, bool approximate) {
  const PretrainedTokenizer back = PretrainedTokenizer::from_bytes(exported, "the export", format);
  std::ifstream in(text_file, std::ios::binary);
  if (!in) throw Error(text_file + ": cannot read");
  std::size_t lines = 0;
  std::size_t differ = 0;
  std::size_t shown = 0;
  std::string line;
  std::vector<TokenId> ids;
  while (read_bounded_line(in, line, text_file, lines + 1)) {
    ++lines;
    if (utf8::find_invalid(line)) continue;  // neither side encodes ill-formed text
    ids.clear();
    model.encode(line, ids);
    const std::vector<TokenId> theirs = back.encode(line);
    if (ids == theirs) continue;
    ++differ;
    if (shown++ < 5)
      std::cerr << text_file << ":" << lines << ": the " << format << " file encodes \"" << line
                << "\" differently (" << theirs.size() << " ids, the model " << ids.size() << ")\n";
  }
  std::cerr << "verify: " << differ << " of " << lines << " lines of " << text_file
            << " encode differently through the exported " << format << '\n';
  // An approximate export was asked for: the count is its report, not a failure.
  return differ == 0 || approximate ? kExitOk : kExitFailure;
}

}  // namespace

namespace {

// An imported real tokenizer (a .tkl from `tokenlab import`) or the tokenizer
// file itself: its own format is written back byte for byte; any other is
// refused, since tokenlab converts only the models it trains.
int export_pretrained(const std::string& model, const std::string& format,
                      const std::string& output) {
  std::string bytes;
  std::string original;  // tokenizer.json, tiktoken:cl100k_base, tiktoken (its JSON), ...
  {
    std::ifstream in(model, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
    if (in.bad()) throw Error(model + ": read error");
  }
  if (bytes.starts_with("TKLBMODL")) {
    std::istringstream in(bytes);
    ModelFile file = read_model_file(in, model, bytes.size());
    original = file.header.plugin_name.substr(kPretrainedPluginPrefix.size());
    bytes = std::move(file.payload);
  } else {
    original = resolve_pretrained_format(bytes, model, "auto");
  }
  const std::string family = original == "tiktoken"              ? "tiktoken-json"
                             : original.starts_with("tiktoken:") ? "tiktoken"
                                                                 : original;
  if (family != format)
    throw Error(model + " is a real model's tokenizer (" + original +
                "), not a model tokenlab trained: tokenlab writes it back only as it was "
                "(--format " +
                family + "), and converts only the models it trains");
  with_output(output, [&](std::ostream& out) { out << bytes; });
  std::cerr << "wrote " << model << "'s " << family << " file as it was imported\n";
  return kExitOk;
}

}  // namespace

int cmd_export(const std::vector<std::string>& args) {
  std::string format;
  std::string model;
  std::string output;
  std::string verify;
  bool approximate = false;
  bool dropout = false;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("format", po::value(&format)->required(),
                     "tokenizer.json (Hugging Face tokenizers), tiktoken (a rank file), "
                     "tiktoken-json (npm tiktoken's encoder JSON), sentencepiece (a .model "
                     "ModelProto) or vocab.txt (BERT, WordPiece)")(
      "model,m", po::value(&model)->required(), "model file")(
      "output,o", po::value(&output)->required(), "file to write (- for stdout)")(
      "verify", po::value(&verify),
      "TEXT: read the written file back and compare its ids with the model's on every line")(
      "approximate", po::bool_switch(&approximate),
      "write a BPE as tiktoken or sentencepiece even where their merge rule may encode some "
      "text differently; --verify TEXT then counts the lines")(
      "dropout", po::bool_switch(&dropout),
      "tokenizer.json: write the BPE model's default dropout, so that HF samples a "
      "segmentation on every encode (for training data)")("plugin-dir", po::value(&plugin_dirs),
                                                          "extra plugin directory (repeatable)");
  po::variables_map vm;
  if (!parse("export",
             "--format tokenizer.json|tiktoken|tiktoken-json|sentencepiece|vocab.txt -m MODEL "
             "-o FILE "
             "[--verify TEXT]",
             desc, {}, args, vm))
    return kExitOk;
  check_export_arguments(format, !verify.empty(), dropout);
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  check_output_path(output);
  check_not_an_input(output, verify.empty() ? std::vector<std::string>{model}
                                            : std::vector<std::string>{model, verify});
  const AnyModel loaded = load_any_model(model, registry);
  if (loaded.pretrained) {
    // Its own bytes are written back: nothing of a conversion applies to them.
    if (dropout || approximate)
      throw UsageError(std::string(dropout ? "--dropout" : "--approximate") +
                       " applies to a model tokenlab trained; " + model +
                       " is a real model's tokenizer, written back as it was imported");
    if (!verify.empty())
      std::cerr << "note: --verify is not needed: the file written is the imported file\n";
    return export_pretrained(model, format, output);
  }
  const Tokenizer& tokenizer = *loaded.trained;
  const ExportedModel exported =
      export_tokenizer(tokenizer, format, approximate, dropout, output, note_to_stderr);
  // Verified before it is written: a file that fails --verify (exit 1) must not
  // be left behind looking like a good export.
  if (!verify.empty()) {
    const int verdict = verify_export(tokenizer, exported.read_back, exported.read_back_format,
                                      verify, approximate);
    if (verdict != kExitOk) {
      std::cerr << "error: " << output << " not written: the export does not encode " << verify
                << " as the model does\n";
      return verdict;
    }
  }
  with_output(output, [&](std::ostream& out) { out << exported.written; });
  return kExitOk;
}

}  // namespace tokenlab::cli
