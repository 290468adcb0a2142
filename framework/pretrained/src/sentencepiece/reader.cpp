// read_sentencepiece: a .model file's ModelProto parsed, its pieces checked as
// ModelInterface::InitializePieces (model_interface.cc) checks them, and the
// pipeline built: the normalizer, the model of trainer_spec.model_type, and the
// decoder with the denormalizer.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <span>
#include <utility>

#include <google/protobuf/arena.h>

#include "precompiled.hpp"
#include "sentencepiece/decoder.hpp"
#include "sentencepiece/internal.hpp"
#include "sentencepiece/normalizer.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/formats.hpp"

namespace tokenlab {
namespace sentencepiece_detail {
namespace {

// PieceToByte: "<0xNN>" with upper-case hex, as ByteToPiece spells it; or -1.
int piece_to_byte(std::string_view piece) {
  const auto byte = byte_fallback_value(piece, HexDigits::upper_case);
  return byte ? *byte : -1;
}

std::string quote_piece(std::string_view piece) {
  std::string q = "\"";
  for (const char c : piece) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      q += "\\x";
      q += kHex[b >> 4];
      q += kHex[b & 15];
    } else {
      q += c;
    }
  }
  return q + "\"";
}

const char* type_name(PieceType type) {
  switch (type) {
    case PieceType::normal:
      return "NORMAL";
    case PieceType::unknown:
      return "UNKNOWN";
    case PieceType::control:
      return "CONTROL";
    case PieceType::user_defined:
      return "USER_DEFINED";
    case PieceType::unused:
      return "UNUSED";
    case PieceType::byte:
      return "BYTE";
  }
  return "?";
}

NormalizerFlags flags_of(const sentencepiece::NormalizerSpec& spec, bool suffix) {
  NormalizerFlags f;
  f.add_dummy_prefix = spec.add_dummy_prefix();
  f.remove_extra_whitespaces = spec.remove_extra_whitespaces();
  f.escape_whitespaces = spec.escape_whitespaces();
  f.treat_whitespace_as_suffix = suffix;
  return f;
}

// The keys of the two tries: the normal pieces (NORMAL, USER_DEFINED, UNUSED)
// and the user-defined symbols, each with its id, sorted bytewise.
struct PieceKeys {
  std::vector<DoubleArray::Key> normal;
  std::vector<DoubleArray::Key> user_defined;
};

std::string piece_at(const std::string& source, int i) {
  return source + ": pieces[" + std::to_string(i) + "]";
}

// The protobuf ModelProto of content, on arena: its thousands of pieces are
// then allocated and freed in blocks (their one-by-one destruction and the
// allocator's consolidation were a tenth of loading a .model).
const Proto& parse_model(std::string_view content, const std::string& source,
                         google::protobuf::Arena& arena) {
  Proto& proto = *google::protobuf::Arena::CreateMessage<Proto>(&arena);
  if (content.size() > static_cast<std::size_t>(INT_MAX))
    throw Error(source + ": " + std::to_string(content.size()) +
                " bytes is larger than a protobuf message can be");
  if (!proto.ParseFromArray(content.data(), static_cast<int>(content.size())))
    throw Error(source +
                ": not a SentencePiece model: the protobuf ModelProto does not parse "
                "(a truncated or corrupt .model file, or another format)");
  return proto;
}

// The number of pieces, refused if none or more than a TokenTable holds.
int piece_count(const Proto& proto, const std::string& source) {
  const int count = proto.pieces_size();
  if (count == 0)
    throw Error(source +
                ": the SentencePiece model has no pieces (an empty or foreign protobuf "
                "file?)");
  if (static_cast<std::uint64_t>(count) > std::uint64_t{TokenTable::kMaxId} + 1)
    throw Error(source + ": " + std::to_string(count) + " pieces are more than tokenlab accepts");
  return count;
}

// Each piece, type and score copied into the vocabulary; an empty piece and a
// NaN score refused.
void copy_pieces(const Proto& proto, int count, const std::string& source, SpmVocabulary& v) {
  v.byte_fallback = proto.trainer_spec().byte_fallback();
  v.pieces.reserve(static_cast<std::size_t>(count));
  v.types.reserve(static_cast<std::size_t>(count));
  v.scores.reserve(static_cast<std::size_t>(count));
  v.byte_of.assign(static_cast<std::size_t>(count), -1);
  const auto at = [&](int i) { return piece_at(source, i); };
  for (int i = 0; i < count; ++i) {
    const auto& sp = proto.pieces(i);
    const std::string& piece = sp.piece();
    const auto type = static_cast<PieceType>(sp.type());
    if (piece.empty())
      throw Error(at(i) + ": the piece is empty (SentencePiece refuses the model too)");
    // spm_encode runs on with NaN, but every comparison with it is false, so which
    // merge or path wins depends on the order of the search: the model has no
    // defined segmentation, and tokenlab will not guess one.
    if (std::isnan(sp.score()))
      throw Error(at(i) + ": the piece " + quote_piece(piece) +
                  " has the score NaN, which gives the model no defined segmentation");
    v.pieces.push_back(piece);
    v.types.push_back(type);
    v.scores.push_back(sp.score());
  }
}

// A second piece spelled as pieces[first]: refused, as SentencePiece refuses
// it, or (a reserved and a normal piece alike) as tokenlab does not read it.
[[noreturn]] void refuse_duplicate(const std::string& source, const SpmVocabulary& v, int i,
                                   int first) {
  const auto at = [&](int j) { return piece_at(source, j); };
  const std::string& piece = v.pieces[static_cast<std::size_t>(i)];
  const PieceType type = v.types[static_cast<std::size_t>(i)];
  const PieceType other = v.types[static_cast<std::size_t>(first)];
  const auto normal_kind = [](PieceType t) {
    return t == PieceType::normal || t == PieceType::user_defined || t == PieceType::unused;
  };
  if (normal_kind(type) == normal_kind(other))
    throw Error(at(i) + ": the piece " + quote_piece(piece) + " is already pieces[" +
                std::to_string(first) + "] (SentencePiece refuses the model too)");
  throw Error(at(i) + ": the piece " + quote_piece(piece) + " (" + type_name(type) +
              ") is also pieces[" + std::to_string(first) + "] (" + type_name(other) +
              "); tokenlab does not read models that spell two pieces alike");
}

// The unknown piece's id, and with byte_fallback every byte's piece: refused
// if missing.
void check_reserved(const std::string& source, int unknown_at,
                    const std::array<int, 256>& byte_piece_at, SpmVocabulary& v) {
  if (unknown_at < 0)
    throw Error(source +
                ": the model has no unknown piece (type UNKNOWN; SentencePiece refuses "
                "the model too)");
  v.unknown = static_cast<TokenId>(unknown_at);
  if (v.byte_fallback) {
    for (unsigned b = 0; b < 256; ++b) {
      if (byte_piece_at[b] < 0)
        throw Error(source + ": trainer_spec.byte_fallback is set but the byte piece " +
                    byte_fallback_piece(b) + " is missing (SentencePiece refuses the model too)");
      v.byte_ids[b] = static_cast<TokenId>(byte_piece_at[b]);
    }
  }
}

// keys sorted bytewise, as the trie's construction needs them. Each key's first
// eight bytes as a big-endian integer (zero-padded) order two keys unless they
// tie: the keys are radix-sorted on that number, a byte at a time from the
// last (stable), and only each run of a tied number is sorted on the strings.
// (std::sort on the number, and memcmp on every comparison before that, was
// most of reading the pieces of a .model.)
void sort_keys(std::vector<DoubleArray::Key>& keys) {
  struct Sortable {
    std::uint64_t prefix;
    DoubleArray::Key key;
  };
  const std::size_t n = keys.size();
  std::vector<Sortable> sortable(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::string_view text = keys[k].first;
    std::uint64_t prefix = 0;
    for (std::size_t i = 0; i < 8; ++i)
      prefix = (prefix << 8) | (i < text.size() ? static_cast<unsigned char>(text[i]) : 0U);
    sortable[k] = {prefix, keys[k]};
  }
  std::vector<Sortable> scratch(n);
  for (unsigned shift = 0; shift < 64; shift += 8) {
    std::array<std::size_t, 257> start{};
    for (const Sortable& s : sortable) ++start[((s.prefix >> shift) & 0xFF) + 1];
    if (std::find(start.begin(), start.end(), n) != start.end()) continue;  // one byte for all
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (const Sortable& s : sortable) scratch[start[(s.prefix >> shift) & 0xFF]++] = s;
    sortable.swap(scratch);
  }
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first + 1;
    while (last < n && sortable[last].prefix == sortable[first].prefix) ++last;
    if (last - first > 1)
      std::sort(sortable.begin() + static_cast<std::ptrdiff_t>(first),
                sortable.begin() + static_cast<std::ptrdiff_t>(last),
                [](const Sortable& a, const Sortable& b) { return a.key < b.key; });
    first = last;
  }
  for (std::size_t k = 0; k < n; ++k) keys[k] = sortable[k].key;
}

// ModelInterface::InitializePieces: duplicates refused, the pieces sorted into
// the normal ones (the trie's keys), the user-defined symbols and the reserved
// ones (UNKNOWN, CONTROL, BYTE), each byte piece checked.
PieceKeys index_pieces(int count, const std::string& source, SpmVocabulary& v) {
  PieceKeys keys;
  std::vector<DoubleArray::Key>& normal_keys = keys.normal;
  std::vector<DoubleArray::Key>& user_keys = keys.user_defined;
  // Every piece with its id, sorted: equal pieces are neighbours, in id order
  // (the duplicates, found without hashing every piece), and the trie's keys
  // come out in the order its construction needs.
  std::vector<DoubleArray::Key> sorted;
  sorted.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) sorted.emplace_back(v.pieces[static_cast<std::size_t>(i)], i);
  sort_keys(sorted);
  std::vector<int> first_of(static_cast<std::size_t>(count));  // the first piece spelled alike
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    const bool repeated = k > 0 && sorted[k].first == sorted[k - 1].first;
    first_of[static_cast<std::size_t>(sorted[k].second)] =
        repeated ? first_of[static_cast<std::size_t>(sorted[k - 1].second)] : sorted[k].second;
  }
  std::array<int, 256> byte_piece_at;
  byte_piece_at.fill(-1);
  int unknown_at = -1;
  const auto at = [&](int i) { return piece_at(source, i); };
  for (int i = 0; i < count; ++i) {
    const std::string& piece = v.pieces[static_cast<std::size_t>(i)];
    const PieceType type = v.types[static_cast<std::size_t>(i)];
    if (const int first = first_of[static_cast<std::size_t>(i)]; first != i)
      refuse_duplicate(source, v, i, first);
    switch (type) {
      case PieceType::normal:
      case PieceType::user_defined:
      case PieceType::unused:
        if (type == PieceType::unused) v.has_unused = true;
        if (type == PieceType::user_defined) {
          if (piece.find('\0') != std::string::npos)
            throw Error(at(i) + ": the user-defined symbol " + quote_piece(piece) +
                        " holds a NUL byte, which SentencePiece's prefix matcher cuts it at; "
                        "tokenlab does not reproduce that");
        }
        break;
      case PieceType::unknown:
        if (unknown_at >= 0)
          throw Error(at(i) + ": a second unknown piece " + quote_piece(piece) + " after pieces[" +
                      std::to_string(unknown_at) + "] (SentencePiece refuses the model too)");
        unknown_at = i;
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      case PieceType::control:
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      case PieceType::byte: {
        if (!v.byte_fallback)
          throw Error(at(i) + ": the byte piece " + quote_piece(piece) +
                      " in a model without byte_fallback (SentencePiece refuses the model too)");
        const int byte = piece_to_byte(piece);
        if (byte < 0)
          throw Error(at(i) + ": " + quote_piece(piece) +
                      " is not a byte piece (<0x00> to <0xFF>)");
        byte_piece_at[static_cast<std::size_t>(byte)] = i;
        v.byte_of[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(byte);
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      }
      default:
        throw Error(at(i) + ": unknown piece type " + std::to_string(static_cast<int>(type)));
    }
  }
  check_reserved(source, unknown_at, byte_piece_at, v);
  for (const DoubleArray::Key& key : sorted) {
    const PieceType type = v.types[static_cast<std::size_t>(key.second)];
    if (type == PieceType::normal || type == PieceType::user_defined || type == PieceType::unused)
      normal_keys.push_back(key);
    if (type == PieceType::user_defined) user_keys.push_back(key);
  }
  return keys;
}

// The piece trie, and the user-defined symbols' prefix matcher if there are
// any; a unigram model's keys checked as its trie needs them first.
void build_tries(sentencepiece::TrainerSpec::ModelType model_type, const std::string& source,
                 PieceKeys& keys, SpmVocabulary& v) {
  std::vector<DoubleArray::Key>& normal_keys = keys.normal;
  std::vector<DoubleArray::Key>& user_keys = keys.user_defined;
  if (model_type == sentencepiece::TrainerSpec::UNIGRAM) {
    if (normal_keys.empty())
      throw Error(source +
                  ": the unigram model has no NORMAL, USER_DEFINED or UNUSED piece "
                  "(SentencePiece refuses it too)");
    // Darts, which SentencePiece's unigram model looks pieces up in, cuts keys at
    // a NUL byte.
    for (std::size_t id = 0; id < v.pieces.size(); ++id) {  // in id order, as reported
      const std::string& piece = v.pieces[id];
      const PieceType type = v.types[id];
      const bool in_trie =
          type == PieceType::normal || type == PieceType::user_defined || type == PieceType::unused;
      if (in_trie && piece.find('\0') != std::string::npos)
        throw Error(source + ": pieces[" + std::to_string(id) + "]: the piece " +
                    quote_piece(piece) +
                    " holds a NUL byte, which SentencePiece's unigram trie cuts it at; tokenlab "
                    "does not reproduce that");
    }
  }
  v.trie_keys = std::move(normal_keys);  // sorted by index_pieces; built on first use
  if (!user_keys.empty()) {
    v.user_defined.build(user_keys);
    v.has_user_defined = true;
  }
}

// The token table: every piece at its id, built the first time a token is
// looked up (decoding, --pieces, token_to_id). Encoding to ids never does, and
// inserting 32,000 pieces was a tenth of loading a .model. index_pieces
// refused every piece spelled twice, so no row clashes.
std::shared_ptr<TokenTable> make_token_table(std::shared_ptr<const SpmVocabulary> vocabulary) {
  const std::size_t count = vocabulary->pieces.size();
  return TokenTable::deferred(count, count, [vocabulary](TokenTable& table) {
    const std::vector<std::string>& pieces = vocabulary->pieces;
    table.reserve(pieces.size());
    std::vector<TokenTable::Row> rows(pieces.size());
    for (std::size_t id = 0; id < pieces.size(); ++id)
      rows[id] = {static_cast<TokenId>(id), pieces[id]};
    // A row that clashed would be skipped, never given a second id.
    for (std::size_t done = 0; done < rows.size(); ++done)
      done += table.insert_new(std::span(rows).subspan(done));
  });
}

// normalizer_spec as a normalizer that keeps the user-defined symbols whole.
std::unique_ptr<SpmNormalizer> make_normalizer(const Proto& proto,
                                               std::shared_ptr<const SpmVocabulary> vocabulary,
                                               const std::string& source) {
  const auto& normalizer = proto.normalizer_spec();
  return std::make_unique<SpmNormalizer>(
      detail::CharsMap(normalizer.precompiled_charsmap(), source + ": normalizer_spec"),
      std::move(vocabulary),
      flags_of(normalizer, proto.trainer_spec().treat_whitespace_as_suffix()), normalizer.name());
}

// The model of trainer_spec.model_type.
std::unique_ptr<PretrainedModel> make_model(sentencepiece::TrainerSpec::ModelType model_type,
                                            std::shared_ptr<const SpmVocabulary> vocabulary,
                                            const std::string& source) {
  std::unique_ptr<PretrainedModel> model;
  switch (model_type) {
    case sentencepiece::TrainerSpec::UNIGRAM:
      model = make_unigram_model(std::move(vocabulary));
      break;
    case sentencepiece::TrainerSpec::BPE:
      model = make_bpe_model(std::move(vocabulary));
      break;
    case sentencepiece::TrainerSpec::WORD:
      model = make_word_model(std::move(vocabulary));
      break;
    case sentencepiece::TrainerSpec::CHAR:
      model = make_char_model(std::move(vocabulary));
      break;
  }
  if (!model)
    throw Error(source + ": trainer_spec.model_type " +
                std::to_string(static_cast<int>(model_type)) +
                " is not one tokenlab reads (unigram, BPE, word, char)");
  return model;
}

// The decoder, with denormalizer_spec's rules if it has any.
std::unique_ptr<DecoderStep> make_decoder_step(const Proto& proto,
                                               std::shared_ptr<const SpmVocabulary> vocabulary,
                                               const std::string& source) {
  const auto& normalizer = proto.normalizer_spec();
  const auto& trainer = proto.trainer_spec();
  std::unique_ptr<SpmNormalizer> denormalizer;
  if (proto.has_denormalizer_spec() && !proto.denormalizer_spec().precompiled_charsmap().empty()) {
    const auto& spec = proto.denormalizer_spec();
    denormalizer = std::make_unique<SpmNormalizer>(
        detail::CharsMap(spec.precompiled_charsmap(), source + ": denormalizer_spec"), nullptr,
        flags_of(spec, false), spec.name());
  }
  return make_decoder(std::move(vocabulary), trainer.unk_surface(), normalizer.add_dummy_prefix(),
                      normalizer.remove_extra_whitespaces(), std::move(denormalizer));
}

}  // namespace
}  // namespace sentencepiece_detail

PretrainedPipeline read_sentencepiece(std::string_view content, const std::string& source) {
  using namespace sentencepiece_detail;
  google::protobuf::Arena arena;
  const Proto& proto = parse_model(content, source, arena);
  const int count = piece_count(proto, source);
  auto vocabulary = std::make_shared<SpmVocabulary>();
  copy_pieces(proto, count, source, *vocabulary);
  PieceKeys keys = index_pieces(count, source, *vocabulary);
  const auto model_type = proto.trainer_spec().model_type();
  build_tries(model_type, source, keys, *vocabulary);

  PretrainedPipeline pipeline;
  pipeline.format = "sentencepiece";
  pipeline.source = source;
  pipeline.tokens = make_token_table(vocabulary);
  pipeline.normalizers.push_back(make_normalizer(proto, vocabulary, source));
  pipeline.model = make_model(model_type, vocabulary, source);
  pipeline.decoders.push_back(make_decoder_step(proto, vocabulary, source));
  return pipeline;
}

}  // namespace tokenlab
