#include "tokenlab/vocabulary.hpp"

#include <limits>

#include "tokenlab/error.hpp"
#include "tokenlab/payload.hpp"

namespace tokenlab {

TokenId Vocabulary::add_special(std::string piece) {
  if (special_count_ != pieces_.size())
    throw Error("special token '" + piece + "' added after ordinary pieces");
  const TokenId id = add(std::move(piece));
  ++special_count_;
  return id;
}

TokenId Vocabulary::add(std::string piece) {
  if (ids_.find(piece) != ids_.end()) throw Error("duplicate vocabulary piece '" + piece + "'");
  const auto id = static_cast<TokenId>(pieces_.size());
  ids_.emplace(piece, id);
  pieces_.push_back(std::move(piece));
  return id;
}

TokenId Vocabulary::add_or_find(std::string piece) {
  if (auto it = ids_.find(piece); it != ids_.end()) return it->second;
  return add(std::move(piece));
}

std::optional<TokenId> Vocabulary::find(std::string_view piece) const noexcept {
  if (auto it = ids_.find(piece); it != ids_.end()) return it->second;
  return std::nullopt;
}

void Vocabulary::set_unknown(TokenId id) {
  if (id >= special_count_) throw Error("the unknown token must be a special token");
  unknown_id_ = id;
}

void Vocabulary::clear() {
  pieces_.clear();
  ids_.clear();
  special_count_ = 0;
  unknown_id_.reset();
}

void Vocabulary::save(PayloadOArchive& ar, unsigned /*version*/) const {
  const std::uint64_t special_count = special_count_;
  const bool has_unknown = unknown_id_.has_value();
  const TokenId unknown_id = unknown_id_.value_or(0);
  ar << boost::serialization::make_nvp("pieces", pieces_) << BOOST_SERIALIZATION_NVP(special_count)
     << BOOST_SERIALIZATION_NVP(has_unknown) << BOOST_SERIALIZATION_NVP(unknown_id);
}

void Vocabulary::load(PayloadIArchive& ar, unsigned /*version*/) {
  std::vector<std::string> pieces;
  std::uint64_t special_count = 0;
  bool has_unknown = false;
  TokenId unknown_id = 0;
  ar >> boost::serialization::make_nvp("pieces", pieces) >>
      BOOST_SERIALIZATION_NVP(special_count) >> BOOST_SERIALIZATION_NVP(has_unknown) >>
      BOOST_SERIALIZATION_NVP(unknown_id);
  if (pieces.size() > std::numeric_limits<TokenId>::max())
    ar.fail(std::to_string(pieces.size()) + " pieces do not fit 32-bit ids");
  try {
    rebuild(std::move(pieces), static_cast<std::size_t>(special_count),
            has_unknown ? std::optional<TokenId>(unknown_id) : std::nullopt);
  } catch (const Error& e) {
    ar.fail(e.what());
  }
}

void Vocabulary::rebuild(std::vector<std::string> pieces, std::size_t special_count,
                         std::optional<TokenId> unknown) {
  if (special_count > pieces.size()) throw Error("more special tokens than pieces");
  if (unknown && *unknown >= special_count)
    throw Error("the unknown token id " + std::to_string(*unknown) + " is not a special token");
  clear();
  ids_.reserve(pieces.size());
  for (auto& p : pieces) add(std::move(p));
  special_count_ = special_count;
  unknown_id_ = unknown;
}

}  // namespace tokenlab
