#include <unistd.h>

#include <iostream>

#include "cli.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::cli {

void PipelineOptions::add_to(po::options_description& desc) {
  desc.add_options()("normalization", po::value(&normalization)->default_value(normalization),
                     "nfc | nfkc | none | bert (BERT's text cleaning, as HF's BertNormalizer)")(
      "lowercase", po::bool_switch(&lowercase), "lowercase after normalization")(
      "pre-tokenizer", po::value(&pre_tokenizer)->default_value(pre_tokenizer),
      "unicode (whitespace, punctuation, script and digit boundaries) | whitespace | icu-words | "
      "bert")("marker", po::value(&marker)->default_value(marker),
              "boundary marker U+2581 as prefix | suffix | none")(
      "invalid-utf8", po::value(&invalid_utf8)->default_value(invalid_utf8),
      "what to do with invalid UTF-8: error | replace | skip")(
      "threads", po::value(&threads)->default_value(threads), "worker threads (0 = all cores)");
}

NormalizerOptions PipelineOptions::normalizer() const {
  NormalizerOptions o = NormalizerOptions::parse(normalization);
  o.lowercase = o.lowercase || lowercase;
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
  return true;
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

}  // namespace tokenlab::cli
