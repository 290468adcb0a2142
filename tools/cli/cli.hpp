// File: cli.hpp
// Shared pieces of the tokenlab command-line tool: exit codes, the common
// pipeline options, plugin discovery and terminal progress.
#pragma once

#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tokenlab/app/program_options.hpp"
#include "tokenlab/app/requests.hpp"
#include "tokenlab/app/usage_error.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::cli {

namespace po = boost::program_options;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Ends the process with code now, for a command whose output is complete and
/// committed: flushes the standard streams and leaves the loaded model and
/// everything else to the kernel, without destroying it (clang's
/// -disable-free). Destroying a large model was a fixed cost of every run:
/// GPT-4o's tokenizer.json loaded in 15 ms and took 9 ms more to take apart
/// (its 19 MB entry unmapped, its tables freed one by one), which the kernel
/// does at exit anyway. Under a sanitizer it returns code instead, so that the
/// leak checker sees every object destroyed; the caller returns it.
int exit_without_teardown(int code);

using app::capped_threads;
using app::kMaxThreadsOption;
using app::kMaxVocabSize;
using app::PipelineOptions;
using app::ranged;
using app::RangedValue;
using app::split_list;
/// Command-line mistakes (exit code 2).
using app::UsageError;

/// Adds the pipeline's options (app::pipeline_table) to desc; call
/// pipeline.resolve() after parsing.
void add_pipeline_options(po::options_description& desc, PipelineOptions& pipeline);

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

/// check_output_path for a binary model: "-" (stdout) must not be a terminal.
void check_binary_output_path(const std::string& path);

/// Runs body on the output file (written atomically, see write_file_atomically),
/// or on stdout for "" and "-".
void with_output(const std::string& path, const std::function<void(std::ostream&)>& body);

/// For a binary model: save(path) for a file; for "-", the model goes to stdout,
/// which must not be a terminal (UsageError).
void with_binary_output(const std::string& path,
                        const std::function<void(const std::filesystem::path&)>& save);

/// "key=value" -> pair; throws UsageError.
std::pair<std::string, std::string> parse_key_value(const std::string& text,
                                                    const std::string& option);

/// Adds "key=value" to options; throws UsageError if key was already given.
void add_key_value(std::map<std::string, std::string>& options, const std::string& text,
                   const std::string& option);

/// Throws Error if output names the same file as one of inputs (see
/// check_output_is_not_input); "-" and empty names are standard streams.
void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs);

/// The commands, one file each: commands/<command>.cpp (check-plugin in check_plugin.cpp).
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
int cmd_inspect(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);
int cmd_new_plugin(const std::vector<std::string>& args);
int cmd_lab(const std::vector<std::string>& args);
int cmd_diff_vocab(const std::vector<std::string>& args);
int cmd_grade(const std::vector<std::string>& args);

}  // namespace tokenlab::cli
