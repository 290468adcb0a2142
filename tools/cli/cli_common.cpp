#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_abi.hpp"

namespace tokenlab::cli {

int exit_without_teardown(int code) {
  // Any sanitizer, by the tests the plugin ABI's toolchain fingerprint makes
  // (plugin_abi.hpp): each one found adds a "+name" to this string.
  constexpr bool kSanitized =
      sizeof(
          TOKENLAB_DETAIL_ASAN TOKENLAB_DETAIL_TSAN TOKENLAB_DETAIL_MSAN TOKENLAB_DETAIL_SANITIZE) >
      1;
  if constexpr (kSanitized) return code;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

void add_pipeline_options(po::options_description& desc, PipelineOptions& pipeline) {
  app::add_options(desc, app::pipeline_table(), pipeline);
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
