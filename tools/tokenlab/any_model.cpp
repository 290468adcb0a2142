#include "any_model.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/formats.hpp"

namespace tokenlab {
namespace {

// The first bytes of a file: enough for the magic number and for format detection.
std::string file_head(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

bool starts_like_tokenlab_model(std::string_view head) {
  return head.starts_with("TKLBMODL");
}

}  // namespace

AnyModel load_any_model(const std::string& path, const PluginRegistry& registry,
                        const std::string& format) {
  AnyModel any;
  const std::string head = file_head(path);
  if ((format == "auto" || format == "tokenlab") && starts_like_tokenlab_model(head)) {
    ModelFile file = read_model_file(path);
    const std::string& plugin = file.header.plugin_name;
    if (plugin.starts_with(kPretrainedPluginPrefix)) {
      // An imported real tokenizer: the payload is the original file, read again.
      const std::string original_format = plugin.substr(kPretrainedPluginPrefix.size());
      any.pretrained = std::make_shared<const PretrainedTokenizer>(
          PretrainedTokenizer::from_bytes(std::move(file.payload), path, original_format));
      any.encoder = any.pretrained;
      any.kind = original_format;
      return any;
    }
    any.trained = std::make_shared<const Tokenizer>(Tokenizer::load(path, registry));
    any.encoder = any.trained;
    any.kind = plugin;
    return any;
  }
  if (format == "tokenlab") throw Error(path + ": not a tokenlab model file");
  // A directory or an unreadable file is left to the reader, whose message says why.
  if (format == "auto" && std::filesystem::is_regular_file(path) &&
      detect_pretrained_format(head).empty())
    throw Error(path +
                ": not a tokenlab model, nor a tokenizer file tokenlab recognises "
                "(tokenizer.json, tiktoken, SentencePiece .model); give --format to say which "
                "it is");
  any.pretrained =
      std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(path, format));
  any.encoder = any.pretrained;
  any.kind = any.pretrained->pipeline().format;
  return any;
}

}  // namespace tokenlab
