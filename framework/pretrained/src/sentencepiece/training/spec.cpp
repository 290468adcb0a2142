// VerifySpec and TrainerInterface::InitMetaPieces (trainer_interface.cc), and
// spm_train's flags (spm_train_main.cc) applied to a template's TrainerSpec.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <set>
#include <string>

#include "sentencepiece/training/training.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab::sentencepiece_detail::training {
namespace {

[[noreturn]] void bad_flag(const std::string& name, const std::string& value,
                           const std::string& why) {
  throw Error("training override " + name + "=" + value + ": " + why);
}

template <class T>
T parse_integer(const std::string& name, const std::string& value) {
  T result{};
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty())
    bad_flag(name, value, "not an integer in range");
  return result;
}

double parse_real(const std::string& name, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const double result = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno != 0)
    bad_flag(name, value, "not a number");
  return result;
}

bool parse_bool(const std::string& name, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  bad_flag(name, value, "not a boolean (true or false)");
}

using Setter = void (*)(sentencepiece::ModelProto&, const std::string&, const std::string&);
struct Flag {
  const char* name;
  Setter set;
};

std::vector<std::string> split_list(const std::string& value) {  // absl::StrSplit(value, ",")
  std::vector<std::string> items;
  for (std::size_t from = 0; !value.empty();) {
    const std::size_t comma = value.find(',', from);
    items.push_back(value.substr(from, comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return items;
}

TrainerSpec::ModelType parse_model_type(const std::string& name, const std::string& value) {
  if (value == "unigram" || value == "UNIGRAM") return TrainerSpec::UNIGRAM;
  if (value == "bpe" || value == "BPE") return TrainerSpec::BPE;
  if (value == "word" || value == "WORD") return TrainerSpec::WORD;
  if (value == "char" || value == "CHAR") return TrainerSpec::CHAR;
  bad_flag(name, value, "not a model type (unigram, bpe, word, char)");
}

// spm_train's flags that set a TrainerSpec field (the proto is built for the lite
// runtime, without reflection, so each is listed), and the NormalizerSpec switches.
#define TL_FLAG(field, parse)                                                          \
  Flag {                                                                               \
#field, [](sentencepiece::ModelProto & m, const std::string& n,                    \
               const std::string& v) { m.mutable_trainer_spec()->set_##field(parse); } \
  }
#define TL_INT(field) TL_FLAG(field, parse_integer<std::int32_t>(n, v))
#define TL_UINT64(field) TL_FLAG(field, parse_integer<std::uint64_t>(n, v))
#define TL_FLOAT(field) TL_FLAG(field, static_cast<float>(parse_real(n, v)))
#define TL_BOOL(field) TL_FLAG(field, parse_bool(n, v))
#define TL_STRING(field) TL_FLAG(field, ((void)n, v))
#define TL_LIST(field)                                                                 \
  Flag {                                                                               \
#field, [](sentencepiece::ModelProto& m, const std::string&, const std::string& v) { \
      m.mutable_trainer_spec()->clear_##field();                                       \
      for (auto& item : split_list(v)) m.mutable_trainer_spec()->add_##field(item);    \
    } \
  }
#define TL_NORMALIZER(field)                                                                     \
  Flag {                                                                                         \
#field,                                                                                      \
        [](sentencepiece::ModelProto & m, const std::string& n,                                  \
           const std::string& v) { m.mutable_normalizer_spec()->set_##field(parse_bool(n, v)); } \
  }

// clang-format off
const Flag kFlags[] = {
    TL_STRING(input_format), TL_FLAG(model_type, parse_model_type(n, v)),
    TL_LIST(accept_language), TL_INT(self_test_sample_size),
    TL_BOOL(enable_differential_privacy), TL_FLOAT(differential_privacy_noise_level),
    TL_UINT64(differential_privacy_clipping_threshold), TL_FLOAT(character_coverage),
    TL_UINT64(input_sentence_size), TL_BOOL(shuffle_input_sentence),
    TL_INT(seed_sentencepiece_size), TL_FLOAT(shrinking_factor), TL_INT(max_sentence_length),
    TL_INT(num_threads), TL_INT(num_sub_iterations), TL_INT(max_sentencepiece_length),
    TL_BOOL(split_by_unicode_script), TL_BOOL(split_by_number), TL_BOOL(split_by_whitespace),
    TL_BOOL(treat_whitespace_as_suffix), TL_BOOL(allow_whitespace_only_pieces),
    TL_BOOL(split_digits), TL_LIST(control_symbols), TL_LIST(user_defined_symbols),
    TL_STRING(required_chars), TL_BOOL(byte_fallback), TL_BOOL(vocabulary_output_piece_score),
    TL_BOOL(hard_vocab_limit), TL_BOOL(use_all_vocab), TL_INT(unk_id), TL_INT(bos_id),
    TL_INT(eos_id), TL_INT(pad_id), TL_STRING(unk_piece), TL_STRING(bos_piece),
    TL_STRING(eos_piece), TL_STRING(pad_piece), TL_STRING(unk_surface),
    TL_BOOL(train_extremely_large_corpus), TL_NORMALIZER(add_dummy_prefix),
    TL_NORMALIZER(remove_extra_whitespaces), TL_NORMALIZER(escape_whitespaces),
};
// clang-format on
#undef TL_FLAG
#undef TL_INT
#undef TL_UINT64
#undef TL_FLOAT
#undef TL_BOOL
#undef TL_STRING
#undef TL_LIST
#undef TL_NORMALIZER

std::string flag_names() {
  std::string names;
  for (const Flag& f : kFlags) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

// VerifySpec's checks, as errors that name the setting.
void verify(const TrainerSpec& spec) {
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw Error("SentencePiece training: " + what + " (spm_train refuses it too)");
  };
  require(spec.vocab_size() > 0, "vocab_size must be positive");
  require(spec.model_type() == TrainerSpec::BPE || spec.model_type() == TrainerSpec::UNIGRAM,
          "model_type " + TrainerSpec::ModelType_Name(spec.model_type()) +
              " cannot be retrained here (bpe and unigram can)");
  require(!spec.use_all_vocab(), "use_all_vocab=true is valid for word and char models only");
  const auto in = [](auto v, auto lo, auto hi) { return v >= lo && v <= hi; };
  require(in(spec.character_coverage(), 0.98f, 1.0f), "character_coverage must be in [0.98, 1]");
  require(in(spec.max_sentencepiece_length(), 1, 512),
          "max_sentencepiece_length must be in [1, 512]");
  require(in(spec.num_sub_iterations(), 1, 10), "num_sub_iterations must be in [1, 10]");
  require(in(spec.num_threads(), 1, 128), "num_threads must be in [1, 128]");
  require(in(spec.shrinking_factor(), 0.5f, 0.95f), "shrinking_factor must be in [0.5, 0.95]");
  require(in(spec.max_sentence_length(), 10, 1073741824),
          "max_sentence_length must be in [10, 1073741824]");
  require(spec.input_sentence_size() == 0 || spec.input_sentence_size() > 100,
          "input_sentence_size must be 0 or more than 100");
  require(!spec.unk_piece().empty() && !spec.bos_piece().empty() && !spec.eos_piece().empty() &&
              !spec.pad_piece().empty(),
          "unk_piece, bos_piece, eos_piece and pad_piece must not be empty");
  require(
      spec.input_format().empty() || spec.input_format() == "text" || spec.input_format() == "tsv",
      "input_format must be text or tsv");
  require(!spec.enable_differential_privacy(),
          "enable_differential_privacy is not supported (its noise is random)");
  require(spec.self_test_sample_size() == 0,
          "self_test_sample_size must be 0 (self-test samples are not written)");
}

}  // namespace

void apply_overrides(sentencepiece::ModelProto& proto,
                     const SentencePieceTrainingOverrides& overrides) {
  if (overrides.vocab_size <= 0)
    throw Error("training: the vocabulary size is required and must be positive (got " +
                std::to_string(overrides.vocab_size) + ")");
  for (const auto& [name, value] : overrides.flags) {
    if (name == "vocab_size" || name == "input" || name == "model_prefix")
      bad_flag(name, value,
               name == "vocab_size" ? "give the vocabulary size as vocab_size, not as a flag"
                                    : "set by the call (the corpus files), not a flag");
    const auto* flag =
        std::find_if(std::begin(kFlags), std::end(kFlags),
                     [&flag_name = name](const Flag& f) { return flag_name == f.name; });
    if (flag == std::end(kFlags))
      bad_flag(name, value,
               "spm_train 0.1.97 has no such flag here; the flags are " + flag_names());
    flag->set(proto, name, value);
  }
  TrainerSpec& spec = *proto.mutable_trainer_spec();
  spec.set_vocab_size(overrides.vocab_size);
  verify(spec);
  if (spec.model_type() == TrainerSpec::BPE && !proto.normalizer_spec().escape_whitespaces())
    throw Error("SentencePiece training: model_type bpe needs escape_whitespaces=true");
}

std::map<int, MetaPiece> meta_pieces(const TrainerSpec& spec) {
  std::map<int, MetaPiece> meta;
  bool has_unk = false;
  const auto fail = [](const std::string& what) { throw Error("SentencePiece training: " + what); };
  const auto insert_id = [&](int id, const std::string& w, const char* which) {
    if (id < 0) return;
    if (id >= spec.vocab_size() || meta.count(id) != 0 || (has_unk && w == spec.unk_piece()))
      fail(std::string(which) + " " + std::to_string(id) + " (" + w +
           ") is taken or not below vocab_size " + std::to_string(spec.vocab_size()));
    if (w == spec.unk_piece()) has_unk = true;
    meta[id] = {w, w == spec.unk_piece() ? sentencepiece::ModelProto::SentencePiece::UNKNOWN
                                         : sentencepiece::ModelProto::SentencePiece::CONTROL};
  };
  insert_id(spec.unk_id(), spec.unk_piece(), "unk_id");
  insert_id(spec.bos_id(), spec.bos_piece(), "bos_id");
  insert_id(spec.eos_id(), spec.eos_piece(), "eos_id");
  insert_id(spec.pad_id(), spec.pad_piece(), "pad_id");
  if (!has_unk) fail(spec.unk_piece() + " must be defined (unk_id must not be negative)");

  std::set<std::string> dup;
  int id = 0;
  const auto insert_symbol = [&](const std::string& w, PieceType type) {
    if (!dup.insert(w).second) fail(w + " is already defined");
    if (w == spec.unk_piece())
      fail(w + " must not be defined with control_symbols and user_defined_symbols");
    if (w == spec.bos_piece() && spec.bos_id() >= 0) {
      meta[spec.bos_id()].type = type;
    } else if (w == spec.eos_piece() && spec.eos_id() >= 0) {
      meta[spec.eos_id()].type = type;
    } else if (w == spec.pad_piece() && spec.pad_id() >= 0) {
      meta[spec.pad_id()].type = type;
    } else {
      while (meta.count(id) != 0) ++id;
      meta[id] = {w, type};
    }
  };
  for (const auto& w : spec.control_symbols())
    insert_symbol(w, sentencepiece::ModelProto::SentencePiece::CONTROL);
  for (const auto& w : spec.user_defined_symbols())
    insert_symbol(w, sentencepiece::ModelProto::SentencePiece::USER_DEFINED);
  if (spec.byte_fallback()) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (int i = 0; i < 256; ++i)
      insert_symbol(std::string("<0x") + kHex[i >> 4] + kHex[i & 15] + ">",
                    sentencepiece::ModelProto::SentencePiece::BYTE);
  }
  return meta;
}

}  // namespace tokenlab::sentencepiece_detail::training
