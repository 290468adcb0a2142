// File: any_model.hpp
// Loads whatever a user passes as -m: a tokenlab model (.tkl, including an
// imported real tokenizer) or a real model's tokenizer file (tokenizer.json,
// tiktoken, SentencePiece .model), detected from the content.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/text_encoder.hpp"
#include "tokenlab/tokenizer.hpp"

namespace tokenlab {

class PluginRegistry;

struct AnyModel {
  std::shared_ptr<const TextEncoder> encoder;
  /// Set when the file is a model tokenlab trained (sampling, n-best, export).
  std::shared_ptr<const Tokenizer> trained;
  /// Set when it is a real model's tokenizer, read directly or from an import.
  std::shared_ptr<const PretrainedTokenizer> pretrained;
  /// "bpe", "tokenizer.json", ... for messages.
  std::string kind;
};

/// format: "auto" (detect), or a pretrained format to force (tokenizer.json,
/// tiktoken[:ENCODING], sentencepiece).
AnyModel load_any_model(const std::string& path, const PluginRegistry& registry,
                        const std::string& format = "auto");
/// As above, with the plugins asked for only when the file is a model tokenlab
/// trained: registry() is called at most once, and not at all for a real model's
/// tokenizer, which then loads without loading (or warning about) any plugin.
/// threads: how many a real model's tokenizer may be read on (the same
/// tokenizer whatever it is; see PretrainedTokenizer::load).
AnyModel load_any_model(const std::string& path,
                        const std::function<const PluginRegistry&()>& registry,
                        const std::string& format = "auto", unsigned threads = 1);

/// A tokenizer.json that `tokenlab export` wrote (or a .tkl that `tokenlab import`
/// made of one), as the model tokenlab trained: the vocabulary, normalizer and
/// pre-tokenizer it was exported from (read_exported_tokenizer_json), and each
/// pre-tokenized word encoded by the file's own model, read as import reads it.
/// What compare --model evaluates as a trained row. Throws Error naming the file
/// and why when it is not such an export.
std::shared_ptr<const Tokenizer> load_exported_tokenizer_json(const std::string& path);

/// The plugin name under which an imported real tokenizer is stored in a .tkl file.
inline constexpr std::string_view kPretrainedPluginPrefix = "pretrained:";

}  // namespace tokenlab
