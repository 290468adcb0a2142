#include "tokenlab/model_description.hpp"

#include <cstdio>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <sstream>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

constexpr const char* kHeader = "tokenlab-model-description 1";

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2 + 1);
  out += 'x';  // so that the empty piece is a token too
  for (const char c : bytes) {
    out += kDigits[static_cast<unsigned char>(c) >> 4];
    out += kDigits[static_cast<unsigned char>(c) & 0xF];
  }
  return out;
}

class LineReader {
 public:
  explicit LineReader(std::istream& in) : in_(in) {}

  std::istringstream next() {
    std::string line;
    if (!std::getline(in_, line)) fail("the description ends early");
    ++number_;
    return std::istringstream(line);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("model description, line " + std::to_string(number_) + ": " + what);
  }
  template <class T>
  T field(std::istringstream& line, const char* name) const {
    T value{};
    if (!(line >> value)) fail(std::string("expected ") + name);
    return value;
  }
  std::string bytes(std::istringstream& line) const {
    const auto text = field<std::string>(line, "a hex piece");
    if (text.empty() || text[0] != 'x' || text.size() % 2 == 0)
      fail("bad hex piece '" + text + "'");
    std::string out;
    for (std::size_t i = 1; i < text.size(); i += 2) {
      const auto digit = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        fail("bad hex piece '" + text + "'");
      };
      out += static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1]));
    }
    return out;
  }

 private:
  std::istream& in_;
  std::size_t number_ = 0;
};

}  // namespace

const char* model_kind_name(ModelKind kind) noexcept {
  switch (kind) {
    case ModelKind::bpe:
      return "bpe";
    case ModelKind::wordpiece:
      return "wordpiece";
    case ModelKind::unigram:
      return "unigram";
    case ModelKind::word:
      return "word";
    case ModelKind::character:
      return "character";
  }
  return "?";
}

ModelDescription describe_vocabulary(ModelKind kind, const Vocabulary& vocabulary) {
  ModelDescription m;
  m.kind = kind;
  m.pieces = vocabulary.pieces();
  for (TokenId id = 0; id < vocabulary.special_count(); ++id) m.specials.push_back(id);
  m.unknown = vocabulary.unknown_id();
  return m;
}

void write_model_description(std::ostream& out, const ModelDescription& m) {
  out << kHeader << '\n';
  out << "kind " << model_kind_name(m.kind) << '\n';
  out << "unknown " << (m.unknown ? static_cast<long long>(*m.unknown) : -1LL) << '\n';
  out << "byte_fallback " << (m.byte_fallback ? 1 : 0) << '\n';
  out << "byte_level " << (m.byte_level ? 1 : 0) << '\n';
  out << "continuation_prefix " << hex(m.continuation_prefix) << '\n';
  out << "max_input_chars_per_word " << m.max_input_chars_per_word << '\n';
  out << "pieces " << m.pieces.size() << '\n';
  char score[64];
  for (std::size_t i = 0; i < m.pieces.size(); ++i) {
    // %a: the exact double, so an exporter writes the score the segmenter uses.
    std::snprintf(score, sizeof score, "%a", i < m.scores.size() ? m.scores[i] : 0.0);
    out << hex(m.pieces[i]) << ' ' << score << '\n';
  }
  out << "specials " << m.specials.size() << '\n';
  for (const TokenId id : m.specials) out << id << '\n';
  out << "merges " << m.merges.size() << '\n';
  for (const auto& [left, right] : m.merges) out << left << ' ' << right << '\n';
  // Optional lines come last, so that descriptions from older plugins still read.
  if (m.dropout > 0.0) {
    char dropout[64];
    std::snprintf(dropout, sizeof dropout, "%a", m.dropout);
    out << "dropout " << dropout << '\n';
  }
  out << "end\n";
}

ModelDescription read_model_description(std::istream& in) {
  LineReader r(in);
  ModelDescription m;
  if (r.next().str() != kHeader) r.fail("expected the header '" + std::string(kHeader) + "'");
  const auto keyed = [&](const char* key) {
    auto line = r.next();
    if (r.field<std::string>(line, key) != key) r.fail(std::string("expected '") + key + "'");
    return line;
  };
  {
    auto line = keyed("kind");
    const auto kind = r.field<std::string>(line, "a kind");
    bool known = false;
    for (const ModelKind k : {ModelKind::bpe, ModelKind::wordpiece, ModelKind::unigram,
                              ModelKind::word, ModelKind::character})
      if (kind == model_kind_name(k)) {
        m.kind = k;
        known = true;
      }
    if (!known) r.fail("unknown kind '" + kind + "'");
  }
  long long unknown = 0;
  {
    auto line = keyed("unknown");
    unknown = r.field<long long>(line, "an id");
  }
  {
    auto line = keyed("byte_fallback");
    m.byte_fallback = r.field<int>(line, "0 or 1") != 0;
  }
  {
    auto line = keyed("byte_level");
    m.byte_level = r.field<int>(line, "0 or 1") != 0;
  }
  {
    auto line = keyed("continuation_prefix");
    m.continuation_prefix = r.bytes(line);
  }
  {
    auto line = keyed("max_input_chars_per_word");
    m.max_input_chars_per_word = r.field<std::size_t>(line, "a number");
  }
  std::size_t count = 0;
  {
    auto line = keyed("pieces");
    count = r.field<std::size_t>(line, "a count");
  }
  for (std::size_t i = 0; i < count; ++i) {
    auto line = r.next();
    m.pieces.push_back(r.bytes(line));
    const auto text = r.field<std::string>(line, "a score");
    char* end = nullptr;
    const double score = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') r.fail("bad score '" + text + "'");
    m.scores.push_back(score);
  }
  const auto id = [&](std::istringstream& line) {
    const auto value = r.field<std::uint64_t>(line, "an id");
    if (value >= m.pieces.size()) r.fail("id " + std::to_string(value) + " has no piece");
    return static_cast<TokenId>(value);
  };
  {
    auto line = keyed("specials");
    count = r.field<std::size_t>(line, "a count");
  }
  for (std::size_t i = 0; i < count; ++i) {
    auto line = r.next();
    m.specials.push_back(id(line));
  }
  {
    auto line = keyed("merges");
    count = r.field<std::size_t>(line, "a count");
  }
  for (std::size_t i = 0; i < count; ++i) {
    auto line = r.next();
    const TokenId left = id(line);
    m.merges.emplace_back(left, id(line));
  }
  for (;;) {
    auto line = r.next();
    if (line.str() == "end") break;
    if (r.field<std::string>(line, "a key") != "dropout") r.fail("expected 'dropout' or 'end'");
    const auto text = r.field<std::string>(line, "a probability");
    char* end = nullptr;
    m.dropout = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(m.dropout >= 0.0 && m.dropout <= 1.0))
      r.fail("bad dropout '" + text + "'");
  }
  if (unknown >= 0) {
    if (static_cast<std::uint64_t>(unknown) >= m.pieces.size())
      r.fail("the unknown id has no piece");
    m.unknown = static_cast<TokenId>(unknown);
  }
  return m;
}

}  // namespace tokenlab
