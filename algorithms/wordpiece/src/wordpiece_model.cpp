#include "tokenlab/wordpiece/wordpiece_model.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <functional>
#include <istream>
#include <ostream>

#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_cache.hpp"
#include "tokenlab/wordpiece/wordpiece_vocab_txt.hpp"

namespace tokenlab::wordpiece {

// The model payload: what save() writes and load() validates (install()) before
// committing.
struct Payload {
  Vocabulary vocabulary;
  std::string prefix;  // the continuation prefix, "##"
  std::uint64_t max_chars = 0;
  bool bert_spacing = false;
  bool bert_lookup = false;
  std::uint32_t unknown = 0;
  std::vector<std::uint32_t> reserved;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& BOOST_SERIALIZATION_NVP(vocabulary) & BOOST_SERIALIZATION_NVP(prefix) &
        BOOST_SERIALIZATION_NVP(max_chars) & BOOST_SERIALIZATION_NVP(bert_spacing) &
        BOOST_SERIALIZATION_NVP(bert_lookup) & BOOST_SERIALIZATION_NVP(unknown) &
        BOOST_SERIALIZATION_NVP(reserved);
  }
};

}  // namespace tokenlab::wordpiece

// Bump when Payload's fields change, and have serialize() read the older versions too.
BOOST_CLASS_VERSION(tokenlab::wordpiece::Payload, 0)

namespace tokenlab::wordpiece {

namespace {

// 3: a payload archive (payload.hpp); 2 was a hand-written tagged layout, 1 a bare
// Boost archive.
constexpr std::uint32_t kFormatVersion = 3;
constexpr std::string_view kVocabTxtFormat = "vocab.txt";

// Recent words, per thread and model (tokenlab/word_cache.hpp). Short words
// only: longer ones are matched directly, which costs little more than a lookup.
using Cache =
    WordCache<WordCacheShape{.max_word_bytes = 22, .max_ids = 8, .slots = 4096, .models = 2}>;

bool contains_marker(const std::vector<std::string>& pieces) {
  return std::any_of(pieces.begin(), pieces.end(), [](const std::string& p) {
    return p.find(kBoundaryMarker) != std::string::npos;
  });
}

}  // namespace

struct WordPieceSegmenter::Tries {
  PieceTrie initial;       // whole pieces, for a word's first position
  PieceTrie continuation;  // continuation pieces without their prefix
};

WordPieceSegmenter::WordPieceSegmenter() = default;
WordPieceSegmenter::~WordPieceSegmenter() = default;
// Moving keeps the model's stamp, so per-thread cache entries stay valid.
WordPieceSegmenter::WordPieceSegmenter(WordPieceSegmenter&&) noexcept = default;
WordPieceSegmenter& WordPieceSegmenter::operator=(WordPieceSegmenter&&) noexcept = default;

bool WordPieceSegmenter::is_continuation(TokenId id) const {
  if (id >= continuation_.size())
    throw Error("wordpiece: token id " + std::to_string(id) + " out of range");
  return continuation_[id] != 0;
}

void WordPieceSegmenter::install(Vocabulary vocabulary, std::string prefix, std::size_t max_chars,
                                 bool bert_spacing, bool bert_lookup,
                                 std::optional<TokenId> unknown, std::vector<TokenId> reserved) {
  const std::size_t size = vocabulary.size();
  if (prefix.empty()) throw Error("wordpiece: empty continuation prefix");
  if (max_chars == 0 || max_chars > kMaxInputCharsLimit)
    throw Error("wordpiece: bad max_input_chars_per_word");
  if (!unknown || *unknown >= size) throw Error("wordpiece: the model has no valid unknown token");
  std::vector<std::uint8_t> is_reserved(size, 0);
  for (const TokenId id : reserved) {
    if (id >= size) throw Error("wordpiece: reserved token id out of range");
    is_reserved[id] = 1;
  }
  std::sort(reserved.begin(), reserved.end());
  reserved.erase(std::unique(reserved.begin(), reserved.end()), reserved.end());

  std::vector<std::uint8_t> continuation(size, 0);
  std::vector<std::pair<std::string, TokenId>> initial_keys;
  std::vector<std::pair<std::string, TokenId>> continuation_keys;
  initial_keys.reserve(size);
  continuation_keys.reserve(size);
  for (TokenId id = 0; id < size; ++id) {
    const std::string& piece = vocabulary.piece(id);
    if (is_reserved[id]) continue;
    const bool cont = piece.size() > prefix.size() && piece.starts_with(prefix);
    continuation[id] = cont ? 1 : 0;
    if (cont) continuation_keys.emplace_back(piece.substr(prefix.size()), id);
    if (!cont || bert_lookup) initial_keys.emplace_back(piece, id);
  }
  auto tries = std::make_unique<Tries>();
  const auto views = [](const std::vector<std::pair<std::string, TokenId>>& keys) {
    std::vector<std::pair<std::string_view, std::uint32_t>> out;
    out.reserve(keys.size());
    for (const auto& [key, id] : keys) out.emplace_back(key, id);
    return out;
  };
  tries->initial = PieceTrie(views(initial_keys));
  tries->continuation = PieceTrie(views(continuation_keys));

  // Nothing below throws: the old model stays intact if anything above failed.
  vocabulary_ = std::move(vocabulary);
  prefix_ = std::move(prefix);
  max_chars_ = max_chars;
  bert_spacing_ = bert_spacing;
  bert_lookup_ = bert_lookup;
  unknown_ = unknown;
  reserved_ = std::move(reserved);
  continuation_ = std::move(continuation);
  tries_ = std::move(tries);
  stamp_ = new_model_identity();
}

void WordPieceSegmenter::encode_uncached(std::string_view word, std::vector<TokenId>& out) const {
  std::size_t chars = 0;
  for (const char c : word) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  if (chars > max_chars_) {
    out.push_back(*unknown_);
    return;
  }
  const std::size_t start = out.size();
  for (std::size_t pos = 0; pos < word.size();) {
    TokenId id = 0;
    const PieceTrie& trie = pos == 0 ? tries_->initial : tries_->continuation;
    const std::size_t length = trie.longest_prefix(word.substr(pos), id);
    if (length == 0) {
      // BERT: one unmatched position makes the whole word unknown.
      out.resize(start);
      out.push_back(*unknown_);
      return;
    }
    out.push_back(id);
    pos += length;
  }
}

void WordPieceSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (!tries_) throw Error("wordpiece: no model (train, load or import one first)");
  if (word.empty()) return;
  Cache::encode(stamp_, word, out,
                [this](std::string_view w, std::vector<TokenId>& o) { encode_uncached(w, o); });
}

std::string WordPieceSegmenter::decode(std::span<const TokenId> ids) const {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const TokenId id = ids[i];
    if (id >= vocabulary_.size())
      throw Error("wordpiece: token id " + std::to_string(id) + " out of range (vocabulary size " +
                  std::to_string(vocabulary_.size()) + ")");
    const std::string& piece = vocabulary_.piece(id);
    if (continuation_[id] != 0) {
      text.append(piece, prefix_.size());
    } else {
      if (bert_spacing_ && i > 0) text.push_back(' ');
      text.append(piece);
    }
  }
  return text;
}

void WordPieceSegmenter::save(std::ostream& out) const {
  if (!tries_) throw Error("wordpiece: no model to save");
  const Payload payload{.vocabulary = vocabulary_,
                        .prefix = prefix_,
                        .max_chars = max_chars_,
                        .bert_spacing = bert_spacing_,
                        .bert_lookup = bert_lookup_,
                        .unknown = *unknown_,
                        .reserved = reserved_};
  PayloadOArchive ar(out, "wordpiece", kFormatVersion);
  ar << boost::serialization::make_nvp("model", payload);
  if (!out) throw Error("wordpiece: write error while saving the model");
}

void WordPieceSegmenter::load(std::istream& in) {
  PayloadIArchive ar(in, "wordpiece", kFormatVersion);
  Payload payload;
  ar >> boost::serialization::make_nvp("model", payload);
  ar.finish();
  if (payload.max_chars == 0 || payload.max_chars > kMaxInputCharsLimit) ar.fail("bad max chars");
  try {
    install(std::move(payload.vocabulary), std::move(payload.prefix),
            static_cast<std::size_t>(payload.max_chars), payload.bert_spacing, payload.bert_lookup,
            payload.unknown, std::move(payload.reserved));
  } catch (const Error& e) {
    ar.fail(e.what());
  }
  merges_.clear();
}

void WordPieceSegmenter::import_vocab_txt(std::istream& in, const std::string& name) {
  std::vector<std::string> tokens = read_vocab_txt(in, name);
  if (tokens.empty()) throw Error(name + ": no tokens");
  std::size_t leading = 0;
  while (leading < tokens.size() && is_reserved_token(tokens[leading])) ++leading;
  std::optional<TokenId> unknown;
  for (const char* candidate : {"[UNK]", "<unk>"}) {
    for (std::size_t id = 0; id < tokens.size() && !unknown; ++id)
      if (tokens[id] == candidate) unknown = static_cast<TokenId>(id);
    if (unknown) break;
  }
  if (!unknown) throw Error(name + ": no [UNK] token; WordPiece needs one for unmatchable words");
  std::vector<TokenId> reserved;
  for (std::size_t id = 0; id < tokens.size(); ++id)
    if (is_reserved_token(tokens[id])) reserved.push_back(static_cast<TokenId>(id));
  // A vocabulary with boundary markers came from tokenlab: its pieces already
  // carry the spacing, and its first pieces never start with "##".
  const bool native = contains_marker(tokens);

  Vocabulary vocabulary;
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    if (id < leading)
      vocabulary.add_special(std::move(tokens[id]));
    else
      vocabulary.add(std::move(tokens[id]));
  }
  if (*unknown < leading) vocabulary.set_unknown(*unknown);
  install(std::move(vocabulary), "##", 100, !native, !native, unknown, std::move(reserved));
  merges_.clear();
}

void WordPieceSegmenter::export_vocab_txt(std::ostream& out) const {
  if (!tries_) throw Error("wordpiece: no model to export");
  write_vocab_txt(out, vocabulary_.pieces());
}

void WordPieceSegmenter::import_model(std::istream& in, const std::string& format,
                                      const std::string& name) {
  if (format != kVocabTxtFormat)
    throw Error("wordpiece: cannot import format '" + format + "' (supported: vocab.txt)");
  import_vocab_txt(in, name);
}

void WordPieceSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format == kModelDescriptionFormat) {
    if (!tries_) throw Error("wordpiece: no model (train, load or import one first)");
    ModelDescription m = describe_vocabulary(ModelKind::wordpiece, vocabulary_);
    m.unknown = unknown_;  // also set for an imported vocab.txt
    m.continuation_prefix = prefix_;
    m.max_input_chars_per_word = max_chars_;
    write_model_description(out, m);
    return;
  }
  if (format != kVocabTxtFormat)
    throw Error("wordpiece: cannot export format '" + format + "' (supported: vocab.txt)");
  export_vocab_txt(out);
}

}  // namespace tokenlab::wordpiece
