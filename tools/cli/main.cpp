// tokenlab: train, run and compare subword tokenizers.
//
// Exit codes: 0 success, 1 bad input or failure ("error: ..." on stderr first),
// 2 usage (unknown command or option).
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "heap_pages.hpp"
#include "tokenlab/app/count_mpi.hpp"
#include "tokenlab/error.hpp"

namespace {

struct Command {
  int (*run)(const std::vector<std::string>&);
  const char* summary;
};

const std::map<std::string, Command>& commands() {
  using namespace tokenlab::cli;
  static const std::map<std::string, Command> table = {
      {"plugins", {cmd_plugins, "list the segmenter plugins found"}},
      {"count", {cmd_count, "count the words of a corpus into a TSV file"}},
      {"train", {cmd_train, "train one segmenter and save its model"}},
      {"encode", {cmd_encode, "encode lines of text to ids or pieces"}},
      {"decode", {cmd_decode, "decode lines of ids back to text"}},
      {"compare", {cmd_compare, "train every segmenter on one corpus and compare them"}},
      {"sweep", {cmd_sweep, "repeat compare over vocabulary sizes and plot the curves"}},
      {"check-plugin", {cmd_check_plugin, "run the conformance suite on a plugin file"}},
      {"grade",
       {cmd_grade, "grade a course assignment's plugin: a score and a reason per lost point"}},
      {"new-plugin", {cmd_new_plugin, "write a ready-to-build out-of-tree plugin to start from"}},
      {"diff-vocab", {cmd_diff_vocab, "the whole words only one of two vocabularies holds"}},
      {"lab", {cmd_lab, "serve the course page on 127.0.0.1: tokens live, BPE by hand, sizes"}},
      {"trace", {cmd_trace, "print every training step (the textbook tables)"}},
      {"nbest", {cmd_nbest, "show the k best segmentations of each word (unigram)"}},
      {"import",
       {cmd_import,
        "make a model from a real tokenizer (tokenizer.json, tiktoken, .model, "
        "BERT vocab.txt)"}},
      {"inspect", {cmd_inspect, "describe a model: type, vocabulary, pipeline, special tokens"}},
      {"export",
       {cmd_export,
        "write a model for other libraries (tokenizer.json, tiktoken, .model, vocab.txt)"}},
  };
  return table;
}

void usage(std::ostream& out) {
  out << "usage: tokenlab COMMAND [OPTIONS]   (tokenlab COMMAND --help for its "
         "options)\n\ncommands:\n";
  for (const auto& [name, command] : commands()) {
    out << "  " << name << std::string(14 - name.size(), ' ') << command.summary << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tokenlab::cli;
  (void)tune_program_heap();
  std::ios::sync_with_stdio(false);
  // Under an MPI launcher every rank runs this program; only rank 0 speaks.
  const bool mpi_ranks = tokenlab::app::started_as_mpi_ranks();
  if (mpi_ranks && tokenlab::app::launcher_rank() != 0) std::cerr.rdbuf(nullptr);
  if (argc < 2) {
    usage(std::cerr);
    return kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return kExitOk;
  }
  if (name == "--version") {
    std::cout << "tokenlab " << TOKENLAB_VERSION << '\n';
    return kExitOk;
  }
  const auto it = commands().find(name);
  if (it == commands().end()) {
    std::cerr << "error: unknown command '" << name << "'\n";
    usage(std::cerr);
    return kExitUsage;
  }
  if (mpi_ranks && name != "count") {
    std::cerr << "error: only 'count' runs across MPI ranks; run 'tokenlab " << name
              << "' as one process\n";
    return kExitUsage;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    return it->second.run(args);
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n(see 'tokenlab " << name << " --help')\n";
    return kExitUsage;
  } catch (const boost::program_options::error& e) {
    std::cerr << "error: " << e.what() << "\n(see 'tokenlab " << name << " --help')\n";
    return kExitUsage;
  } catch (const tokenlab::Error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitFailure;
  } catch (...) {
    // A plugin may throw anything; the host still ends with a message, not a
    // terminate.
    std::cerr << "error: '" << name << "' failed with an exception that is not a std::exception\n";
    return kExitFailure;
  }
}
