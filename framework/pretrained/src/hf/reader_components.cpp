// The components of a tokenizer.json (normalizer, pre_tokenizer, decoder, model)
// read into the pipeline's steps, as reader.cpp's read_tokenizer_json asks.
#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "hf/internal.hpp"
#include "hf/serde_numbers.hpp"
#include "json_value.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::hf_detail {
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

}  // namespace

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
namespace {

// A {token: id} vocabulary into the table, inserted together (insert_new
// overlaps their cache misses): the members the parser streamed (streamed), or
// else the document's object. Each member's JSON path is spelled only for an
// error: spelling 200,000 of them was a tenth of loading GPT-4o.
// inserted: the streamed rows are in tokens already (the reader's second
// thread inserted them, list_prefetch.hpp), and only the object is checked.
void read_vocab_object(const Value& vocab, const StreamedLists::Rows* streamed, TokenTable& tokens,
                       const std::string& file, bool inserted = false) {
  if (!vocab.is_object()) vocab.fail("expected an object of token: id, found " + vocab.kind());
  if (streamed && inserted) return;
  const auto duplicate = [&](std::string_view name) {
    vocab.fail("the member \"" + std::string(name) +
               "\" appears more than once (a JSON object's names must be distinct)");
  };
  // The rows that insert_new stopped at, one by one: their errors (none when
  // a row is valid and new; ids over kMaxId are never rows).
  const auto insert_rows = [&](std::span<const TokenTable::Row> rows) {
    for (std::size_t done = tokens.insert_new(rows); done < rows.size();
         done += 1 + tokens.insert_new(rows.subspan(done + 1))) {
      const TokenTable::Row& row = rows[done];
      const std::string name(row.token);
      if (!tokens.insert(row.id, name,
                         [&] { return file + ": " + vocab.child_path("\"" + name + "\""); }))
        duplicate(name);
    }
  };
  if (streamed) {
    tokens.reserve(streamed->size());
    insert_rows(*streamed);
    return;
  }
  const auto members = vocab.raw().MemberBegin();
  const std::size_t count = vocab.raw().MemberCount();
  tokens.reserve(count);
  std::vector<TokenTable::Row> rows;
  rows.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& member = members[static_cast<rapidjson::SizeType>(i)];
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    if (!member.value.IsUint64() || member.value.GetUint64() > TokenTable::kMaxId) {
      insert_rows(rows);  // the members before it first
      rows.clear();
      const Value id(member.value, vocab.child_path("\"" + std::string(name) + "\""), file);
      const auto n = id.unsigned_integer();
      id.fail("id " + std::to_string(n) + " is too large");
    }
    rows.push_back({static_cast<TokenId>(member.value.GetUint64()), name});
  }
  insert_rows(rows);
}

// model.merges as views into the document: "left right" strings, or pairs;
// the entries the parser streamed (streamed, moved out), or else the
// document's array.
StreamedLists::Merges merge_views(const Value& list, StreamedLists::Merges* streamed) {
  StreamedLists::Merges merges;
  const auto bad_string = [](std::string_view s) {
    return "expected \"left right\" (two tokens and one space), found \"" + std::string(s) + "\"";
  };
  if (streamed) {
    if (!list.is_array()) list.fail("expected an array, found " + list.kind());
    for (std::size_t i = 0; i < streamed->size(); ++i) {  // split in place
      auto& [first, second] = (*streamed)[i];
      if (second.data() != nullptr) continue;
      const auto split = split_merge(first);
      if (!split) list.fail_at(i, bad_string(first));
      std::tie(first, second) = *split;
    }
    return std::move(*streamed);
  }
  merges.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const rapidjson::Value& raw = list.raw()[static_cast<rapidjson::SizeType>(i)];
    if (raw.IsString()) {  // the common case, without a Value (and its path) for each
      if (const auto split = split_merge({raw.GetString(), raw.GetStringLength()})) {
        merges.push_back(*split);
        continue;
      }
    } else if (raw.IsArray() && raw.Size() == 2 && raw[0u].IsString() && raw[1u].IsString()) {
      // Newer files' [left, right], the same way: a Value for each pair (a
      // path of shared segments) was a tenth of loading Gemma 3's 514k merges.
      merges.emplace_back(std::string_view(raw[0u].GetString(), raw[0u].GetStringLength()),
                          std::string_view(raw[1u].GetString(), raw[1u].GetStringLength()));
      continue;
    }
    const Value m = list.at(i);
    if (m.is_string()) {
      m.fail(bad_string(m.string()));
    } else if (m.is_array()) {
      if (m.size() != 2) m.fail("expected a pair of tokens");
      merges.emplace_back(m.at(0).string(), m.at(1).string());
    } else {
      m.fail("expected \"left right\" or [left, right], found " + m.kind());
    }
  }
  return merges;
}

}  // namespace

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
  // Looked up through a const view: rapidjson's non-const member iterators
  // compare through a conversion that C++20 finds ambiguous (clang warns).
  const rapidjson::Value& root = raw;
  const auto model = root.FindMember("model");
  if (model == root.MemberEnd() || !model->value.IsObject()) return digits;
  const auto vocab = model->value.FindMember("vocab");
  if (vocab == model->value.MemberEnd() || !vocab->value.IsArray()) return digits;
  for (const auto& entry : vocab->value.GetArray()) {
    if (!entry.IsArray() || entry.Size() != 2 || !entry[1].IsString()) return {};
    digits.emplace_back(entry[1].GetString(), entry[1].GetStringLength());
  }
  return digits;
}

std::string byte_level_pattern(const Value& pre_tokenizer) {
  const auto is_type = [](const Value& v, std::string_view type) {
    const auto t = v.find("type");
    return t && t->is_string() && t->string() == type;
  };
  const auto plain_byte_level = [&](const Value& v, bool use_regex) {
    return is_type(v, "ByteLevel") && !v.boolean_or("add_prefix_space", true) &&
           v.boolean_or("use_regex", true) == use_regex;
  };
  if (plain_byte_level(pre_tokenizer, true)) return std::string(kGpt2Pattern);
  if (!is_type(pre_tokenizer, "Sequence")) return {};
  const auto list = pre_tokenizer.find("pretokenizers");
  if (!list || !list->is_array() || list->size() < 2) return {};
  const std::size_t splits = list->size() - 1;
  if (!plain_byte_level(list->at(splits), false)) return {};
  // One Split: its pattern. Several: their patterns joined by kSplitSeparator,
  // a key that only a preset sequence (split_sequence_run) gets a fused encoder for.
  std::string key;
  for (std::size_t i = 0; i < splits; ++i) {
    const Value split = list->at(i);
    if (!is_type(split, "Split")) return {};
    const auto regex = split.member("pattern").find("Regex");
    const auto behavior = parse_split_behavior(split.member("behavior").string());
    const bool invert = split.boolean_or("invert", false);
    // A pattern that matches every character (the single presets) keeps the same
    // pieces Isolated or Removed inverted; a sequence's patterns leave text
    // between their matches, which only Isolated keeps.
    const bool keeps_matches = (behavior == SplitBehavior::isolated && !invert) ||
                               (splits == 1 && behavior == SplitBehavior::removed && invert);
    if (!regex || !keeps_matches) return {};
    if (i > 0) key += kSplitSeparator;
    key += regex->string();
  }
  return key;
}

void read_model(const Value& model, PretrainedPipeline& p, const std::string& file,
                StreamedLists& streamed, BpeParts* bpe, ListPrefetch::Result* prefetched,
                CompiledJson* compiled) {
  const auto* streamed_vocab = streamed.has_vocab ? &streamed.vocab : nullptr;
  // The prefetch inserted the streamed rows as read_vocab_object would: the
  // same table, and no row of it an error.
  const bool vocab_prefetched = streamed_vocab && prefetched && prefetched->vocabulary;
  auto table =
      vocab_prefetched ? std::move(prefetched->vocabulary) : std::make_shared<TokenTable>();
  p.tokens = table;
  const auto vocab_object = [&] {
    read_vocab_object(model.member("vocab"), streamed_vocab, *table, file, vocab_prefetched);
  };
  const auto type_value = model.find("type");
  // Files from tokenizers before 0.9 have no type: BPE if there are merges.
  const std::string type = type_value             ? std::string(type_value->string())
                           : model.find("merges") ? "BPE"
                                                  : "";
  if (compiled && type != (compiled->wordpiece ? "WordPiece" : "BPE"))
    model.fail("internal: a compiled entry for a model of another type");
  if (type == "BPE") {
    model.only_members({"type", "vocab", "merges", "dropout", "unk_token",
                        "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                        "byte_fallback", "ignore_merges"});
    if (compiled)
      p.tokens = compiled->tokens;
    else
      vocab_object();
    // The prefetch resolved every streamed merge, split as merge_views splits
    // them, without a continuing prefix: taken only for a file without one.
    const auto prefix_value = model.find("continuing_subword_prefix");
    const bool merges_prefetched = vocab_prefetched && streamed.has_merges &&
                                   prefetched->merges_complete &&
                                   prefetched->merges.size() == streamed.merges.size() &&
                                   (!prefix_value || prefix_value->is_null() ||
                                    (prefix_value->is_string() && prefix_value->string().empty()));
    StreamedLists::Merges merges;
    if (!merges_prefetched && !compiled)
      merges =
          merge_views(model.member("merges"), streamed.has_merges ? &streamed.merges : nullptr);
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
    const std::string where = file + ": " + model.path();
    SharedMerges ids = compiled ? std::move(compiled->merges)
                       : merges_prefetched
                           ? SharedMerges::of(std::move(prefetched->merges))
                           : SharedMerges::of(resolve_merges(
                                 *table, merges, options.continuing_subword_prefix, where));
    if (bpe) {
      *bpe = BpeParts{std::move(ids), options, where, true};
      return;
    }
    p.model = make_bpe_model(p.tokens, std::move(ids), options, where);
  } else if (type == "WordPiece") {
    model.only_members(
        {"type", "vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"});
    const auto max_chars = model.find("max_input_chars_per_word");
    std::string unknown = model.optional_string("unk_token").value_or("[UNK]");
    std::string prefix = model.optional_string("continuing_subword_prefix").value_or("##");
    const std::size_t max = max_chars ? max_chars->unsigned_integer() : 100;
    if (compiled) {
      p.tokens = compiled->tokens;
      p.model = make_wordpiece_model(p.tokens, std::move(unknown), std::move(prefix), max,
                                     std::move(compiled->wordpiece));
    } else {
      vocab_object();
      p.model = make_wordpiece_model(p.tokens, std::move(unknown), std::move(prefix), max,
                                     file + ": " + model.path());
    }
  } else if (type == "WordLevel") {
    model.only_members({"type", "vocab", "unk_token"});
    vocab_object();
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
      scores[i] = vocab.size() == streamed.score_digits.size()
                      ? detail::serde_json_parse(streamed.score_digits[i])
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

}  // namespace tokenlab::hf_detail
