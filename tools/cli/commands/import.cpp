// tokenlab import: a .tkl model made from a real model's tokenizer file (tokenizer.json,
// tiktoken, SentencePiece .model) or from a BERT vocab.txt (read by a plugin).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"

namespace tokenlab::cli {

namespace {

// tokenlab import of a real model's tokenizer file (format: auto or a pretrained
// format): checked by reading it, then stored byte for byte in a .tkl model.
int import_pretrained(const std::string& input, const std::string& format,
                      const std::string& output) {
  if (format != "auto" && format != "tokenizer.json" && format != "sentencepiece" &&
      format != "tiktoken" && !format.starts_with("tiktoken:"))
    throw UsageError(
        "unknown --format '" + format +
        "': use auto, tokenizer.json, tiktoken[:ENCODING], sentencepiece or vocab.txt");
  check_binary_output_path(output);
  check_not_an_input(output, {input});
  std::string content = read_pretrained_file(input);
  const std::string resolved = resolve_pretrained_format(content, input, format);
  if (resolved.empty())
    throw Error(input +
                ": not a tokenizer file tokenlab recognises (tokenizer.json, tiktoken, "
                "SentencePiece .model); give --format (vocab.txt for a BERT vocabulary)");
  // Read it fully first: a file tokenlab cannot run exactly is refused here, not
  // when the imported model is used.
  const PretrainedTokenizer tokenizer = PretrainedTokenizer::from_bytes(content, input, resolved);
  // The model file keeps the original bytes, so an imported tokenizer is the same
  // tokenizer, with the checksum and the format check of every .tkl file.
  ModelFile file;
  file.header.plugin_name = std::string(kPretrainedPluginPrefix) + resolved;
  file.header.plugin_version.assign(1, '1');  // not = "1": GCC bug 105329 (plugins.cpp)
  file.payload = std::move(content);
  with_binary_output(output,
                     [&](const std::filesystem::path& path) { write_model_file(path, file); });
  std::cerr << "imported " << tokenizer.pipeline().format << " (" << tokenizer.vocabulary_size()
            << " ids) from " << input << " -> " << output << '\n';
  return kExitOk;
}

}  // namespace

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

}  // namespace tokenlab::cli
