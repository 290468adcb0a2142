// retrain_like for a tokenizer.json: the document kept, its vocabulary (and
// merges) trained anew by HF's trainer rules, its ids updated. See
// retraining.hpp for what is taken from the file and why.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hf/retrain_tokenizer_json.hpp"
#include "hf/serde_pretty.hpp"
#include "json_numbers.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/hf_trainers.hpp"
#include "tokenlab/pretrained/hf_training_words.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::hf {
namespace {

using rapidjson::Value;

std::string text_of(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

const Value* member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// The same for a document being rewritten in place. Its iterator is compared
// as a const one: rapidjson's non-const member iterators compare through a
// conversion that C++20 finds ambiguous with the reversed operator (clang warns).
Value* member(Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const Value::MemberIterator it = object.FindMember(name);
  const bool found = Value::ConstMemberIterator(it) != std::as_const(object).MemberEnd();
  return found ? &it->value : nullptr;
}

std::optional<std::string> optional_string(const Value& object, const char* name) {
  const Value* v = member(object, name);
  if (v && v->IsString()) return text_of(*v);
  return std::nullopt;
}

std::uint64_t number_option(const std::string& name, const std::string& value) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || end != value.data() + value.size())
    throw Error("--option " + name + "=" + value + ": expected a whole number");
  return n;
}

// HF's pre_tokenizers.ByteLevel.alphabet(): the 256 characters of the byte-level map.
std::vector<char32_t> byte_level_alphabet() {
  std::vector<char32_t> out;
  for (char32_t b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    if (printable) out.push_back(b);
  }
  char32_t next = 256;
  for (std::size_t b = 0; b < 256; ++b)
    if (!((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE)) out.push_back(next++);
  return out;
}

bool has_byte_level(const Value& pre_tokenizer) {
  const auto type = optional_string(pre_tokenizer, "type");
  if (type == "ByteLevel") return true;
  if (type != "Sequence") return false;
  const Value* list = member(pre_tokenizer, "pretokenizers");
  if (!list || !list->IsArray()) return false;
  return std::any_of(list->Begin(), list->End(),
                     [](const Value& p) { return optional_string(p, "type") == "ByteLevel"; });
}

// A tokenizer.json's model.vocab as token -> id, for symbol_ids_from.
std::unordered_map<std::string, std::uint32_t> vocabulary_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read (--option symbol_ids_from)");
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  rapidjson::Document document;
  document.Parse(content.data(), content.size());
  const Value* model = document.HasParseError() ? nullptr : member(document, "model");
  const Value* vocab = model ? member(*model, "vocab") : nullptr;
  if (!vocab || !vocab->IsObject())
    throw Error(path +
                ": not a tokenizer.json with a model.vocab object (--option symbol_ids_from)");
  std::unordered_map<std::string, std::uint32_t> ids;
  for (const auto& m : vocab->GetObject())
    if (m.value.IsUint()) ids.emplace(text_of(m.name), m.value.GetUint());
  return ids;
}

struct AddedEntry {
  Value object;  // the file's fields, kept
  std::string content;
  bool special = false;
  std::uint32_t id = 0;
};

std::vector<AddedEntry> added_tokens_of(rapidjson::Document& document, const std::string& file) {
  std::vector<AddedEntry> entries;
  Value* list = member(document, "added_tokens");
  if (!list || list->IsNull()) return entries;
  if (!list->IsArray()) throw Error(file + ": added_tokens: expected an array");
  for (auto& token : list->GetArray()) {
    const Value* content = member(token, "content");
    if (!content || !content->IsString())
      throw Error(file + ": added_tokens: an entry without a \"content\" string");
    const Value* special = member(token, "special");
    const Value* id = member(token, "id");
    AddedEntry entry{Value(token, document.GetAllocator()), text_of(*content),
                     special && special->IsBool() && special->GetBool(),
                     id && id->IsUint() ? id->GetUint() : 0};
    entries.push_back(std::move(entry));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const AddedEntry& a, const AddedEntry& b) { return a.id < b.id; });
  return entries;
}

HfBpeTrainerSettings settings_for(const RetrainingRequest& request, const Value& model,
                                  const Value* pre_tokenizer, const std::vector<AddedEntry>& added,
                                  bool wordpiece) {
  HfBpeTrainerSettings s;
  s.vocab_size = request.vocab_size;
  s.threads = request.threads;
  if (request.special_tokens) {
    s.special_tokens = *request.special_tokens;
  } else {
    for (const auto& entry : added)
      if (entry.special) s.special_tokens.push_back(entry.content);
  }
  s.continuing_subword_prefix = optional_string(model, "continuing_subword_prefix");
  if (!wordpiece) s.end_of_word_suffix = optional_string(model, "end_of_word_suffix");
  if (pre_tokenizer && has_byte_level(*pre_tokenizer)) s.initial_alphabet = byte_level_alphabet();
  const auto known = hf_retraining_options();
  for (const auto& [name, value] : request.options) {
    if (!known.count(name)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k.first;
      throw Error("--option " + name + ": not an option of HF's trainer here (" + list + ")");
    }
    if (name == "min_frequency")
      s.min_frequency = number_option(name, value);
    else if (name == "limit_alphabet")
      s.limit_alphabet = number_option(name, value);
    else if (name == "max_token_length")
      s.max_token_length = number_option(name, value);
    else if (name == "continuing_subword_prefix")
      s.continuing_subword_prefix = value.empty() ? std::nullopt : std::optional(value);
    else if (name == "end_of_word_suffix")
      s.end_of_word_suffix = value.empty() ? std::nullopt : std::optional(value);
    else if (name == "initial_alphabet") {
      s.initial_alphabet.clear();
      if (value == "byte_level") {
        s.initial_alphabet = byte_level_alphabet();
      } else {
        if (utf8::find_invalid(value)) throw Error("--option initial_alphabet: not valid UTF-8");
        for (std::size_t pos = 0; pos < value.size();) {
          const auto seq = utf8::decode_sequence(value, pos);
          s.initial_alphabet.push_back(seq.code_point);
          pos += seq.length;
        }
      }
    } else if (name == "symbol_ids_from") {
      auto ids = std::make_shared<std::unordered_map<std::string, std::uint32_t>>(
          vocabulary_of_file(value));
      s.symbol_order = [ids](const std::string& token) -> std::optional<std::uint32_t> {
        const auto it = ids->find(token);
        if (it == ids->end()) return std::nullopt;
        return it->second;
      };
    }
  }
  if (wordpiece && !s.continuing_subword_prefix) s.continuing_subword_prefix = "##";
  return s;
}

Value string_value(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// The post-processor's ids for the new vocabulary (transformers'
// train_new_from_iterator does the same): TemplateProcessing's special_tokens,
// Bert/RobertaProcessing's cls and sep, inside Sequences too.
void update_post_processor(
    Value& processor, const std::function<std::optional<std::uint32_t>(const std::string&)>& id_of,
    const std::string& file, rapidjson::Document::AllocatorType& a) {
  if (!processor.IsObject()) return;
  const auto missing = [&](const std::string& token) {
    return Error(file + ": post_processor: the special token \"" + token +
                 "\" is not in the new vocabulary; give it in --special-tokens");
  };
  if (Value* specials = member(processor, "special_tokens"); specials && specials->IsObject()) {
    // Counted, not compared with MemberEnd() (see member()).
    auto entry = specials->MemberBegin();
    for (rapidjson::SizeType i = 0; i < specials->MemberCount(); ++i, ++entry) {
      Value* tokens = member(entry->value, "tokens");
      Value* ids = member(entry->value, "ids");
      if (!tokens || !ids || !tokens->IsArray() || !ids->IsArray()) continue;
      ids->Clear();
      for (const auto& token : tokens->GetArray()) {
        const auto id = token.IsString() ? id_of(text_of(token)) : std::nullopt;
        if (!id) throw missing(token.IsString() ? text_of(token) : "?");
        ids->PushBack(Value(*id), a);
      }
    }
  }
  for (const char* name : {"cls", "sep"}) {
    Value* pair = member(processor, name);
    if (!pair || !pair->IsArray() || pair->Size() != 2 || !(*pair)[0].IsString()) continue;
    const auto id = id_of(text_of((*pair)[0]));
    if (!id) throw missing(text_of((*pair)[0]));
    (*pair)[1] = Value(*id);
  }
  if (Value* list = member(processor, "processors"); list && list->IsArray())
    for (auto& p : list->GetArray()) update_post_processor(p, id_of, file, a);
}

// The trained vocabulary (and merges) into the file's model; returns token -> id.
std::unordered_map<std::string, std::uint32_t> write_model(Value& model, const HfBpeResult& trained,
                                                           const HfBpeTrainerSettings& settings,
                                                           bool wordpiece,
                                                           rapidjson::Document::AllocatorType& a) {
  std::unordered_map<std::string, std::uint32_t> ids;
  Value vocab(rapidjson::kObjectType);
  for (std::uint32_t id = 0; id < trained.vocabulary.size(); ++id) {
    ids.emplace(trained.vocabulary[id], id);
    vocab.AddMember(string_value(trained.vocabulary[id], a), Value(id), a);
  }
  model["vocab"] = vocab;
  if (!wordpiece) {
    Value merges(rapidjson::kArrayType);
    for (const auto& [left, right] : trained.merges) {
      Value pair(rapidjson::kArrayType);
      pair.PushBack(string_value(left, a), a).PushBack(string_value(right, a), a);
      merges.PushBack(pair, a);
    }
    model["merges"] = merges;
    for (const auto& [name, value] :
         {std::pair{"continuing_subword_prefix", settings.continuing_subword_prefix},
          std::pair{"end_of_word_suffix", settings.end_of_word_suffix}})
      if (model.HasMember(name)) model[name] = value ? string_value(*value, a) : Value();
  } else if (model.HasMember("continuing_subword_prefix")) {
    model["continuing_subword_prefix"] = string_value(*settings.continuing_subword_prefix, a);
  }
  return ids;
}

}  // namespace

RetrainedTokenizer retrain_tokenizer_json(const RetrainingRequest& request, std::string content,
                                          const std::function<void(const std::string&)>& note) {
  const std::string& file = request.like;
  rapidjson::Document document;
  if (json::parse_json(document, content).IsError() || !document.IsObject())
    throw Error(file + ": not a tokenizer.json (malformed JSON)");
  Value* model = member(document, "model");
  const auto type = model ? optional_string(*model, "type") : std::nullopt;
  if (type != "BPE" && type != "WordPiece")
    throw Error(file + ": model.type: retraining a " + type.value_or("(missing)") +
                " model is not supported; HF's BpeTrainer and WordPieceTrainer are reproduced "
                "(BPE and WordPiece models)");
  const bool wordpiece = type == "WordPiece";
  const PretrainedTokenizer tokenizer = PretrainedTokenizer::from_bytes(content, file);
  std::vector<AddedEntry> added = added_tokens_of(document, file);
  const HfBpeTrainerSettings settings =
      settings_for(request, *model, member(document, "pre_tokenizer"), added, wordpiece);

  const std::vector<HfWordCount> words =
      count_hf_training_words(tokenizer, request.corpus, request.threads);
  HfBpeResult trained = wordpiece ? HfBpeResult{train_hf_wordpiece(words, settings), {}}
                                  : train_hf_bpe(words, settings);

  auto& a = document.GetAllocator();
  std::unordered_map<std::string, std::uint32_t> ids =
      write_model(*model, trained, settings, wordpiece, a);

  // The trainer's special tokens at their vocabulary ids (HF's add_special_tokens
  // after training), then the other added tokens after the vocabulary.
  std::vector<AddedEntry> kept;
  for (const std::string& special : settings.special_tokens) {
    const auto it = std::find_if(added.begin(), added.end(),
                                 [&](const AddedEntry& e) { return e.content == special; });
    Value object(rapidjson::kObjectType);
    if (it != added.end()) {
      object = Value(it->object, a);
    } else {
      object.AddMember("id", 0, a).AddMember("content", string_value(special, a), a);
      for (const char* flag : {"single_word", "lstrip", "rstrip", "normalized"})
        object.AddMember(Value(flag, a), Value(false), a);
      object.AddMember("special", Value(true), a);
    }
    kept.push_back({std::move(object), special, true, ids.at(special)});
  }
  auto next_id = static_cast<std::uint32_t>(trained.vocabulary.size());
  for (auto& entry : added) {
    if (entry.special &&
        std::count(settings.special_tokens.begin(), settings.special_tokens.end(), entry.content))
      continue;
    if (entry.special) {
      note(file + ": the special token \"" + entry.content +
           "\" is not among --special-tokens; it is left out");
      continue;
    }
    const auto known = ids.find(entry.content);
    entry.id = known != ids.end() ? known->second : next_id++;
    kept.push_back(std::move(entry));
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const AddedEntry& x, const AddedEntry& y) { return x.id < y.id; });
  Value added_list(rapidjson::kArrayType);
  for (auto& entry : kept) {
    if (entry.object.HasMember("id")) entry.object["id"] = Value(entry.id);
    added_list.PushBack(entry.object, a);
    ids.emplace(entry.content, entry.id);
  }
  if (document.HasMember("added_tokens")) document["added_tokens"] = added_list;

  const auto id_of = [&](const std::string& token) -> std::optional<std::uint32_t> {
    const auto it = ids.find(token);
    if (it == ids.end()) return std::nullopt;
    return it->second;
  };
  if (Value* processor = member(document, "post_processor"))
    update_post_processor(*processor, id_of, file, a);
  if (const auto unk = optional_string(*model, "unk_token"); unk && !ids.count(*unk))
    note(file + ": the model's unk_token \"" + *unk +
         "\" is not in the new vocabulary (as with HF's trainer): give it in --special-tokens "
         "if text with unseen characters must encode");

  return {serde_pretty(document), "tokenizer.json", next_id};
}

}  // namespace tokenlab::hf
