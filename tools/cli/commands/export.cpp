// tokenlab export: a model written for other libraries (tokenizer.json, tiktoken,
// SentencePiece .model, BERT vocab.txt), verified before it is written.
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::cli {

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
  std::string model;
  std::string output;
  std::string verify;
  std::vector<std::string> plugin_dirs;
  app::ExportRequest request;
  po::options_description desc("options");
  app::add_options(desc, app::export_table(), request);
  desc.add_options()("model,m", po::value(&model)->required(), "model file")(
      "output,o", po::value(&output)->required(), "file to write (- for stdout)")(
      "verify", po::value(&verify),
      "TEXT: read the written file back and compare its ids with the model's on every line")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::variables_map vm;
  if (!parse("export",
             "--format tokenizer.json|tiktoken|tiktoken-json|sentencepiece|vocab.txt -m MODEL "
             "-o FILE "
             "[--verify TEXT]",
             desc, {}, args, vm))
    return kExitOk;
  request.check(!verify.empty());
  const std::string& format = request.format;
  const bool approximate = request.approximate;
  const bool dropout = request.dropout;
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
  const app::ExportedModel exported =
      app::export_tokenizer(tokenizer, request, output, app::note_to_stderr);
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
