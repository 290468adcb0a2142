#include "tokenlab/vocabulary.hpp"

#include "tokenlab/error.hpp"

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

void Vocabulary::throw_malformed(const char* what) {
  throw Error(std::string("malformed vocabulary in model payload: implausible ") + what);
}

void Vocabulary::rebuild(std::vector<std::string> pieces, std::size_t special_count,
                         std::optional<TokenId> unknown) {
  if (special_count > pieces.size()) throw Error("malformed vocabulary: more specials than pieces");
  if (unknown && *unknown >= special_count) throw Error("malformed vocabulary: bad unknown id");
  clear();
  ids_.reserve(pieces.size());
  for (auto& p : pieces) add(std::move(p));
  special_count_ = special_count;
  unknown_id_ = unknown;
}

}  // namespace tokenlab
