// tokenlab inspect: what a model is: type, vocabulary, pipeline, special tokens.
#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/added_tokens.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab::cli {

namespace {

// A list as "a, b, c", cut after limit items with the number left out.
std::string joined(const std::vector<std::string>& items, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += ", ... (" + std::to_string(items.size() - limit) + " more)";
  return items.empty() ? "none" : out;
}

void print_field(const std::string& name, const std::string& value) {
  std::cout << name << std::string(name.size() < 15 ? 15 - name.size() : 1, ' ') << value << '\n';
}

template <class Steps>
std::string describe_steps(const Steps& steps) {
  std::vector<std::string> parts;
  for (const auto& step : steps) parts.push_back(step->describe());
  return parts.empty() ? "none" : joined(parts, parts.size());
}

void inspect_pretrained(const PretrainedTokenizer& tokenizer, const std::string& file) {
  const PretrainedPipeline& p = tokenizer.pipeline();
  print_field("file", file);
  print_field("format", p.format + (p.source != file ? " (imported from " + p.source + ")" : ""));
  if (!p.compiled_entry.empty())
    print_field("tables", "read from " + p.compiled_entry +
                              (p.compiled_by_stamp ? " (the file known by its stamp: not digested, "
                                                     "its lists not read)"
                                                   : ""));
  const std::string options = p.model->describe();
  print_field("model", p.model->type() + (options.empty() ? "" : " (" + options + ")"));
  print_field("vocabulary", std::to_string(tokenizer.vocabulary_size()) + " ids (" +
                                std::to_string(p.tokens->size()) + " model tokens, " +
                                std::to_string(p.added.tokens().size()) + " added tokens)");
  print_field("normalizer", describe_steps(p.normalizers));
  print_field("pre-tokenizer", describe_steps(p.pre_tokenizers));
  print_field("decoder", describe_steps(p.decoders));
  std::vector<std::string> special;
  std::size_t plain_added = 0;
  for (const AddedToken& t : p.added.tokens()) {
    if (t.special)
      special.push_back(t.content + "=" + std::to_string(t.id));
    else
      ++plain_added;
  }
  print_field("special tokens", joined(special, 12));
  if (plain_added > 0)
    print_field("other added", std::to_string(plain_added) + " tokens matched in the text first");
  if (const auto unknown = tokenizer.unknown_id())
    print_field("unknown", tokenizer.token(*unknown) + "=" + std::to_string(*unknown));
  const std::size_t byte_pieces = tokenizer.byte_fallback_ids().size();
  if (byte_pieces > 0) print_field("byte fallback", std::to_string(byte_pieces) + " byte pieces");
}

void inspect_trained(const Tokenizer& tokenizer, const std::string& file, const std::string& kind) {
  const Segmenter& segmenter = tokenizer.segmenter();
  const Vocabulary& vocabulary = segmenter.vocabulary();
  print_field("file", file);
  print_field("format", "tokenlab model (trained by tokenlab)");
  print_field("model", kind);
  print_field("vocabulary", std::to_string(tokenizer.vocabulary_size()) + " ids");
  print_field("normalizer", tokenizer.normalizer().options().to_string());
  print_field("pre-tokenizer", tokenizer.pre_tokenizer().options().to_string());
  const bool own_spaces = tokenizer.pre_tokenizer().options().marker == MarkerStyle::space;
  print_field("decoder", std::string("the pieces joined") +
                             (own_spaces ? ", spaces their own" : ", boundary markers as spaces") +
                             " (" + kind + " plugin)");
  std::vector<std::string> special;
  for (TokenId id = 0; id < vocabulary.special_count(); ++id)
    special.push_back(vocabulary.piece(id) + "=" + std::to_string(id));
  print_field("special tokens", joined(special, 12));
  if (const auto unknown = tokenizer.unknown_id())
    print_field("unknown", vocabulary.piece(*unknown) + "=" + std::to_string(*unknown));
  const std::size_t byte_pieces = tokenizer.byte_fallback_ids().size();
  if (byte_pieces > 0) print_field("byte fallback", std::to_string(byte_pieces) + " byte pieces");
}

}  // namespace

int cmd_inspect(const std::vector<std::string>& args) {
  std::string model;
  std::string format;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(),
                     "model: a .tkl file, tokenizer.json, tiktoken or SentencePiece .model")(
      "format", po::value(&format)->default_value("auto"),
      "what the model is: auto (detect), tokenizer.json, tiktoken[:ENCODING], sentencepiece")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  if (!parse("inspect", "MODEL [--format FORMAT]", desc, positional, args, vm)) return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  const AnyModel loaded = load_any_model(model, registry, format);
  if (loaded.pretrained)
    inspect_pretrained(*loaded.pretrained, model);
  else
    inspect_trained(*loaded.trained, model, loaded.kind);
  return kExitOk;
}

}  // namespace tokenlab::cli
