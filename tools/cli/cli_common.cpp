#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::cli {

void PipelineOptions::add_to(po::options_description& desc) {
  desc.add_options()("normalization", po::value(&normalization)->default_value(normalization),
                     "nfc | nfkc | none | bert (BERT's text cleaning, as HF's BertNormalizer)")(
      "lowercase", po::bool_switch(&lowercase), "lowercase after normalization")(
      "pre-tokenizer", po::value(&pre_tokenizer)->default_value(pre_tokenizer),
      "unicode (whitespace, punctuation, script and digit boundaries) | whitespace | icu-words | "
      "bert | gpt2 | cl100k (= llama3) | qwen2 | o200k (GPT-style regexes; pieces keep their "
      "spaces)")("marker", po::value(&marker)->default_value(marker),
                 "boundary marker U+2581 as prefix | suffix | none; space: the regex "
                 "pre-tokenizers' own spaces; auto: space for them, else prefix")(
      "invalid-utf8", po::value(&invalid_utf8)->default_value(invalid_utf8),
      "what to do with invalid UTF-8: error | replace | skip")(
      "threads",
      ranged(&threads, 0U, kMaxThreadsOption)->default_value(threads)->notifier([this](unsigned n) {
        threads = capped_threads(n);
      }),
      "worker threads (0 = all cores; at most 4 per core are used)");
}

NormalizerOptions PipelineOptions::normalizer() const {
  NormalizerOptions o = NormalizerOptions::parse(normalization);
  o.lowercase = o.lowercase || lowercase;
  // The regex pre-tokenizers' pieces carry the text's own white space.
  o.keep_whitespace = o.keep_whitespace || is_regex_kind(pre_tokenizer_options().kind);
  return o;
}

PreTokenizerOptions PipelineOptions::pre_tokenizer_options() const {
  return PreTokenizerOptions::parse(pre_tokenizer + "/" + marker);
}

InvalidUtf8Policy PipelineOptions::invalid_utf8_policy() const {
  return parse_invalid_utf8_policy(invalid_utf8);
}

void load_plugins(PluginRegistry& registry, const std::vector<std::string>& plugin_dirs) {
  std::vector<std::filesystem::path> dirs(plugin_dirs.begin(), plugin_dirs.end());
  registry.load_search_path(PluginRegistry::default_search_path(dirs));
  for (const auto& e : registry.load_errors()) std::cerr << "warning: " << e << '\n';
}

bool parse(const std::string& command, const std::string& synopsis, po::options_description& desc,
           const po::positional_options_description& positional,
           const std::vector<std::string>& args, po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(desc).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: tokenlab " << command << ' ' << synopsis << "\n\n" << desc << '\n';
    return false;
  }
  po::notify(vm);
  // An empty path given on purpose (-o '', an unset shell variable) is not "not
  // given": it must not quietly become standard output or standard input.
  for (const char* name : {"output", "input", "model"}) {
    const auto it = vm.find(name);
    if (it == vm.end() || it->second.defaulted()) continue;
    if (const auto* value = boost::any_cast<std::string>(&it->second.value());
        value != nullptr && value->empty())
      throw UsageError(std::string("--") + name +
                       " is empty: give a file name (- for standard input or output)");
  }
  return true;
}

void check_binary_output_path(const std::string& path) {
  if (path == "-" && ::isatty(STDOUT_FILENO) == 1)
    throw UsageError(
        "-o -: standard output is a terminal, not a place for a binary model; "
        "redirect it to a file or pipe");
  check_output_path(path);
}

void check_output_path(const std::string& path) {
  if (path.empty() || path == "-") return;  // standard output
  check_writable(path);
}

std::pair<std::string, std::string> parse_key_value(const std::string& text,
                                                    const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--" + option + " expects key=value, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Writes to --output atomically, or to stdout.
void with_output(const std::string& path, const std::function<void(std::ostream&)>& body) {
  if (path.empty() || path == "-") {
    body(std::cout);
    std::cout.flush();
    if (!std::cout) throw Error("<stdout>: write failed");
    return;
  }
  write_file_atomically(path, body);
}

// Writes a binary model to path, or for "-" to stdout unless that is a terminal.
// save writes the model to a file (Tokenizer::save); for stdout it writes to a
// private temporary directory, whose file is then copied.
void with_binary_output(const std::string& path,
                        const std::function<void(const std::filesystem::path&)>& save) {
  if (path != "-") {
    save(path);
    return;
  }
  check_binary_output_path(path);
  std::string pattern = (std::filesystem::temp_directory_path() / "tokenlab-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error("cannot create a temporary directory in " +
                std::filesystem::temp_directory_path().string());
  const std::filesystem::path dir = pattern;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  save(dir / "model.tkl");
  std::ifstream in(dir / "model.tkl", std::ios::binary);
  if (!in) throw Error((dir / "model.tkl").string() + ": cannot read back");
  std::cout << in.rdbuf();
  std::cout.flush();
  if (!std::cout) throw Error("<stdout>: write failed");
}

void add_key_value(std::map<std::string, std::string>& options, const std::string& text,
                   const std::string& option) {
  auto [key, value] = parse_key_value(text, option);
  const auto [it, inserted] = options.emplace(key, value);
  if (!inserted)
    throw UsageError("--" + option + " " + key + " given twice ('" + it->second + "' and '" +
                     value + "')");
}

void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  // "" and "-" are standard input, which may be redirected from the output file.
  std::vector<std::filesystem::path> paths;
  for (const auto& input : inputs)
    paths.emplace_back(input.empty() || input == "-" ? std::string("/dev/stdin") : input);
  check_output_is_not_input(output, paths);
}

unsigned capped_threads(unsigned requested) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const unsigned cap = 4 * cores;
  if (requested <= cap) return requested;
  std::cerr << "note: --threads " << requested << " capped at " << cap << " (4 per core, " << cores
            << " cores)\n";
  return cap;
}

Progress::Progress() : enabled_(::isatty(STDERR_FILENO) == 1) {}
Progress::~Progress() {
  done();
}

void Progress::update(const std::string& message) {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << message << std::flush;
  dirty_ = true;
}

void Progress::done() {
  if (enabled_ && dirty_) std::cerr << "\r\033[K" << std::flush;
  dirty_ = false;
}

std::string PipelineOptions::counts_settings() const {
  return counts_settings_text(normalizer(), pre_tokenizer_options());
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace tokenlab::cli
