// tokenlab decode: lines of token ids back to text.
#include <charconv>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands/line_source.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::cli {

int cmd_decode(const std::vector<std::string>& args) {
  std::string model;
  std::string input;
  std::string output;
  std::string format;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(), "model file")(
      "input,i", po::value(&input), "input file of space-separated ids (default stdin)")(
      "output,o", po::value(&output), "output file (default stdout)")(
      "format", po::value(&format)->default_value("auto"),
      "what -m is: auto (detect), tokenizer.json, tiktoken[:ENCODING], sentencepiece")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::variables_map vm;
  if (!parse("decode", "-m MODEL [--input FILE]", desc, {}, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  check_output_path(output);
  check_not_an_input(output, {model, input});
  const AnyModel loaded = load_any_model(model, registry, format);
  const TextEncoder& encoder = *loaded.encoder;
  const std::size_t vocab = encoder.vocabulary_size();
  LineSource source(input);
  with_output(output, [&](std::ostream& out) {
    std::string line;
    std::vector<TokenId> ids;
    while (source.next(line)) {
      ids.clear();
      std::istringstream fields(line);
      std::string field;
      while (fields >> field) {
        std::uint64_t id = 0;
        auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), id);
        if (ec != std::errc() || ptr != field.data() + field.size())
          throw Error(source.where() + ": '" + field + "' is not a token id");
        if (id >= vocab)
          throw Error(source.where() + ": token id " + field + " is outside the vocabulary (size " +
                      std::to_string(vocab) + ")");
        ids.push_back(static_cast<TokenId>(id));
      }
      std::string text;
      try {
        text = encoder.decode(ids);
      } catch (const Error& e) {
        throw Error(source.where() + ": " + e.what());
      }
      out << text << '\n';
    }
  });
  return exit_without_teardown(kExitOk);  // the model is not taken apart
}

}  // namespace tokenlab::cli
