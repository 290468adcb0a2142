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

/// A numeric option (or a list of them) whose every value is checked against
/// [min, max] as it is parsed. Boost would read "-1" into an unsigned as 2^64-1;
/// here it is a usage error that gives the valid range. Use it for every numeric
/// option: po::value would accept the wrapped number.
template <class T, class Element = T>
class RangedValue : public po::typed_value<T> {
 public:
  RangedValue(T* target, Element min, Element max)
      : po::typed_value<T>(target), min_(min), max_(max) {}

  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    if constexpr (std::is_same_v<T, Element>) {
      if (tokens.size() != 1) throw po::invalid_option_value("");
      store = boost::any(parse_one(tokens.front()));
    } else {
      if (store.empty()) store = boost::any(T());
      T& list = boost::any_cast<T&>(store);
      // "768 4096", "768,4096" and repeated options all give [768, 4096], as
      // --vocab-sizes takes commas.
      for (const auto& token : tokens) {
        std::size_t begin = 0;
        for (;;) {
          const std::size_t comma = token.find(',', begin);
          list.push_back(parse_one(token.substr(begin, comma - begin)));
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
      }
    }
  }

 private:
  Element parse_one(const std::string& token) const {
    Element value{};
    const char* first = token.data();
    const char* last = first + token.size();
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || first == last || !(value >= min_ && value <= max_)) {
      std::ostringstream message;
      message << "the value '" << token << "' for option '%canonical_option%' is invalid: expected "
              << (std::is_integral_v<Element> ? "an integer" : "a number") << " in [" << min_
              << ", " << max_ << "]";
      throw po::error_with_option_name(message.str());
    }
    return value;
  }

  Element min_;
  Element max_;
};

/// ranged(&n, 1, 100): a numeric option stored in n, valid from 1 to 100.
template <class T>
RangedValue<T>* ranged(T* target, T min, T max = std::numeric_limits<T>::max()) {
  return new RangedValue<T>(target, min, max);
}

/// ranged_list(&v, 1, 100): a repeatable or multitoken numeric option.
template <class E>
RangedValue<std::vector<E>, E>* ranged_list(std::vector<E>* target, E min,
                                            E max = std::numeric_limits<E>::max()) {
  return new RangedValue<std::vector<E>, E>(target, min, max);
}

/// The largest --vocab-size accepted (2^30; token ids are 32-bit).
inline constexpr std::size_t kMaxVocabSize = std::size_t{1} << 30;

/// The most worker threads an option accepts; more are capped (see capped_threads).
inline constexpr unsigned kMaxThreadsOption = 4096;

/// The thread count to use for --threads N: N, but at most 4 x the cores (more
/// only adds memory and contention; thousands could not even be started). Prints
/// a note on stderr when it caps. 0 stays 0 (all cores).
unsigned capped_threads(unsigned requested);

/// Options every command that reads text shares.
struct PipelineOptions {
  std::string normalization = "nfc";
  bool lowercase = false;
  std::string pre_tokenizer = "unicode";
  std::string marker = "auto";
  std::string invalid_utf8 = "error";
  unsigned threads = 0;

  void add_to(po::options_description& desc);
  [[nodiscard]] NormalizerOptions normalizer() const;
  [[nodiscard]] PreTokenizerOptions pre_tokenizer_options() const;
  [[nodiscard]] InvalidUtf8Policy invalid_utf8_policy() const;
  /// What a counts file records of these settings: "normalizer=nfc
  /// pre-tokenizer=unicode/prefix" (WordCounts::settings).
  [[nodiscard]] std::string counts_settings() const;
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

/// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> split_list(const std::string& text);

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

}  // namespace tokenlab::cli
