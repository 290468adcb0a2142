// Hugging Face tokenizers' tokenizer.json, read into a PretrainedPipeline; and a
// tokenizer.json that tokenlab's export wrote, read back into what it describes.
//
// Every component and option is checked: an unknown component type, or an
// option that would change the ids and that tokenlab does not implement, is an
// Error naming its JSON path. Only options that cannot change ids or text are
// accepted and ignored (trim_offsets, truncation, padding, post_processor: the
// pipeline encodes text without adding special tokens, as encode(text, false)).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rapidjson/error/en.h>

#include "json_value.hpp"
#include "serde_numbers.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/json_nesting.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/exported_tokenizer_json.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

using json::Value;

char32_t single_character(const Value& v) {
  const std::string_view s = v.string();
  if (s.empty() || utf8::sequence_length(s, 0) != s.size())
    v.fail("expected a single character, found \"" + std::string(s) + "\"");
  return utf8::decode_at(s, 0);
}

// {"String": "..."} or {"Regex": "..."}
std::pair<std::string, bool> pattern_of(const Value& v) {
  if (const auto s = v.find("String")) return {std::string(s->string()), false};
  if (const auto r = v.find("Regex")) return {std::string(r->string()), true};
  v.fail("expected {\"String\": ...} or {\"Regex\": ...}");
}

PrependScheme prepend_scheme_of(const Value& v) {
  if (const auto scheme = v.find("prepend_scheme")) {
    const std::string_view s = scheme->string();
    if (s == "always") return PrependScheme::always;
    if (s == "never") return PrependScheme::never;
    if (s == "first") return PrependScheme::first;
    scheme->fail("unknown prepend_scheme \"" + std::string(s) + "\"");
  }
  // Files written before tokenizers 0.14 carry add_prefix_space instead.
  return v.boolean_or("add_prefix_space", true) ? PrependScheme::always : PrependScheme::never;
}

SplitBehavior behavior_of(const Value& v) {
  const Value b = v.member("behavior");
  const auto behavior = parse_split_behavior(b.string());
  if (!behavior) b.fail("unknown split behavior \"" + std::string(b.string()) + "\"");
  return *behavior;
}

void add_normalizers(const Value& v, std::vector<std::unique_ptr<NormalizerStep>>& out) {
  const std::string type(v.member("type").string());
  try {
    if (type == "Sequence") {
      v.only_members({"type", "normalizers"});
      const Value list = v.member("normalizers");
      for (std::size_t i = 0; i < list.size(); ++i) add_normalizers(list.at(i), out);
    } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
      v.only_members({"type"});
      const UnicodeForm form = type == "NFC"    ? UnicodeForm::nfc
                               : type == "NFD"  ? UnicodeForm::nfd
                               : type == "NFKC" ? UnicodeForm::nfkc
                                                : UnicodeForm::nfkd;
      out.push_back(make_unicode_normalizer(form));
    } else if (type == "Lowercase") {
      v.only_members({"type"});
      out.push_back(make_lowercase_normalizer());
    } else if (type == "StripAccents") {
      v.only_members({"type"});
      out.push_back(make_strip_accents_normalizer());
    } else if (type == "Replace") {
      v.only_members({"type", "pattern", "content"});
      auto [pattern, is_regex] = pattern_of(v.member("pattern"));
      out.push_back(make_replace_normalizer(std::move(pattern), is_regex,
                                            std::string(v.member("content").string())));
    } else if (type == "Prepend") {
      v.only_members({"type", "prepend"});
      out.push_back(make_prepend_normalizer(std::string(v.member("prepend").string())));
    } else if (type == "Strip") {
      v.only_members({"type", "strip_left", "strip_right"});
      out.push_back(make_strip_normalizer(v.boolean_or("strip_left", false),
                                          v.boolean_or("strip_right", false)));
    } else if (type == "BertNormalizer") {
      v.only_members({"type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"});
      const bool lowercase = v.boolean_or("lowercase", true);
      out.push_back(make_bert_normalizer(v.boolean_or("clean_text", true),
                                         v.boolean_or("handle_chinese_chars", true),
                                         v.boolean_or("strip_accents", lowercase), lowercase));
    } else if (type == "Precompiled") {
      v.only_members({"type", "precompiled_charsmap"});
      const auto map = v.find("precompiled_charsmap");
      if (!map) return;  // HF: an empty map changes nothing
      std::string bytes;
      const std::string_view encoded = map->string();
      // base64
      static constexpr std::string_view kAlphabet =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      std::uint32_t buffer = 0;
      int bits = 0;
      for (std::size_t i = 0; i < encoded.size(); ++i) {
        const char c = encoded[i];
        if (c == '=') break;
        const auto d = kAlphabet.find(c);
        if (d == std::string_view::npos)
          map->fail("invalid base64 character at offset " + std::to_string(i));
        buffer = (buffer << 6) | static_cast<std::uint32_t>(d);
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          bytes += static_cast<char>((buffer >> bits) & 0xFF);
        }
      }
      out.push_back(make_precompiled_normalizer(std::move(bytes), map->path()));
    } else {
      v.member("type").fail("tokenlab does not implement the normalizer \"" + type + "\"");
    }
  } catch (const Error& e) {
    const std::string message = e.what();
    if (message.find(v.path()) != std::string::npos) throw;
    v.fail(message);
  }
}

void add_pre_tokenizers(const Value& v, std::vector<std::unique_ptr<PreTokenizerStep>>& out) {
  const std::string type(v.member("type").string());
  try {
    if (type == "Sequence") {
      v.only_members({"type", "pretokenizers"});
      const Value list = v.member("pretokenizers");
      for (std::size_t i = 0; i < list.size(); ++i) add_pre_tokenizers(list.at(i), out);
    } else if (type == "ByteLevel") {
      v.only_members({"type", "add_prefix_space", "trim_offsets", "use_regex"});
      out.push_back(make_byte_level_pre_tokenizer(v.boolean_or("add_prefix_space", true),
                                                  v.boolean_or("use_regex", true)));
    } else if (type == "Split") {
      v.only_members({"type", "pattern", "behavior", "invert"});
      auto [pattern, is_regex] = pattern_of(v.member("pattern"));
      out.push_back(make_split_pre_tokenizer(std::move(pattern), is_regex, behavior_of(v),
                                             v.boolean_or("invert", false)));
    } else if (type == "Metaspace") {
      v.only_members(
          {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"});
      out.push_back(make_metaspace_pre_tokenizer(single_character(v.member("replacement")),
                                                 prepend_scheme_of(v),
                                                 v.boolean_or("split", true)));
    } else if (type == "Whitespace") {
      v.only_members({"type"});
      out.push_back(make_whitespace_pre_tokenizer());
    } else if (type == "WhitespaceSplit") {
      v.only_members({"type"});
      out.push_back(make_whitespace_split_pre_tokenizer());
    } else if (type == "BertPreTokenizer") {
      v.only_members({"type"});
      out.push_back(make_bert_pre_tokenizer());
    } else if (type == "Digits") {
      v.only_members({"type", "individual_digits"});
      out.push_back(make_digits_pre_tokenizer(v.boolean_or("individual_digits", false)));
    } else if (type == "Punctuation") {
      v.only_members({"type", "behavior"});
      out.push_back(make_punctuation_pre_tokenizer(v.find("behavior") ? behavior_of(v)
                                                                      : SplitBehavior::isolated));
    } else {
      v.member("type").fail("tokenlab does not implement the pre-tokenizer \"" + type + "\"");
    }
  } catch (const Error& e) {
    const std::string message = e.what();
    if (message.find(v.path()) != std::string::npos) throw;
    v.fail(message);
  }
}

void add_decoders(const Value& v, std::vector<std::unique_ptr<DecoderStep>>& out) {
  const std::string type(v.member("type").string());
  if (type == "Sequence") {
    v.only_members({"type", "decoders"});
    const Value list = v.member("decoders");
    for (std::size_t i = 0; i < list.size(); ++i) add_decoders(list.at(i), out);
  } else if (type == "ByteLevel") {
    v.only_members({"type", "add_prefix_space", "trim_offsets", "use_regex"});
    out.push_back(make_byte_level_decoder());
  } else if (type == "Metaspace") {
    v.only_members(
        {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"});
    out.push_back(
        make_metaspace_decoder(single_character(v.member("replacement")), prepend_scheme_of(v)));
  } else if (type == "WordPiece") {
    v.only_members({"type", "prefix", "cleanup"});
    out.push_back(make_wordpiece_decoder(v.optional_string("prefix").value_or("##"),
                                         v.boolean_or("cleanup", true)));
  } else if (type == "ByteFallback") {
    v.only_members({"type"});
    out.push_back(make_byte_fallback_decoder());
  } else if (type == "Fuse") {
    v.only_members({"type"});
    out.push_back(make_fuse_decoder());
  } else if (type == "Strip") {
    v.only_members({"type", "content", "start", "stop"});
    out.push_back(make_strip_decoder(single_character(v.member("content")),
                                     v.member("start").unsigned_integer(),
                                     v.member("stop").unsigned_integer()));
  } else if (type == "Replace") {
    v.only_members({"type", "pattern", "content"});
    auto [pattern, is_regex] = pattern_of(v.member("pattern"));
    out.push_back(make_replace_decoder(std::move(pattern), is_regex,
                                       std::string(v.member("content").string())));
  } else if (type == "BPEDecoder") {
    v.only_members({"type", "suffix"});
    out.push_back(make_bpe_suffix_decoder(v.optional_string("suffix").value_or("</w>")));
  } else {
    v.member("type").fail("tokenlab does not implement the decoder \"" + type + "\"");
  }
}

// A {token: id} vocabulary into the table.
void read_vocab_object(const Value& vocab, TokenTable& tokens, const std::string& file) {
  if (!vocab.is_object()) vocab.fail("expected an object of token: id, found " + vocab.kind());
  tokens.reserve(vocab.raw().MemberCount());
  for (auto it = vocab.raw().MemberBegin(); it != vocab.raw().MemberEnd(); ++it) {
    std::string token(it->name.GetString(), it->name.GetStringLength());
    const Value id(it->value, vocab.child_path("\"" + token + "\""), file);
    const auto n = id.unsigned_integer();
    if (n > TokenTable::kMaxId) id.fail("id " + std::to_string(n) + " is too large");
    if (!tokens.insert(static_cast<TokenId>(n), std::move(token), file + ": " + id.path()))
      vocab.fail("the member \"" + std::string(it->name.GetString(), it->name.GetStringLength()) +
                 "\" appears more than once (a JSON object's names must be distinct)");
  }
}

// The digits of each Unigram score as the file spells them (model.vocab[i][1]),
// read from an unparsed copy with numbers kept as text: HF reads those digits
// with serde_json, and digits other than the shortest ones (tokenlab's export
// writes some) give other doubles than a correctly rounded parse would suggest.
// Empty when the copy has no such array; the scores are then read as numbers.
std::vector<std::string> unigram_score_digits(std::string copy) {
  rapidjson::Document raw;
  raw.ParseInsitu<rapidjson::kParseNumbersAsStringsFlag>(copy.data());
  std::vector<std::string> digits;
  if (raw.HasParseError() || !raw.IsObject()) return digits;
  const auto model = raw.FindMember("model");
  if (model == raw.MemberEnd() || !model->value.IsObject()) return digits;
  const auto vocab = model->value.FindMember("vocab");
  if (vocab == model->value.MemberEnd() || !vocab->value.IsArray()) return digits;
  for (const auto& entry : vocab->value.GetArray()) {
    if (!entry.IsArray() || entry.Size() != 2 || !entry[1].IsString()) return {};
    digits.emplace_back(entry[1].GetString(), entry[1].GetStringLength());
  }
  return digits;
}

void read_model(const Value& model, PretrainedPipeline& p, const std::string& file,
                const std::vector<std::string>& score_digits) {
  auto table = std::make_shared<TokenTable>();
  p.tokens = table;
  const auto type_value = model.find("type");
  // Files from tokenizers before 0.9 have no type: BPE if there are merges.
  const std::string type = type_value             ? std::string(type_value->string())
                           : model.find("merges") ? "BPE"
                                                  : "";
  if (type == "BPE") {
    model.only_members({"type", "vocab", "merges", "dropout", "unk_token",
                        "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                        "byte_fallback", "ignore_merges"});
    read_vocab_object(model.member("vocab"), *table, file);
    std::vector<std::pair<std::string, std::string>> merges;
    const Value list = model.member("merges");
    merges.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Value m = list.at(i);
      if (m.is_string()) {
        const std::string_view s = m.string();
        const auto space = s.find(' ');
        if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos)
          m.fail("expected \"left right\" (two tokens and one space), found \"" + std::string(s) +
                 "\"");
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (m.is_array()) {
        if (m.size() != 2) m.fail("expected a pair of tokens");
        merges.emplace_back(m.at(0).string(), m.at(1).string());
      } else {
        m.fail("expected \"left right\" or [left, right], found " + m.kind());
      }
    }
    BpeModelOptions options;
    options.unknown_token = model.optional_string("unk_token");
    options.continuing_subword_prefix =
        model.optional_string("continuing_subword_prefix").value_or("");
    options.end_of_word_suffix = model.optional_string("end_of_word_suffix").value_or("");
    options.fuse_unknown = model.boolean_or("fuse_unk", false);
    options.byte_fallback = model.boolean_or("byte_fallback", false);
    options.ignore_merges = model.boolean_or("ignore_merges", false);
    if (const auto d = model.find("dropout")) {
      options.dropout = d->number();
      if (*options.dropout != 0.0)
        d->fail(
            "BPE-dropout makes HF's encode random; tokenlab reads only files without it "
            "(sample with a trained model instead)");
    }
    p.model = make_bpe_model(p.tokens, merges, options, file + ": " + model.path());
  } else if (type == "WordPiece") {
    model.only_members(
        {"type", "vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"});
    read_vocab_object(model.member("vocab"), *table, file);
    const auto max_chars = model.find("max_input_chars_per_word");
    p.model = make_wordpiece_model(
        p.tokens, model.optional_string("unk_token").value_or("[UNK]"),
        model.optional_string("continuing_subword_prefix").value_or("##"),
        max_chars ? max_chars->unsigned_integer() : 100, file + ": " + model.path());
  } else if (type == "WordLevel") {
    model.only_members({"type", "vocab", "unk_token"});
    read_vocab_object(model.member("vocab"), *table, file);
    p.model = make_word_level_model(p.tokens, std::string(model.member("unk_token").string()),
                                    file + ": " + model.path());
  } else if (type == "Unigram") {
    model.only_members({"type", "vocab", "unk_id", "byte_fallback"});
    const Value vocab = model.member("vocab");
    std::vector<double> scores(vocab.size());
    table->reserve(vocab.size());
    for (std::size_t i = 0; i < vocab.size(); ++i) {
      const Value entry = vocab.at(i);
      if (entry.size() != 2) entry.fail("expected [token, score]");
      const double score = entry.at(1).number();  // checks that it is a number
      scores[i] = vocab.size() == score_digits.size() ? detail::serde_json_parse(score_digits[i])
                                                      : detail::as_serde_json_reads(score);
      table->insert(static_cast<TokenId>(i), std::string(entry.at(0).string()),
                    file + ": " + entry.path());
    }
    std::optional<TokenId> unknown;
    if (const auto u = model.find("unk_id")) {
      const auto id = u->unsigned_integer();
      if (id >= vocab.size()) u->fail("unk_id " + std::to_string(id) + " is not in the vocabulary");
      unknown = static_cast<TokenId>(id);
    }
    p.model = make_unigram_model(p.tokens, std::move(scores), unknown,
                                 model.boolean_or("byte_fallback", false));
  } else {
    (type_value ? *type_value : model)
        .fail("tokenlab does not implement the model \"" + type + "\"");
  }
}

}  // namespace

PretrainedPipeline read_tokenizer_json(std::string content, const std::string& source) {
  // In situ parsing decodes strings in place, so after an error the bytes before the
  // error offset no longer show where lines ended ("\\n" escapes become newlines).
  // Line ends are noted first: a uint32 per line, freed once the file is read.
  std::vector<std::uint32_t> line_ends;
  for (std::size_t i = content.find('\n'); i != std::string::npos; i = content.find('\n', i + 1))
    line_ends.push_back(static_cast<std::uint32_t>(i));
  // Before any parse: RapidJSON and the readers below recurse once a level.
  check_json_nesting(content, kMaxJsonNesting, source);
  // Unigram scores need their digits as written (unigram_score_digits); only a
  // file that names the model type pays for the copy.
  std::vector<std::string> score_digits;
  if (content.find("\"Unigram\"") != std::string::npos)
    score_digits = unigram_score_digits(content);
  rapidjson::Document document;
  // In situ: strings stay in content, so a 33 MB file costs little more than itself.
  document.ParseInsitu<rapidjson::kParseFullPrecisionFlag>(content.data());
  if (document.HasParseError()) {
    const std::size_t offset = document.GetErrorOffset();
    const std::size_t line =
        1 + static_cast<std::size_t>(std::lower_bound(line_ends.begin(), line_ends.end(), offset) -
                                     line_ends.begin());
    throw Error(source + ": line " + std::to_string(line) + " (byte " + std::to_string(offset) +
                "): malformed JSON: " + rapidjson::GetParseError_En(document.GetParseError()));
  }
  std::vector<std::uint32_t>().swap(line_ends);
  const Value root(document, "", source);
  if (!root.is_object()) root.fail("expected a JSON object (tokenizer.json), found " + root.kind());
  // model.vocab's object (200,000 names) is checked as it is read (read_vocab_object).
  const rapidjson::Value* vocab = nullptr;
  if (const auto model = root.find("model"); model && model->is_object())
    if (const auto v = model->find("vocab"); v && v->is_object()) vocab = &v->raw();
  root.refuse_duplicate_members(vocab);
  root.only_members({"version", "truncation", "padding", "added_tokens", "normalizer",
                     "pre_tokenizer", "post_processor", "decoder", "model"});
  PretrainedPipeline p;
  p.format = "tokenizer.json";
  read_model(root.member("model"), p, source, score_digits);
  if (const auto n = root.find("normalizer")) add_normalizers(*n, p.normalizers);
  if (const auto t = root.find("pre_tokenizer")) add_pre_tokenizers(*t, p.pre_tokenizers);
  if (const auto d = root.find("decoder")) add_decoders(*d, p.decoders);
  if (const auto added = root.find("added_tokens")) {
    std::unordered_map<std::string, TokenId> added_ids;
    std::optional<TokenId> largest_added;
    for (std::size_t i = 0; i < added->size(); ++i) {
      const Value a = added->at(i);
      a.only_members({"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"});
      AddedToken token;
      const auto id = a.member("id").unsigned_integer();
      if (id > TokenTable::kMaxId)
        a.member("id").fail("id " + std::to_string(id) + " is too large");
      token.id = static_cast<TokenId>(id);
      token.content = a.member("content").string();
      token.special = a.boolean_or("special", false);
      token.single_word = a.boolean_or("single_word", false);
      token.lstrip = a.boolean_or("lstrip", false);
      token.rstrip = a.boolean_or("rstrip", false);
      token.normalized = a.boolean_or("normalized", !token.special);
      if (token.normalized) {
        token.normalized_content = token.content;
        for (const auto& step : p.normalizers) step->apply(token.normalized_content);
      }
      if (token.content.empty()) continue;  // HF skips it, and gives it no id
      // As HF's AddedVocabulary::add_tokens, which ignores the file's id: a content
      // the model has takes the model's id, one added before takes that one's id,
      // and any other the next id after the model's vocabulary and the added
      // tokens so far (HF only warns when that differs from the file's id).
      if (const auto model_id = p.tokens->find(token.content)) {
        token.id = *model_id;
      } else if (const auto earlier = added_ids.find(token.content); earlier != added_ids.end()) {
        token.id = earlier->second;
      } else {
        const std::size_t model_size = p.tokens->size();
        std::uint64_t next = model_size;
        if (largest_added && (*largest_added >= model_size || model_size == 0))
          next = std::uint64_t{*largest_added} + 1;
        if (next > TokenTable::kMaxId)
          a.member("id").fail("id " + std::to_string(next) + " is too large");
        token.id = static_cast<TokenId>(next);
        if (const std::string* other = p.tokens->token(token.id))
          a.member("id").fail("HF tokenizers gives \"" + token.content + "\" the id " +
                              std::to_string(token.id) + ", which is the model's token \"" +
                              *other + "\" (the vocabulary has gaps)");
      }
      largest_added = std::max(largest_added.value_or(0), token.id);
      added_ids.emplace(token.content, token.id);
      p.added.add(std::move(token));
    }
  }
  return p;
}

namespace {

[[noreturn]] void not_an_export(const std::string& source, const std::string& why) {
  throw Error(source + ": not a tokenizer.json as tokenlab export writes it: " + why);
}

// A top-level member, null when absent (the writer writes every one it has).
const rapidjson::Value& top_member(const rapidjson::Value& document, const char* name) {
  static const rapidjson::Value null;
  const auto it = document.FindMember(name);
  return it == document.MemberEnd() ? null : it->value;
}

rapidjson::Document parse_written(const std::string& json) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  return document;
}

// A {token: id} vocabulary as pieces by id, which must be 0..N-1 without gaps:
// a tokenlab vocabulary is dense.
std::vector<std::string> pieces_by_id(const Value& vocab, const std::string& source) {
  if (!vocab.is_object()) vocab.fail("expected an object of token: id, found " + vocab.kind());
  const std::size_t count = vocab.raw().MemberCount();
  std::vector<std::string> pieces(count);
  std::vector<bool> seen(count, false);
  for (auto it = vocab.raw().MemberBegin(); it != vocab.raw().MemberEnd(); ++it) {
    std::string token(it->name.GetString(), it->name.GetStringLength());
    const Value id(it->value, vocab.child_path("\"" + token + "\""), source);
    const auto n = id.unsigned_integer();
    if (n >= count || seen[n])
      not_an_export(source, vocab.path() + ": the ids are not 0 to " + std::to_string(count - 1) +
                                " each once");
    seen[n] = true;
    pieces[n] = std::move(token);
  }
  return pieces;
}

// The model member read into a description (pieces as the file spells them).
ModelDescription description_of(const Value& model, const std::string& source,
                                const std::vector<std::string>& score_digits) {
  ModelDescription m;
  const std::string type(model.member("type").string());
  const auto unknown_token = [&](const std::optional<std::string>& token) {
    if (!token) return;
    const auto it = std::find(m.pieces.begin(), m.pieces.end(), *token);
    if (it == m.pieces.end()) model.member("unk_token").fail("not in the vocabulary");
    m.unknown = static_cast<TokenId>(it - m.pieces.begin());
  };
  if (type == "BPE") {
    m.kind = ModelKind::bpe;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
    m.byte_fallback = model.boolean_or("byte_fallback", false);
    std::unordered_map<std::string_view, TokenId> ids;
    for (TokenId id = 0; id < m.pieces.size(); ++id) ids.emplace(m.pieces[id], id);
    const Value merges = model.member("merges");
    m.merges.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const Value pair = merges.at(i);
      if (!pair.is_array() || pair.size() != 2) pair.fail("expected [left, right]");
      const auto left = ids.find(pair.at(0).string());
      const auto right = ids.find(pair.at(1).string());
      if (left == ids.end() || right == ids.end()) pair.fail("a token not in the vocabulary");
      m.merges.emplace_back(left->second, right->second);
    }
  } else if (type == "WordPiece") {
    m.kind = ModelKind::wordpiece;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
    m.continuation_prefix = model.member("continuing_subword_prefix").string();
    m.max_input_chars_per_word = model.member("max_input_chars_per_word").unsigned_integer();
  } else if (type == "WordLevel") {
    m.kind = ModelKind::word;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
  } else if (type == "Unigram") {
    m.kind = ModelKind::unigram;
    const Value vocab = model.member("vocab");
    for (std::size_t i = 0; i < vocab.size(); ++i) {
      const Value entry = vocab.at(i);
      if (entry.size() != 2) entry.fail("expected [token, score]");
      m.pieces.emplace_back(entry.at(0).string());
      // The digits as written, read as HF and the reader above read them, so that
      // writing the score again gives them back.
      m.scores.push_back(vocab.size() == score_digits.size()
                             ? detail::serde_json_parse(score_digits[i])
                             : detail::as_serde_json_reads(entry.at(1).number()));
    }
    if (const auto u = model.find("unk_id")) {
      if (u->unsigned_integer() >= m.pieces.size()) u->fail("not in the vocabulary");
      m.unknown = static_cast<TokenId>(u->unsigned_integer());
    }
    m.byte_fallback = model.boolean_or("byte_fallback", false);
  } else {
    not_an_export(source, "tokenlab exports no " + type + " model");
  }
  return m;
}

// Every setting tokenlab has: the export refuses those it cannot write, and of the
// rest exactly one writes a given normalizer and pre-tokenizer.
std::vector<std::pair<NormalizerOptions, PreTokenizerOptions>> every_setting() {
  std::vector<std::pair<NormalizerOptions, PreTokenizerOptions>> settings;
  for (const auto form : {NormalizationForm::none, NormalizationForm::nfc, NormalizationForm::nfkc,
                          NormalizationForm::bert})
    for (const int flags : {0, 1, 2, 3, 4, 5, 6, 7})
      for (const auto kind :
           {PreTokenizerKind::whitespace, PreTokenizerKind::unicode, PreTokenizerKind::icu_words,
            PreTokenizerKind::bert, PreTokenizerKind::gpt2, PreTokenizerKind::cl100k,
            PreTokenizerKind::qwen2, PreTokenizerKind::o200k})
        for (const auto marker :
             {MarkerStyle::prefix, MarkerStyle::suffix, MarkerStyle::none, MarkerStyle::space})
          settings.push_back({NormalizerOptions{.form = form,
                                                .lowercase = (flags & 1) != 0,
                                                .strip_accents = (flags & 2) != 0,
                                                .keep_whitespace = (flags & 4) != 0},
                              PreTokenizerOptions{.kind = kind, .marker = marker}});
  return settings;
}

}  // namespace

ExportedTokenizerJson read_exported_tokenizer_json(std::string_view content,
                                                   const std::string& source) {
  check_json_nesting(content, kMaxJsonNesting, source);
  rapidjson::Document document;
  document.Parse<rapidjson::kParseFullPrecisionFlag>(content.data(), content.size());
  if (document.HasParseError() || !document.IsObject())
    throw Error(source + ": not a tokenizer.json (malformed JSON, or not an object)");
  const Value root(document, "", source);
  root.refuse_duplicate_members();
  std::vector<std::string> score_digits;
  if (content.find("\"Unigram\"") != std::string_view::npos)
    score_digits = unigram_score_digits(std::string(content));
  ExportedTokenizerJson exported;
  ModelDescription& m = exported.model = description_of(root.member("model"), source, score_digits);
  if (const auto added = root.find("added_tokens"))
    for (std::size_t i = 0; i < added->size(); ++i) {
      const auto id = added->at(i).member("id").unsigned_integer();
      if (id >= m.pieces.size()) added->at(i).fail("not an id of the model");
      m.specials.push_back(static_cast<TokenId>(id));
    }
  // A byte-level BPE is the one model written with the ByteLevel decoder; its
  // pieces are spelled in GPT-2's alphabet, and the model holds their bytes.
  const auto decoder = root.find("decoder");
  m.byte_level = decoder && decoder->is_object() && decoder->optional_string("type") == "ByteLevel";
  if (m.byte_level) {
    std::unordered_map<char32_t, char> byte_of;
    const auto& alphabet = byte_level_alphabet();
    for (std::size_t b = 0; b < alphabet.size(); ++b) byte_of[alphabet[b]] = static_cast<char>(b);
    std::vector<bool> special(m.pieces.size(), false);
    for (const TokenId id : m.specials) special[id] = true;
    for (TokenId id = 0; id < m.pieces.size(); ++id) {
      if (special[id] || utf8::find_invalid(m.pieces[id])) continue;  // the check below says why
      std::string bytes;
      for (const std::string_view c : utf8::split_code_points(m.pieces[id])) {
        const auto it = byte_of.find(utf8::decode_at(c, 0));
        if (it == byte_of.end())
          not_an_export(source, "the byte-level token \"" + m.pieces[id] +
                                    "\" is not spelled in GPT-2's byte alphabet");
        bytes += it->second;
      }
      m.pieces[id] = std::move(bytes);
    }
  }
  // The settings: the one whose export writes the file's normalizer and
  // pre-tokenizer, found by asking the writer itself rather than by a second
  // copy of its rules. A one-token model suffices: they depend on byte_level only.
  ModelDescription probe;
  probe.kind = ModelKind::word;
  probe.pieces = {"u"};
  probe.specials = {0};
  probe.unknown = 0;
  probe.byte_level = m.byte_level;
  const rapidjson::Value& normalizer = top_member(document, "normalizer");
  const rapidjson::Value& pre_tokenizer = top_member(document, "pre_tokenizer");
  bool found = false;
  for (const auto& [n, p] : every_setting()) {
    std::string written;
    try {
      written = write_tokenizer_json(probe, n, p);
    } catch (const Error&) {
      continue;  // not exportable
    }
    const rapidjson::Document d = parse_written(written);
    if (top_member(d, "normalizer") == normalizer &&
        top_member(d, "pre_tokenizer") == pre_tokenizer) {
      exported.normalizer = n;
      exported.pre_tokenizer = p;
      found = true;
      break;
    }
  }
  if (!found)
    not_an_export(source,
                  "no tokenlab normalizer and pre-tokenizer settings export to its normalizer "
                  "and pre_tokenizer");
  // The whole file, written again from what was read: any member that differs
  // (an edited vocabulary, an added post-processor, another decoder) is named.
  std::string again;
  try {
    again = write_tokenizer_json(m, exported.normalizer, exported.pre_tokenizer);
  } catch (const Error& e) {
    not_an_export(source, e.what());
  }
  const rapidjson::Document written = parse_written(again);
  for (const rapidjson::Document* d :
       {&written, static_cast<const rapidjson::Document*>(&document)})
    for (auto it = d->MemberBegin(); it != d->MemberEnd(); ++it) {
      const char* name = it->name.GetString();
      if (top_member(written, name) != top_member(document, name))
        not_an_export(source, std::string("its \"") + name +
                                  "\" is not what export writes for the model the file describes");
    }
  return exported;
}

}  // namespace tokenlab
