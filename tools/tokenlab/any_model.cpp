#include "any_model.hpp"

#include <fstream>

#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"

namespace tokenlab {
namespace {

bool starts_like_tokenlab_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::string_view(magic, sizeof magic) == "TKLBMODL";
}

}  // namespace

AnyModel load_any_model(const std::string& path, const PluginRegistry& registry,
                        const std::string& format) {
  AnyModel any;
  if ((format == "auto" || format == "tokenlab") && starts_like_tokenlab_model(path)) {
    ModelFile file = read_model_file(path);
    const std::string& plugin = file.header.plugin_name;
    if (plugin.starts_with(kPretrainedPluginPrefix)) {
      // An imported real tokenizer: the payload is the original file, read again.
      const std::string original_format = plugin.substr(kPretrainedPluginPrefix.size());
      any.pretrained = std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::from_bytes(
          std::move(file.payload), path, original_format));
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
  any.pretrained = std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(path, format));
  any.encoder = any.pretrained;
  any.kind = any.pretrained->pipeline().format;
  return any;
}

}  // namespace tokenlab
