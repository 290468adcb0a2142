// File: cli.hpp
// Shared pieces of the tokenlab command-line tool: exit codes, the common
// pipeline options, plugin discovery and terminal progress.
#pragma once

#include <boost/program_options.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "tokenlab/corpus.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"

namespace tokenlab::cli {

namespace po = boost::program_options;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Thrown for command-line mistakes (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Options every command that reads text shares.
struct PipelineOptions {
  std::string normalization = "nfc";
  bool lowercase = false;
  std::string pre_tokenizer = "unicode";
  std::string marker = "prefix";
  std::string invalid_utf8 = "error";
  unsigned threads = 0;

  void add_to(po::options_description& desc);
  [[nodiscard]] NormalizerOptions normalizer() const;
  [[nodiscard]] PreTokenizerOptions pre_tokenizer_options() const;
  [[nodiscard]] InvalidUtf8Policy invalid_utf8_policy() const;
};

/// Loads plugins from --plugin-dir, $TOKENLAB_PLUGIN_PATH and beside the executable.
void load_plugins(PluginRegistry& registry, const std::vector<std::string>& plugin_dirs);

/// Parses argv for one subcommand. Returns false if --help was printed.
bool parse(const std::string& command, const std::string& synopsis, po::options_description& desc,
           const po::positional_options_description& positional,
           const std::vector<std::string>& args, po::variables_map& vm);

/// Progress lines on stderr, only when stderr is a terminal.
class Progress {
 public:
  Progress();
  ~Progress();
  void update(const std::string& message);
  void done();

 private:
  bool enabled_;
  bool dirty_ = false;
};

/// Fails early (before any long work) if path cannot be written: it is a
/// directory, its directory does not exist, or that directory is not writable.
void check_output_path(const std::string& path);

/// "key=value" -> pair; throws UsageError.
std::pair<std::string, std::string> parse_key_value(const std::string& text,
                                                    const std::string& option);

int cmd_plugins(const std::vector<std::string>& args);
int cmd_count(const std::vector<std::string>& args);
int cmd_train(const std::vector<std::string>& args);
int cmd_encode(const std::vector<std::string>& args);
int cmd_decode(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_check_plugin(const std::vector<std::string>& args);
int cmd_trace(const std::vector<std::string>& args);
int cmd_nbest(const std::vector<std::string>& args);
int cmd_import(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);

}  // namespace tokenlab::cli
