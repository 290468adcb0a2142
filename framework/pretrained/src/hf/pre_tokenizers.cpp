// Hugging Face's pre-tokenizers (tokenizers/src/pre_tokenizers/*.rs), each as
// a split of one piece into (start, end, is_match) spans followed by HF's
// SplitDelimiterBehavior (tokenizer/normalizer.rs, NormalizedString::split).
#include <unicode/uchar.h>

#include <array>
#include <functional>

#include "hf/word_count_shortcuts.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

std::optional<SplitBehavior> parse_split_behavior(std::string_view name) {
  if (name == "Removed") return SplitBehavior::removed;
  if (name == "Isolated") return SplitBehavior::isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (name == "Contiguous") return SplitBehavior::contiguous;
  return std::nullopt;
}

const std::array<char32_t, 256>& byte_level_alphabet() {
  static const std::array<char32_t, 256> alphabet = [] {
    std::array<char32_t, 256> a{};
    std::array<bool, 256> printable{};
    for (int b = '!'; b <= '~'; ++b) printable[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) a[b] = printable[b] ? static_cast<char32_t>(b) : next++;
    return a;
  }();
  return alphabet;
}

namespace {

struct Span {
  std::size_t start;
  std::size_t end;
  bool is_match;
};

// HF's SplitDelimiterBehavior over spans that cover the piece.
void apply_behavior(std::string_view piece, std::vector<Span>& spans, SplitBehavior behavior,
                    std::vector<std::string>& out) {
  struct Part {
    std::size_t start, end;
    bool remove;
  };
  std::vector<Part> parts;
  parts.reserve(spans.size());
  switch (behavior) {
    case SplitBehavior::isolated:
      for (const Span& s : spans) parts.push_back({s.start, s.end, false});
      break;
    case SplitBehavior::removed:
      for (const Span& s : spans) parts.push_back({s.start, s.end, s.is_match});
      break;
    case SplitBehavior::contiguous: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.is_match == previous && !parts.empty())
          parts.back().end = s.end;
        else
          parts.push_back({s.start, s.end, false});
        previous = s.is_match;
      }
      break;
    }
    case SplitBehavior::merged_with_previous: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.is_match && !previous && !parts.empty())
          parts.back().end = s.end;
        else
          parts.push_back({s.start, s.end, false});
        previous = s.is_match;
      }
      break;
    }
    case SplitBehavior::merged_with_next: {
      bool previous = false;
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous && !parts.empty())
          parts.back().start = it->start;
        else
          parts.push_back({it->start, it->end, false});
        previous = it->is_match;
      }
      std::reverse(parts.begin(), parts.end());
      break;
    }
  }
  for (const Part& p : parts)
    if (!p.remove && p.end > p.start) out.emplace_back(piece.substr(p.start, p.end - p.start));
}

// Spans of matches of a per-character predicate (each character its own match,
// as HF's `impl Pattern for Fn(char) -> bool`).
template <class Predicate>
void character_spans(std::string_view piece, Predicate&& is_match, std::vector<Span>& spans) {
  std::size_t last = 0;
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t length = utf8::sequence_length(piece, i);
    if (length == 0) {  // an ill-formed byte: never a match (HF sees only valid UTF-8)
      ++i;
      continue;
    }
    const char32_t c = utf8::decode_at(piece, i);
    if (is_match(c)) {
      if (last < i) spans.push_back({last, i, false});
      spans.push_back({i, i + length, true});
      last = i + length;
    }
    i += length;
  }
  if (last < piece.size()) spans.push_back({last, piece.size(), false});
}

void invert(std::vector<Span>& spans) {
  for (Span& s : spans) s.is_match = !s.is_match;
}

bool is_white_space(char32_t c) {
  return u_isUWhiteSpace(static_cast<UChar32>(c));
}

class SplitPreTokenizer final : public PreTokenizerStep {
 public:
  /// name: what describe() says instead of the Split, for components HF defines as one
  /// (Whitespace).
  SplitPreTokenizer(std::string pattern, bool is_regex, SplitBehavior behavior, bool invert,
                    UnicodeVersion unicode, std::string name = {})
      : literal_(pattern), name_(std::move(name)), behavior_(behavior), invert_(invert) {
    if (is_regex) regex_ = std::make_unique<PretrainedRegex>(std::move(pattern), unicode);
  }
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    thread_local std::vector<Span> spans;
    spans.clear();
    std::size_t last = 0;
    const auto on_match = [&](std::size_t start, std::size_t end) {
      if (last != start) spans.push_back({last, start, false});
      spans.push_back({start, end, true});
      last = end;
    };
    if (regex_) {
      regex_->for_each_match(piece, on_match);
    } else if (!literal_.empty()) {
      for (std::size_t at = piece.find(literal_); at != std::string_view::npos;
           at = piece.find(literal_, at + literal_.size()))
        on_match(at, at + literal_.size());
    }
    if (last != piece.size()) spans.push_back({last, piece.size(), false});
    if (invert_) invert(spans);
    apply_behavior(piece, spans, behavior_, out);
  }
  [[nodiscard]] std::string describe() const override {
    if (!name_.empty()) return name_;
    return std::string("Split(") + (regex_ ? "regex /" + literal_ + "/" : "\"" + literal_ + "\"") +
           (invert_ ? ", inverted" : "") + ")";
  }

 private:
  std::string literal_;
  std::string name_;
  std::unique_ptr<PretrainedRegex> regex_;
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevelPreTokenizer final : public PreTokenizerStep {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space) {
    if (use_regex)
      regex_ = std::make_unique<PretrainedRegex>(std::string(kGpt2Pattern), kHfUnicode);
    const auto& alphabet = byte_level_alphabet();
    for (int b = 0; b < 256; ++b) {
      encoded_[b].clear();
      utf8::append(encoded_[b], alphabet[b]);
    }
  }
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    std::string prefixed;
    if (add_prefix_space_ && (piece.empty() || piece.front() != ' ')) {
      prefixed = " ";
      prefixed += piece;
      piece = prefixed;
    }
    if (!regex_) {
      emit(piece, out);
      return;
    }
    std::size_t last = 0;
    regex_->for_each_match(piece, [&](std::size_t start, std::size_t end) {
      if (last != start) emit(piece.substr(last, start - last), out);
      emit(piece.substr(start, end - start), out);
      last = end;
    });
    if (last != piece.size()) emit(piece.substr(last), out);
  }
  [[nodiscard]] std::string describe() const override {
    return std::string("ByteLevel(") + (add_prefix_space_ ? "prefix space" : "no prefix space") +
           (regex_ ? ", GPT-2 regex" : "") + ")";
  }

 private:
  void emit(std::string_view piece, std::vector<std::string>& out) const {
    if (piece.empty()) return;
    // The exact length first: a piece that fits the short-string buffer then
    // costs no allocation (reserving twice the bytes allocated for any piece
    // over 7 bytes: a tenth of training's counting).
    std::size_t length = 0;
    for (const char ch : piece) length += encoded_[static_cast<unsigned char>(ch)].size();
    std::string& mapped = out.emplace_back();
    mapped.reserve(length);
    for (const char ch : piece) mapped += encoded_[static_cast<unsigned char>(ch)];
  }
  bool add_prefix_space_;
  std::unique_ptr<PretrainedRegex> regex_;
  std::array<std::string, 256> encoded_;
};

class MetaspacePreTokenizer final : public PreTokenizerStep {
 public:
  MetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split)
      : scheme_(scheme), split_(split) {
    utf8::append(replacement_, replacement);
  }
  void split(std::string_view piece, bool at_start, std::vector<std::string>& out) const override {
    std::string text;
    text.reserve(piece.size() + 8);
    for (const char ch : piece) {
      if (ch == ' ')
        text += replacement_;
      else
        text += ch;
    }
    const bool starts_with_replacement = text.starts_with(replacement_);
    if (!starts_with_replacement &&
        (scheme_ == PrependScheme::always || (scheme_ == PrependScheme::first && at_start)))
      text.insert(0, replacement_);
    if (!split_) {
      if (!text.empty()) out.push_back(std::move(text));
      return;
    }
    std::vector<Span> spans;
    std::size_t last = 0;
    for (std::size_t at = text.find(replacement_); at != std::string::npos;
         at = text.find(replacement_, at + replacement_.size())) {
      if (last != at) spans.push_back({last, at, false});
      spans.push_back({at, at + replacement_.size(), true});
      last = at + replacement_.size();
    }
    if (last != text.size()) spans.push_back({last, text.size(), false});
    apply_behavior(text, spans, SplitBehavior::merged_with_next, out);
  }
  [[nodiscard]] std::string describe() const override {
    static constexpr const char* kSchemes[] = {"always", "never", "first"};
    return "Metaspace(\"" + replacement_ + "\", prepend " + kSchemes[static_cast<int>(scheme_)] +
           (split_ ? ", split" : "") + ")";
  }
  [[nodiscard]] const std::string& replacement() const noexcept { return replacement_; }
  [[nodiscard]] bool always_split() const noexcept {
    return split_ && scheme_ == PrependScheme::always;
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

// A pre-tokenizer defined by a span function and a behavior.
class SpanPreTokenizer final : public PreTokenizerStep {
 public:
  using SpanFn = std::function<void(std::string_view, std::vector<Span>&)>;
  SpanPreTokenizer(std::string name, SpanFn spans, SplitBehavior behavior)
      : name_(std::move(name)), spans_(std::move(spans)), behavior_(behavior) {}
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    thread_local std::vector<Span> spans;
    spans.clear();
    spans_(piece, spans);
    apply_behavior(piece, spans, behavior_, out);
  }
  [[nodiscard]] std::string describe() const override { return name_; }

 private:
  std::string name_;
  SpanFn spans_;
  SplitBehavior behavior_;
};

// HF's BertPreTokenizer: WhitespaceSplit (white space removed), then each
// punctuation character isolated. Done in one pass over the code points, the
// ASCII ones classified by a table built from the same predicates: the two-step
// chain it replaces built a vector of strings per step, a third of BERT's time.
class BertPreTokenizer final : public PreTokenizerStep {
 public:
  enum class Kind : std::uint8_t { word, space, punctuation };

  BertPreTokenizer() {
    for (char32_t c = 0; c < 0x80; ++c) ascii_[c] = classify(c);
  }
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    std::size_t word = 0;  // start of the current run of word characters
    for (std::size_t i = 0; i < piece.size();) {
      const auto byte = static_cast<unsigned char>(piece[i]);
      std::size_t length = 1;
      Kind kind = Kind::word;
      if (byte < 0x80) {
        kind = ascii_[byte];
      } else {
        length = utf8::sequence_length(piece, i);
        // An ill-formed byte (never reaches here: run_pipeline refuses it) is a word byte.
        if (length == 0)
          length = 1;
        else
          kind = classify(utf8::decode_at(piece, i));
      }
      if (kind != Kind::word) {
        if (i > word) out.emplace_back(piece.substr(word, i - word));
        if (kind == Kind::punctuation) out.emplace_back(piece.substr(i, length));
        word = i + length;
      }
      i += length;
    }
    if (piece.size() > word) out.emplace_back(piece.substr(word));
  }
  [[nodiscard]] std::string describe() const override { return "BertPreTokenizer"; }

  static Kind classify(char32_t c) {
    if (is_white_space(c)) return Kind::space;
    return bert::is_punctuation(c) ? Kind::punctuation : Kind::word;
  }

 private:
  std::array<Kind, 0x80> ascii_{};
};

// Rust's char::is_numeric: Nd, Nl or No.
bool is_numeric(char32_t c) {
  return (general_category_mask(c, kHfUnicode) & U_GC_N_MASK) != 0;
}

}  // namespace

namespace hf {
// The factories below name the two: no other step has these names.
bool is_whitespace_pre_tokenizer(const PreTokenizerStep& step) {
  const auto* span = dynamic_cast<const SpanPreTokenizer*>(&step);
  return span != nullptr && span->describe() == "Whitespace";
}
std::optional<std::string> metaspace_always_split(const PreTokenizerStep& step) {
  const auto* metaspace = dynamic_cast<const MetaspacePreTokenizer*>(&step);
  if (metaspace == nullptr || !metaspace->always_split()) return std::nullopt;
  return metaspace->replacement();
}
bool is_bert_pre_tokenizer(const PreTokenizerStep& step) {
  return dynamic_cast<const BertPreTokenizer*>(&step) != nullptr;
}
}  // namespace hf

std::unique_ptr<PreTokenizerStep> make_split_pre_tokenizer(std::string pattern, bool is_regex,
                                                           SplitBehavior behavior, bool invert,
                                                           UnicodeVersion unicode) {
  return std::make_unique<SplitPreTokenizer>(std::move(pattern), is_regex, behavior, invert,
                                             unicode);
}

std::unique_ptr<PreTokenizerStep> make_byte_level_pre_tokenizer(bool add_prefix_space,
                                                                bool use_regex) {
  return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}

std::unique_ptr<PreTokenizerStep> make_metaspace_pre_tokenizer(char32_t replacement,
                                                               PrependScheme scheme, bool split) {
  return std::make_unique<MetaspacePreTokenizer>(replacement, scheme, split);
}

// HF's Whitespace is Split(r"\w+|[^\w\s]+", Removed, invert=true): runs of word
// characters and runs of other non-space characters are the pieces, white space
// goes (the delimiters, is_match, that Removed drops). Scanned here rather than by ICU's regex
// engine (a quarter of training's time on English), with the classes ICU gives \w and HF's engines
// give \s.
enum class WordClass : std::uint8_t { word, space, other };

WordClass word_class(char32_t c) {
  if (c < 0x80) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
      return WordClass::word;
    return (c >= '\t' && c <= '\r') || c == ' ' ? WordClass::space : WordClass::other;
  }
  // ICU's \w: [\p{Alphabetic}\p{Mark}\p{Decimal_Number}\p{Connector_Punctuation}\u200c\u200d],
  // as Unicode 16.0 has them.
  if ((general_category_mask(c, kHfUnicode) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) ||
      c == 0x200C || c == 0x200D || is_alphabetic(c, kHfUnicode))
    return WordClass::word;
  return u_isUWhiteSpace(static_cast<UChar32>(c)) ? WordClass::space : WordClass::other;
}

void whitespace_pattern_spans(std::string_view piece, std::vector<Span>& spans) {
  std::size_t start = 0;
  WordClass run = WordClass::space;
  for (std::size_t i = 0; i < piece.size();) {
    const utf8::Sequence s = utf8::decode_sequence(piece, i);
    // Ill-formed bytes never reach a pre-tokenizer (run_pipeline refuses them).
    const WordClass c = s.length == 0 ? WordClass::other : word_class(s.code_point);
    if (c != run) {
      if (i > start) spans.push_back({start, i, run == WordClass::space});
      start = i;
      run = c;
    }
    i += s.length == 0 ? 1 : s.length;
  }
  if (piece.size() > start) spans.push_back({start, piece.size(), run == WordClass::space});
}

std::unique_ptr<PreTokenizerStep> make_whitespace_pre_tokenizer() {
  return std::make_unique<SpanPreTokenizer>("Whitespace", whitespace_pattern_spans,
                                            SplitBehavior::removed);
}

std::unique_ptr<PreTokenizerStep> make_whitespace_split_pre_tokenizer() {
  return std::make_unique<SpanPreTokenizer>(
      "WhitespaceSplit",
      [](std::string_view piece, std::vector<Span>& spans) {
        character_spans(piece, is_white_space, spans);
      },
      SplitBehavior::removed);
}

std::unique_ptr<PreTokenizerStep> make_bert_pre_tokenizer() {
  return std::make_unique<BertPreTokenizer>();
}

std::unique_ptr<PreTokenizerStep> make_digits_pre_tokenizer(bool individual) {
  return std::make_unique<SpanPreTokenizer>(
      individual ? "Digits(individual)" : "Digits",
      [](std::string_view piece, std::vector<Span>& spans) {
        character_spans(piece, is_numeric, spans);
      },
      individual ? SplitBehavior::isolated : SplitBehavior::contiguous);
}

std::unique_ptr<PreTokenizerStep> make_punctuation_pre_tokenizer(SplitBehavior behavior) {
  return std::make_unique<SpanPreTokenizer>(
      "Punctuation",
      [](std::string_view piece, std::vector<Span>& spans) {
        character_spans(piece, bert::is_punctuation, spans);
      },
      behavior);
}

}  // namespace tokenlab
