#include "tokenlab/pretrained/tokenizer_json_writer.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cctype>
#include <charconv>
#include <functional>
#include <optional>
#include <string_view>

#include "hf/serde_numbers.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/unicode_words.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// GPT-2's printable stand-in for each byte (HF's ByteLevel alphabet): bytes
// 0x21-0x7E, 0xA1-0xAC and 0xAE-0xFF are themselves, the other 68 map in order
// to U+0100 and up.
std::string byte_level_text(std::string_view raw) {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 0x100;
    for (unsigned b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  std::string out;
  for (const char c : raw) utf8::append(out, table[static_cast<unsigned char>(c)]);
  return out;
}

std::string refusal(const std::string& setting, const std::string& why,
                    const std::string& nearest) {
  return setting + " " + why + "; the nearest exportable choice is " + nearest;
}

// The normalizer's part of tokenizer_json_refusal.
std::optional<std::string> normalizer_refusal(const NormalizerOptions& n,
                                              const PreTokenizerOptions& p) {
  const bool bert_pre = p.kind == PreTokenizerKind::bert;
  if (n.form == NormalizationForm::bert && !bert_pre)
    return refusal("normalization bert", "isolates CJK ideographs only with the bert pre-tokenizer",
                   "--pre-tokenizer bert (BERT's pipeline), or normalization nfc");
  if (n.form == NormalizationForm::bert) return std::nullopt;
  if (bert_pre)
    return refusal("the bert pre-tokenizer",
                   "needs the bert normalization (HF's BertNormalizer spaces "
                   "out CJK ideographs, which tokenlab's bert pre-tokenizer does)",
                   "--normalizer bert");
  if (n.strip_accents)
    return refusal("strip-accents",
                   "removes non-spacing marks (Mn) only, and HF's StripAccents also "
                   "removes spacing and enclosing marks (Mc, Me: most Indic vowel signs)",
                   "no strip-accents, or the bert pipeline (BertNormalizer strips Mn only)");
  return std::nullopt;
}

// The pre-tokenizer's part of tokenizer_json_refusal.
std::optional<std::string> pre_tokenizer_refusal(const NormalizerOptions& n,
                                                 const PreTokenizerOptions& p, bool byte_level) {
  const std::string setting = "--pre-tokenizer " + p.to_string();
  if (is_regex_kind(p.kind)) {
    if (p.marker != MarkerStyle::space)
      return refusal(setting, "adds markers the regex presets do not", "marker space");
    if (!n.keep_whitespace)
      return refusal("the normalizer", "collapses white space, which the regex presets keep",
                     "+keep-whitespace (what tokenlab sets for these presets)");
    return std::nullopt;
  }
  if (byte_level)
    return refusal("byte-level BPE (units=bytes)",
                   "needs a regex pre-tokenizer to export as HF's ByteLevel",
                   "--pre-tokenizer gpt2, cl100k, qwen2 or o200k");
  if (n.keep_whitespace)
    return refusal("+keep-whitespace", "is only exportable with the regex presets",
                   "the default white space handling");
  switch (p.kind) {
    case PreTokenizerKind::whitespace:
    case PreTokenizerKind::unicode:
      if (p.marker == MarkerStyle::suffix)
        return refusal(
            setting, "has no HF equivalent (Metaspace puts ▁ before words, not after)",
            p.kind == PreTokenizerKind::unicode ? "unicode/prefix" : "whitespace/prefix");
      return std::nullopt;
    case PreTokenizerKind::bert:
      if (p.marker != MarkerStyle::none)
        return refusal(setting, "adds markers BERT does not", "bert/none");
      return std::nullopt;
    default:
      return refusal(setting,
                     "splits by ICU's dictionaries (UAX #29), which no HF pre-tokenizer "
                     "reproduces exactly",
                     "--pre-tokenizer unicode (the default) or whitespace");
  }
}

void string(Writer& w, std::string_view text) {
  if (utf8::find_invalid(text))
    throw Error("cannot export to tokenizer.json: a piece is not well-formed UTF-8");
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void key(Writer& w, const char* name) {
  w.Key(name);
}

// One component object: {"type": type, fields...}.
void component(Writer& w, const char* type, const std::function<void()>& fields = {}) {
  w.StartObject();
  key(w, "type");
  w.String(type);
  if (fields) fields();
  w.EndObject();
}

// A list of components as one (null, the component, or a Sequence of them).
void sequence(Writer& w, const char* list_key, const std::vector<std::function<void()>>& parts) {
  if (parts.empty()) {
    w.Null();
  } else if (parts.size() == 1) {
    parts.front()();
  } else {
    component(w, "Sequence", [&] {
      key(w, list_key);
      w.StartArray();
      for (const auto& part : parts) part();
      w.EndArray();
    });
  }
}

// Unicode White_Space, which tokenlab's normalizer collapses (u_isUWhiteSpace).
constexpr const char* kWhiteSpaceRun =
    "[\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}]+";

// The normalizers of an exportable pipeline (tokenizer_json_refusal passed).
std::vector<std::function<void()>> normalizer_parts(Writer& w, const NormalizerOptions& n,
                                                    const PreTokenizerOptions& p) {
  std::vector<std::function<void()>> parts;
  if (n.form == NormalizationForm::bert) {
    parts.emplace_back([&w, n] {
      component(w, "BertNormalizer", [&] {
        key(w, "clean_text");
        w.Bool(true);
        key(w, "handle_chinese_chars");
        w.Bool(true);
        key(w, "strip_accents");
        w.Bool(n.strip_accents);
        key(w, "lowercase");
        w.Bool(n.lowercase);
      });
    });
    return parts;
  }
  if (n.form == NormalizationForm::nfc) parts.emplace_back([&w] { component(w, "NFC"); });
  if (n.form == NormalizationForm::nfkc) parts.emplace_back([&w] { component(w, "NFKC"); });
  if (n.lowercase) parts.emplace_back([&w] { component(w, "Lowercase"); });
  if (!n.keep_whitespace) {
    parts.emplace_back([&w] {
      component(w, "Replace", [&] {
        key(w, "pattern");
        w.StartObject();
        key(w, "Regex");
        w.String(kWhiteSpaceRun);
        w.EndObject();
        key(w, "content");
        w.String(" ");
      });
    });
    parts.emplace_back([&w] {
      component(w, "Strip", [&] {
        key(w, "strip_left");
        w.Bool(true);
        key(w, "strip_right");
        w.Bool(true);
      });
    });
  }
  // The unicode words pattern takes a word's marker from the space before it;
  // the line's first word has one too (Prepend skips an empty line, as tokenlab
  // has no words there). A space, not "▁": the text's own "▁" stays a symbol.
  if (p.kind == PreTokenizerKind::unicode && p.marker == MarkerStyle::prefix)
    parts.emplace_back([&w] {
      component(w, "Prepend", [&] {
        key(w, "prepend");
        w.String(" ");
      });
    });
  return parts;
}

// Metaspace: spaces become ▁; prepend_scheme "always" and split give
// SentencePiece's words, "never" without split only turns a piece's leading
// space into its marker (after the unicode words pattern).
void metaspace(Writer& w, const char* prepend_scheme = "always", bool split = true) {
  component(w, "Metaspace", [&] {
    key(w, "replacement");
    w.String("\u2581");
    key(w, "prepend_scheme");
    w.String(prepend_scheme);
    key(w, "split");
    w.Bool(split);
  });
}

// Split(pattern as a regex, behavior) as HF writes it.
void split_regex(Writer& w, const std::string& pattern, const char* behavior) {
  component(w, "Split", [&] {
    key(w, "pattern");
    w.StartObject();
    key(w, "Regex");
    w.String(pattern.data(), static_cast<rapidjson::SizeType>(pattern.size()));
    w.EndObject();
    key(w, "behavior");
    w.String(behavior);
    key(w, "invert");
    w.Bool(false);
  });
}

void byte_level(Writer& w) {
  component(w, "ByteLevel", [&] {
    key(w, "add_prefix_space");
    w.Bool(false);
    key(w, "trim_offsets");
    w.Bool(true);
    key(w, "use_regex");
    w.Bool(false);
  });
}

// The pre-tokenizers of an exportable pipeline (tokenizer_json_refusal passed).
std::vector<std::function<void()>> pre_tokenizer_parts(Writer& w, const ModelDescription& m,
                                                       const PreTokenizerOptions& p) {
  std::vector<std::function<void()>> parts;
  if (is_regex_kind(p.kind)) {
    const std::string pattern(regex_pattern(p.kind));
    parts.emplace_back([&w, pattern] { split_regex(w, pattern, "Isolated"); });
    if (m.byte_level) parts.emplace_back([&w] { byte_level(w); });
    return parts;
  }
  const bool prefix = p.marker == MarkerStyle::prefix;
  switch (p.kind) {
    case PreTokenizerKind::whitespace:
      if (prefix)
        parts.emplace_back([&w] { metaspace(w); });
      else
        parts.emplace_back([&w] { component(w, "WhitespaceSplit"); });
      return parts;
    case PreTokenizerKind::unicode:
      // Each match of the pattern is one word with the space before it (the
      // normalizer put one before the line); Metaspace makes that space the
      // word's marker. Without markers the spaces go first.
      if (!prefix) parts.emplace_back([&w] { component(w, "WhitespaceSplit"); });
      parts.emplace_back([&w] { split_regex(w, unicode_words_pattern(), "Isolated"); });
      if (prefix) parts.emplace_back([&w] { metaspace(w, "never", false); });
      return parts;
    default:  // bert
      parts.emplace_back([&w] { component(w, "BertPreTokenizer"); });
      return parts;
  }
}

void replace(Writer& w, const char* pattern_kind, const std::string& pattern,
             const std::string& content) {
  component(w, "Replace", [&] {
    key(w, "pattern");
    w.StartObject();
    key(w, pattern_kind);
    string(w, pattern);
    w.EndObject();
    key(w, "content");
    string(w, content);
  });
}

// A literal as a regex (ASCII punctuation escaped; onig and ICU read the rest as itself).
std::string regex_literal(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80 && !std::isalnum(b)) out += '\\';
    out += c;
  }
  return out;
}

// Decoders that give tokenlab's decode: its pieces joined, WordPiece's prefix
// dropped, markers back to spaces (trimmed at the start, as tokenlab trims),
// the unknown token written as U+2047 ⁇ as tokenlab and SentencePiece write it
// (WordPiece keeps its [UNK] text), byte pieces back to bytes.
std::vector<std::function<void()>> decoder_parts(Writer& w, const ModelDescription& m,
                                                 const PreTokenizerOptions& p) {
  std::vector<std::function<void()>> parts;
  if (m.byte_level) {
    parts.emplace_back([&w] { byte_level(w); });
    return parts;
  }
  if (m.byte_fallback) parts.emplace_back([&w] { component(w, "ByteFallback"); });
  if (m.kind == ModelKind::wordpiece) {
    const std::string prefix = "^" + regex_literal(m.continuation_prefix);
    parts.emplace_back([&w, prefix] { replace(w, "Regex", prefix, ""); });
  } else if (m.unknown) {
    const std::string unknown = m.pieces[*m.unknown];
    parts.emplace_back([&w, unknown] { replace(w, "String", unknown, "\u2047"); });
  }
  if (p.marker == MarkerStyle::prefix)
    parts.emplace_back([&w] { metaspace(w); });
  else
    parts.emplace_back([&w] { component(w, "Fuse"); });
  return parts;
}

std::string piece_text(const ModelDescription& m, TokenId id, const std::vector<bool>& special) {
  return m.byte_level && !special[id] ? byte_level_text(m.pieces[id]) : m.pieces[id];
}

void model(Writer& w, const ModelDescription& m, const TokenizerJsonOptions& options) {
  std::vector<bool> special(m.pieces.size(), false);
  for (const TokenId id : m.specials) special[id] = true;
  const auto vocab_object = [&] {
    w.StartObject();
    for (TokenId id = 0; id < m.pieces.size(); ++id) {
      const std::string text = piece_text(m, id, special);
      string(w, text);
      w.Uint(id);
    }
    w.EndObject();
  };
  const auto unk_token = [&] {
    key(w, "unk_token");
    if (m.unknown)
      string(w, m.pieces[*m.unknown]);
    else
      w.Null();
  };
  switch (m.kind) {
    case ModelKind::bpe:
    case ModelKind::character:
      component(w, "BPE", [&] {
        key(w, "dropout");
        if (options.dropout)
          w.Double(m.dropout);
        else
          w.Null();
        unk_token();
        key(w, "continuing_subword_prefix");
        w.Null();
        key(w, "end_of_word_suffix");
        w.Null();
        key(w, "fuse_unk");
        w.Bool(false);
        key(w, "byte_fallback");
        w.Bool(m.byte_fallback);
        key(w, "ignore_merges");
        w.Bool(false);
        key(w, "vocab");
        vocab_object();
        key(w, "merges");
        w.StartArray();
        for (const auto& [left, right] : m.merges) {
          w.StartArray();
          string(w, piece_text(m, left, special));
          string(w, piece_text(m, right, special));
          w.EndArray();
        }
        w.EndArray();
      });
      return;
    case ModelKind::wordpiece:
      if (!m.unknown)
        throw Error("cannot export to tokenizer.json: WordPiece needs an unknown token");
      component(w, "WordPiece", [&] {
        unk_token();
        key(w, "continuing_subword_prefix");
        string(w, m.continuation_prefix);
        key(w, "max_input_chars_per_word");
        w.Uint64(m.max_input_chars_per_word);
        key(w, "vocab");
        vocab_object();
      });
      return;
    case ModelKind::unigram:
      component(w, "Unigram", [&] {
        key(w, "unk_id");
        if (m.unknown)
          w.Uint(*m.unknown);
        else
          w.Null();
        key(w, "vocab");
        w.StartArray();
        for (TokenId id = 0; id < m.pieces.size(); ++id) {
          w.StartArray();
          string(w, m.pieces[id]);
          // Digits HF's serde_json reads as exactly the score tokenlab uses:
          // one ulp off can flip a Viterbi tie (serde_numbers.hpp).
          const std::string digits = detail::serde_exact_digits(m.scores[id]);
          w.RawValue(digits.data(), digits.size(), rapidjson::kNumberType);
          w.EndArray();
        }
        w.EndArray();
        key(w, "byte_fallback");
        w.Bool(m.byte_fallback);
      });
      return;
    case ModelKind::word:
      if (!m.unknown)
        throw Error("cannot export to tokenizer.json: WordLevel needs an unknown token");
      component(w, "WordLevel", [&] {
        key(w, "vocab");
        vocab_object();
        unk_token();
      });
      return;
  }
}

}  // namespace

std::optional<std::string> tokenizer_json_refusal(const NormalizerOptions& normalizer,
                                                  const PreTokenizerOptions& pre_tokenizer,
                                                  bool byte_level) {
  if (auto why = normalizer_refusal(normalizer, pre_tokenizer)) return why;
  return pre_tokenizer_refusal(normalizer, pre_tokenizer, byte_level);
}

std::string write_tokenizer_json(const ModelDescription& m, const NormalizerOptions& normalizer,
                                 const PreTokenizerOptions& pre_tokenizer,
                                 const TokenizerJsonOptions& options) {
  if (options.dropout && !(m.kind == ModelKind::bpe && m.dropout > 0.0))
    throw Error(
        "cannot export the model's BPE-dropout: it has none (train with --option dropout=P)");
  if (m.byte_level && m.byte_fallback)
    throw Error("cannot export to tokenizer.json: a byte-level BPE has no byte fallback");
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  if (const auto why = tokenizer_json_refusal(normalizer, pre_tokenizer, m.byte_level))
    throw Error("cannot export to tokenizer.json: " + *why);
  const auto normalizers = normalizer_parts(w, normalizer, pre_tokenizer);
  const auto pre_tokenizers = pre_tokenizer_parts(w, m, pre_tokenizer);
  const auto decoders = decoder_parts(w, m, pre_tokenizer);
  w.StartObject();
  key(w, "version");
  w.String("1.0");
  key(w, "truncation");
  w.Null();
  key(w, "padding");
  w.Null();
  key(w, "added_tokens");
  w.StartArray();
  for (const TokenId id : m.specials) {
    w.StartObject();
    key(w, "id");
    w.Uint(id);
    key(w, "content");
    string(w, m.pieces[id]);
    for (const char* flag : {"single_word", "lstrip", "rstrip", "normalized"}) {
      key(w, flag);
      w.Bool(false);
    }
    key(w, "special");
    w.Bool(true);
    w.EndObject();
  }
  w.EndArray();
  key(w, "normalizer");
  sequence(w, "normalizers", normalizers);
  key(w, "pre_tokenizer");
  sequence(w, "pretokenizers", pre_tokenizers);
  key(w, "post_processor");
  w.Null();
  key(w, "decoder");
  sequence(w, "decoders", decoders);
  key(w, "model");
  model(w, m, options);
  w.EndObject();
  std::string out(buffer.GetString(), buffer.GetSize());
  out += '\n';
  return out;
}

}  // namespace tokenlab
