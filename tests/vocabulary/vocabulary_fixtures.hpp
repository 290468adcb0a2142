// Small tokenizers whose vocabularies and cuts can be checked by hand, for the
// vocabulary audit and agreement tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::test {

inline std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[v & 63] : '=';
  }
  return out;
}

/// A GPT-2-style tiktoken rank file (r50k's pattern, <|endoftext|> at 50256):
/// the 256 bytes (ranks 0-255, rank = byte), then
///   256 "ab"   257 "abc"   258 " the"   (reachable)
///   259 "\xE2\x80"   260 " \xE2\x80"   (the first two bytes of "—": partial UTF-8)
///   261 "a."   (the pattern cuts "a" from ".", so no text gives it: unreachable)
inline PretrainedTokenizer tiny_tiktoken() {
  std::string ranks;
  for (int b = 0; b < 256; ++b)
    ranks += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  const char* extra[] = {"ab", "abc", " the", "\xE2\x80", " \xE2\x80", "a."};
  for (int i = 0; i < 6; ++i) ranks += base64(extra[i]) + " " + std::to_string(256 + i) + "\n";
  return PretrainedTokenizer::from_bytes(ranks, "tiny.tiktoken", "tiktoken:r50k_base");
}

inline PretrainedTokenizer json_tokenizer(const std::string& json) {
  return PretrainedTokenizer::from_bytes(json, "tokenizer.json", "tokenizer.json");
}

/// BERT-style WordPiece: walk|ing, talk|ed, the.
inline PretrainedTokenizer wordpiece_walk() {
  return json_tokenizer(
      R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"walk":1,"##ing":2,"##ed":3,"the":4,)"
      R"("talk":5},"unk_token":"[UNK]","continuing_subword_prefix":"##",)"
      R"("max_input_chars_per_word":100},"pre_tokenizer":{"type":"BertPreTokenizer"},)"
      R"("decoder":{"type":"WordPiece","prefix":"##","cleanup":true}})");
}

/// WordPiece that cuts walking as w|alk|ing: talk|ed and the as above.
inline PretrainedTokenizer wordpiece_w_alk() {
  return json_tokenizer(
      R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"w":1,"##alk":2,"##ing":3,"talk":4,)"
      R"("##ed":5,"the":6},"unk_token":"[UNK]","continuing_subword_prefix":"##",)"
      R"("max_input_chars_per_word":100},"pre_tokenizer":{"type":"BertPreTokenizer"},)"
      R"("decoder":{"type":"WordPiece","prefix":"##","cleanup":true}})");
}

/// SentencePiece-style unigram with U+2581 word starts: ▁walk|ing, ▁talk|ed, ▁the.
inline PretrainedTokenizer metaspace_walk() {
  return json_tokenizer(
      R"({"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["\u2581walk",-2.0],)"
      R"(["ing",-2.0],["ed",-2.0],["\u2581the",-2.0],["\u2581talk",-2.0],["\u2581",-3.0]]},)"
      R"("pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always",)"
      R"("split":true},"decoder":{"type":"Metaspace","replacement":"\u2581",)"
      R"("prepend_scheme":"always","split":true}})");
}

/// npm tiktoken's encoders in the reference cache (tools/scripts/fetch-references).
inline std::filesystem::path tiktoken_encoders() {
  const char* references = std::getenv("TOKENLAB_REFERENCES");
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path root =
      references != nullptr && *references != '\0'
          ? std::filesystem::path(references)
          : (cache != nullptr && *cache != '\0'
                 ? std::filesystem::path(cache)
                 : std::filesystem::path(home ? home : "/") / ".cache") /
                "tokenlab" / "references";
  return root / "node_modules" / "tiktoken" / "encoders";
}

}  // namespace tokenlab::test
