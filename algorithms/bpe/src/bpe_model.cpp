// The BPE model: its invariants (derive), decoding, display and the file format.
#include "bpe_model_data.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_cache.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::bpe {

namespace {

// GPT-2's bytes_to_unicode(): printable bytes stand for themselves, the rest are
// shifted, in byte order, to U+0100 and up.
constexpr std::array<char32_t, 256> make_byte_display_table() {
  std::array<char32_t, 256> table{};
  char32_t shifted = 0x100;
  for (unsigned b = 0; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    table[b] = printable ? static_cast<char32_t>(b) : shifted++;
  }
  return table;
}
constexpr std::array<char32_t, 256> kByteDisplay = make_byte_display_table();

}  // namespace

std::string byte_display(std::uint8_t byte) {
  std::string out;
  utf8::append(out, kByteDisplay[byte]);
  return out;
}

std::string bytes_display(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (const char c : raw) utf8::append(out, kByteDisplay[static_cast<unsigned char>(c)]);
  return out;
}

void BpeSegmenter::Model::derive() {
  const std::size_t size = vocab.size();
  const auto check_id = [&](TokenId id, const char* what) {
    if (id >= size) throw Error(std::string("bpe model: ") + what + " id out of range");
  };
  if (size == 0) throw Error("bpe model: empty vocabulary");
  if (units != Units::kChars && units != Units::kBytes) throw Error("bpe model: bad units");
  if (tie_break != TieBreak::kFirstSeen && tie_break != TieBreak::kSmallerIds)
    throw Error("bpe model: bad tie-break rule");
  if (!(dropout >= 0.0 && dropout <= 1.0)) throw Error("bpe model: dropout outside [0, 1]");

  std::vector<std::uint8_t> role(size, 0);  // 1 base, 2 fallback, 3 merge result
  ascii.fill(kNone);
  byte_ids.fill(kNone);
  other_chars.clear();
  if (units == Units::kBytes) {
    if (base_ids.size() != 256 || !fallback_ids.empty() || byte_fallback)
      throw Error("bpe model: a byte-level model needs exactly 256 byte tokens");
    for (unsigned b = 0; b < 256; ++b) {
      check_id(base_ids[b], "byte");
      if (vocab.piece(base_ids[b]) != std::string(1, static_cast<char>(b)))
        throw Error("bpe model: byte token " + std::to_string(b) + " has the wrong piece");
      byte_ids[b] = base_ids[b];
      role[base_ids[b]] = 1;
    }
  } else {
    for (const TokenId id : base_ids) {
      check_id(id, "character");
      const std::string& piece = vocab.piece(id);
      if (piece.empty() || utf8::find_invalid(piece) ||
          utf8::sequence_length(piece, 0) != piece.size())
        throw Error("bpe model: base piece of id " + std::to_string(id) + " is not one character");
      const char32_t cp = utf8::decode_at(piece, 0);
      if (char_id(cp) != kNone) throw Error("bpe model: a character is listed twice");
      if (cp < 128)
        ascii[cp] = id;
      else
        other_chars.emplace(cp, id);
      role[id] = 1;
    }
    if (byte_fallback != !fallback_ids.empty() || (byte_fallback && fallback_ids.size() != 256))
      throw Error("bpe model: byte fallback needs exactly 256 byte tokens");
    for (unsigned b = 0; b < fallback_ids.size(); ++b) {
      check_id(fallback_ids[b], "byte fallback");
      if (vocab.piece(fallback_ids[b]) != byte_fallback_piece(b))
        throw Error("bpe model: byte fallback token " + std::to_string(b) + " has the wrong piece");
      byte_ids[b] = fallback_ids[b];
      if (role[fallback_ids[b]] == 0) role[fallback_ids[b]] = 2;
    }
  }
  ranks.reset(merges.size());
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const MergeRule& m = merges[r];
    check_id(m.left, "merge");
    check_id(m.right, "merge");
    check_id(m.result, "merge");
    if (role[m.result] != 0 || vocab.piece(m.result) != vocab.piece(m.left) + vocab.piece(m.right))
      throw Error("bpe model: merge " + std::to_string(r) + " does not build its result piece");
    role[m.result] = 3;
    bool inserted = false;
    ranks.insert(pack_pair(m.left, m.right), static_cast<std::uint32_t>(r), inserted);
    if (!inserted) throw Error("bpe model: merge " + std::to_string(r) + " repeats a pair");
  }
  unknown = vocab.unknown_id();
  surfaces.assign(size, std::string());
  for (TokenId id = 0; id < size; ++id) {
    if (role[id] == 1 || role[id] == 3) {
      surfaces[id] = vocab.piece(id);
    } else if (role[id] == 2) {
      for (unsigned b = 0; b < 256; ++b)
        if (fallback_ids[b] == id) surfaces[id] = std::string(1, static_cast<char>(b));
    } else if (unknown && id == *unknown) {
      surfaces[id] = kUnknownSurface;
    }  // other special tokens have no surface text
  }
  serial = new_model_identity();
}

BpeSegmenter::BpeSegmenter() : model_(std::make_unique<Model>()) {
  model_->serial = new_model_identity();
  model_->ascii.fill(kNone);
  model_->byte_ids.fill(kNone);
}

BpeSegmenter::~BpeSegmenter() = default;

std::string BpeSegmenter::decode(std::span<const TokenId> ids) const {
  const Model& m = *model_;
  std::size_t bytes = 0;
  for (const TokenId id : ids) {
    if (id >= m.surfaces.size())
      throw Error("bpe: token id " + std::to_string(id) + " out of range");
    bytes += m.surfaces[id].size();
  }
  std::string text;
  text.reserve(bytes);
  for (const TokenId id : ids) text += m.surfaces[id];
  return text;
}

const Vocabulary& BpeSegmenter::vocabulary() const {
  return model_->vocab;
}

std::string BpeSegmenter::display_piece(TokenId id) const {
  const std::string& piece = model_->vocab.piece(id);
  if (model_->units != Units::kBytes || model_->vocab.is_special(id)) return piece;
  return bytes_display(piece);
}

void BpeSegmenter::Model::save(PayloadOArchive& ar, unsigned /*version*/) const {
  const auto units_code = static_cast<std::uint8_t>(units);
  const auto tie_break_code = static_cast<std::uint8_t>(tie_break);
  std::vector<std::uint32_t> merge_ids;
  merge_ids.reserve(merges.size() * 3);
  for (const MergeRule& r : merges) merge_ids.insert(merge_ids.end(), {r.left, r.right, r.result});
  using boost::serialization::make_nvp;
  ar << make_nvp("units", units_code) << BOOST_SERIALIZATION_NVP(byte_fallback)
     << make_nvp("tie_break", tie_break_code) << BOOST_SERIALIZATION_NVP(dropout)
     << BOOST_SERIALIZATION_NVP(vocab) << make_nvp("merges", merge_ids)
     << BOOST_SERIALIZATION_NVP(base_ids) << BOOST_SERIALIZATION_NVP(fallback_ids);
}

void BpeSegmenter::Model::load(PayloadIArchive& ar, unsigned /*version*/) {
  std::uint8_t units_code = 0;
  std::uint8_t tie_break_code = 0;
  std::vector<std::uint32_t> merge_ids;
  using boost::serialization::make_nvp;
  ar >> make_nvp("units", units_code) >> BOOST_SERIALIZATION_NVP(byte_fallback) >>
      make_nvp("tie_break", tie_break_code) >> BOOST_SERIALIZATION_NVP(dropout) >>
      BOOST_SERIALIZATION_NVP(vocab) >> make_nvp("merges", merge_ids) >>
      BOOST_SERIALIZATION_NVP(base_ids) >> BOOST_SERIALIZATION_NVP(fallback_ids);
  if (units_code > 1 || tie_break_code > 1) ar.fail("bad settings");
  if (!(dropout >= 0.0 && dropout <= 1.0)) ar.fail("bad dropout");
  if (merge_ids.size() % 3 != 0) ar.fail("truncated merge list");
  units = static_cast<Units>(units_code);
  tie_break = static_cast<TieBreak>(tie_break_code);
  merges.clear();
  for (std::size_t k = 0; k < merge_ids.size(); k += 3)
    merges.push_back({merge_ids[k], merge_ids[k + 1], merge_ids[k + 2]});
}

void BpeSegmenter::save(std::ostream& out) const {
  PayloadOArchive ar(out, "bpe", kFormatVersion);
  ar << boost::serialization::make_nvp("model", *model_);
}

void BpeSegmenter::load(std::istream& in) {
  PayloadIArchive ar(in, "bpe", kFormatVersion);
  auto model = std::make_unique<Model>();
  ar >> boost::serialization::make_nvp("model", *model);
  ar.finish();
  model->derive();
  model_ = std::move(model);
}

const std::vector<MergeRule>& BpeSegmenter::merges() const noexcept {
  return model_->merges;
}
Units BpeSegmenter::units() const noexcept {
  return model_->units;
}
bool BpeSegmenter::byte_fallback() const noexcept {
  return model_->byte_fallback;
}
TieBreak BpeSegmenter::tie_break() const noexcept {
  return model_->tie_break;
}
double BpeSegmenter::default_dropout() const noexcept {
  return model_->dropout;
}

void BpeSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat) throw Error("bpe: cannot export format '" + format + "'");
  ModelDescription m = describe_vocabulary(ModelKind::bpe, model_->vocab);
  m.byte_fallback = model_->byte_fallback;
  m.byte_level = model_->units == Units::kBytes;
  m.dropout = model_->dropout;
  for (const MergeRule& rule : model_->merges) m.merges.emplace_back(rule.left, rule.right);
  write_model_description(out, m);
}

}  // namespace tokenlab::bpe
