#include "tokenlab/pretrained/tiktoken_writer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <optional>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

[[noreturn]] void refuse(const std::string& setting, const std::string& why,
                         const std::string& nearest) {
  throw Error("cannot export to tiktoken: " + setting + " " + why +
              "; the nearest exportable choice is " + nearest);
}

std::string tiktoken_pattern_name(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::gpt2:
      return "gpt2";
    case PreTokenizerKind::cl100k:
      return "cl100k_base";
    case PreTokenizerKind::o200k:
      return "o200k_base";
    default:
      return "qwen2";
  }
}

void check_pipeline(const ModelDescription& m, const NormalizerOptions& n,
                    const PreTokenizerOptions& p) {
  if (m.kind != ModelKind::bpe)
    refuse("a model of this kind", "is not byte-pair encoding, and tiktoken runs only BPE",
           "--format tokenizer.json");
  if (!m.byte_level)
    refuse("a character-level BPE (units=chars)", "merges characters, and tiktoken merges bytes",
           "--option units=bytes, or --format tokenizer.json");
  if (!is_regex_kind(p.kind))
    refuse("--pre-tokenizer " + p.to_string(), "is not a regex, and tiktoken splits by one",
           "--pre-tokenizer cl100k, o200k, gpt2 or qwen2");
  if (p.marker != MarkerStyle::space)
    refuse("--pre-tokenizer " + p.to_string(), "adds markers tiktoken does not", "marker space");
  if (n.form != NormalizationForm::none || n.lowercase || n.strip_accents)
    refuse("--normalization " + n.to_string(), "changes the text, and tiktoken has no normalizer",
           "--normalization none");
  if (!n.keep_whitespace)
    refuse("the normalizer", "collapses white space, which tiktoken keeps",
           "+keep-whitespace (what tokenlab sets for the regex presets)");
}

}  // namespace

std::string encode_base64(std::string_view bytes) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t buffer = 0;
    for (std::size_t j = 0; j < 3; ++j)
      buffer = (buffer << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0U);
    for (std::size_t j = 0; j < 4; ++j)
      out += j <= n ? kAlphabet[(buffer >> (18 - 6 * j)) & 0x3F] : '=';
  }
  return out;
}

TiktokenExport write_tiktoken(const ModelDescription& m, const NormalizerOptions& normalizer,
                              const PreTokenizerOptions& pre_tokenizer) {
  check_pipeline(m, normalizer, pre_tokenizer);
  TiktokenExport out;
  out.pattern_name = tiktoken_pattern_name(pre_tokenizer.kind);
  out.pattern = std::string(regex_pattern(pre_tokenizer.kind));
  std::vector<bool> special(m.pieces.size(), false);
  for (const TokenId id : m.specials) {
    special[id] = true;
    out.specials.emplace_back(m.pieces[id], id);
  }
  for (TokenId id = 0; id < m.pieces.size(); ++id) {
    if (special[id]) continue;
    out.tokens.emplace_back(m.pieces[id], id);
    out.ranks += encode_base64(m.pieces[id]);
    out.ranks += ' ';
    out.ranks += std::to_string(id);
    out.ranks += '\n';
  }
  return out;
}

std::string TiktokenExport::encoder_json() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("pat_str");
  w.String(pattern.data(), static_cast<rapidjson::SizeType>(pattern.size()));
  w.Key("special_tokens");
  w.StartObject();
  for (const auto& [content, id] : specials) {
    w.Key(content.data(), static_cast<rapidjson::SizeType>(content.size()));
    w.Uint(id);
  }
  w.EndObject();
  // npm tiktoken's compact form: "! R" gives the rank of the next token, and
  // each token after it takes the next rank.
  std::string compact;
  std::optional<std::uint64_t> next;
  for (const auto& [token, rank] : tokens) {
    if (next != rank) compact += (compact.empty() ? "! " : " ! ") + std::to_string(rank);
    compact += ' ';
    compact += encode_base64(token);
    next = rank + 1;
  }
  w.Key("bpe_ranks");
  w.String(compact.data(), static_cast<rapidjson::SizeType>(compact.size()));
  w.EndObject();
  std::string json(buffer.GetString(), buffer.GetSize());
  json += '\n';
  return json;
}

}  // namespace tokenlab
