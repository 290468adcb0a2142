#include "tokenlab/app/any_model.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/exported_tokenizer_json.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

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

// An exported model as a Segmenter, so that compare evaluates it word by word as
// it evaluates the model it was exported from. Each word goes to the file's own
// model, which is what HF runs on each piece its pre-tokenizer cuts: the settings
// were checked to export to the file's pre-tokenizer, so those pieces are the
// words. The vocabulary and decode are the described model's, which the metrics
// read (unknown and byte pieces, the characters a word's known pieces cover).
class ExportedSegmenter final : public Segmenter {
 public:
  ExportedSegmenter(const ModelDescription& model,
                    std::shared_ptr<const PretrainedTokenizer> tokenizer)
      : tokenizer_(std::move(tokenizer)),
        name_(model_kind_name(model.kind)),
        byte_level_(model.byte_level) {
    std::vector<bool> special(model.pieces.size(), false);
    for (const TokenId id : model.specials) special[id] = true;
    for (TokenId id = 0; id < model.pieces.size(); ++id) {
      if (special[id])
        vocabulary_.add_special(model.pieces[id]);  // throws when one follows a piece
      else
        vocabulary_.add(model.pieces[id]);
    }
    if (model.unknown) vocabulary_.set_unknown(*model.unknown);
    // What each id decodes to, as the plugins decode: byte pieces are their byte,
    // WordPiece's continuation prefix goes, the unknown token is U+2047 (WordPiece
    // keeps its text), other special tokens have no surface text.
    surfaces_ = model.pieces;
    for (TokenId id = 0; id < surfaces_.size(); ++id) {
      const std::string& piece = model.pieces[id];
      if (model.kind == ModelKind::wordpiece) {
        if (!special[id] && piece.size() > model.continuation_prefix.size() &&
            piece.starts_with(model.continuation_prefix))
          surfaces_[id] = piece.substr(model.continuation_prefix.size());
      } else if (model.unknown && id == *model.unknown) {
        surfaces_[id] = kUnknownSurface;
      } else if (special[id]) {
        surfaces_[id].clear();
      }
    }
    if (model.byte_fallback) {
      const std::vector<TokenId> bytes = byte_fallback_ids(vocabulary_);
      for (std::size_t b = 0; b < bytes.size(); ++b)
        surfaces_[bytes[b]] = std::string(1, static_cast<char>(b));
    }
  }

  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::string version() const override { return "tokenizer.json"; }

  void train(const WordCounts&, const TrainOptions&, TrainingObserver*) override {
    throw Error(name_ + " read from a tokenizer.json cannot be trained");
  }

  void encode(std::string_view word, std::vector<TokenId>& out) const override {
    const PretrainedModel& model = *tokenizer_->pipeline().model;
    if (!byte_level_) {
      model.encode(word, out);
      return;
    }
    // The file's ByteLevel pre-tokenizer spells each byte in GPT-2's alphabet
    // before its model sees the piece.
    const auto& alphabet = byte_level_alphabet();
    std::string spelled;
    for (const char c : word) utf8::append(spelled, alphabet[static_cast<unsigned char>(c)]);
    model.encode(spelled, out);
  }

  [[nodiscard]] std::string decode(std::span<const TokenId> ids) const override {
    check_ids(ids, vocabulary_.size(), name_);
    std::string text;
    for (const TokenId id : ids) text += surfaces_[id];
    return text;
  }

  [[nodiscard]] const Vocabulary& vocabulary() const override { return vocabulary_; }

  // As the file spells the token: what a trained model shows too (byte-level
  // pieces in GPT-2's alphabet, byte pieces as <0xNN>).
  [[nodiscard]] std::string display_piece(TokenId id) const override {
    check_ids(std::span<const TokenId>(&id, 1), vocabulary_.size(), name_);
    return tokenizer_->token(id);
  }

  // The file is the model: tokenlab import keeps it in a .tkl as it is.
  void save(std::ostream&) const override {
    throw Error(name_ + " read from a tokenizer.json has no payload of its own to save");
  }
  void load(std::istream&) override {
    throw Error(name_ + " read from a tokenizer.json is read from the file");
  }

 private:
  std::shared_ptr<const PretrainedTokenizer> tokenizer_;
  std::string name_;
  Vocabulary vocabulary_;
  std::vector<std::string> surfaces_;
  bool byte_level_ = false;
};

}  // namespace

std::shared_ptr<const Tokenizer> load_exported_tokenizer_json(const std::string& path) {
  std::string content;
  if (starts_like_tokenlab_model(file_head(path))) {
    ModelFile file = read_model_file(path);
    if (file.header.plugin_name != std::string(kPretrainedPluginPrefix) + "tokenizer.json")
      throw Error(path + ": not a tokenizer.json, nor a .tkl that tokenlab import made of one");
    content = std::move(file.payload);
  } else {
    content = read_pretrained_file(path);
    if (resolve_pretrained_format(content, path, "auto") != "tokenizer.json")
      throw Error(path + ": not a tokenizer.json");
  }
  const ExportedTokenizerJson exported = read_exported_tokenizer_json(content, path);
  auto tokenizer = std::make_shared<const PretrainedTokenizer>(
      PretrainedTokenizer::from_bytes(std::move(content), path, "tokenizer.json"));
  return std::make_shared<const Tokenizer>(
      exported.normalizer, exported.pre_tokenizer,
      std::make_shared<ExportedSegmenter>(exported.model, std::move(tokenizer)));
}

AnyModel load_any_model(const std::string& path, const PluginRegistry& registry,
                        const std::string& format) {
  return load_any_model(
      path, [&]() -> const PluginRegistry& { return registry; }, format);
}

AnyModel load_any_model(const std::string& path,
                        const std::function<const PluginRegistry&()>& registry,
                        const std::string& format, unsigned threads) {
  AnyModel any;
  const std::string head = file_head(path);
  if ((format == "auto" || format == "tokenlab") && starts_like_tokenlab_model(head)) {
    ModelFile file = read_model_file(path);
    const std::string& plugin = file.header.plugin_name;
    if (plugin.starts_with(kPretrainedPluginPrefix)) {
      // An imported real tokenizer: the payload is the original file, read again.
      const std::string original_format = plugin.substr(kPretrainedPluginPrefix.size());
      any.pretrained = std::make_shared<const PretrainedTokenizer>(
          PretrainedTokenizer::from_bytes(std::move(file.payload), path, original_format, threads));
      any.encoder = any.pretrained;
      any.kind = original_format;
      return any;
    }
    any.trained = std::make_shared<const Tokenizer>(Tokenizer::load(path, registry()));
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
      std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(path, format, threads));
  any.encoder = any.pretrained;
  any.kind = any.pretrained->pipeline().format;
  return any;
}

}  // namespace tokenlab
