#include "tokenlab/pretrained/token_table.hpp"

#include "tokenlab/error.hpp"

namespace tokenlab {

void TokenTable::reserve(std::size_t n) {
  tokens_.reserve(n);
  present_.reserve(n);
  ids_.reserve(n);
}

void TokenTable::insert(TokenId id, std::string token, const std::string& where) {
  if (id > kMaxId)
    throw Error(where + ": id " + std::to_string(id) + " is larger than tokenlab accepts (" +
                std::to_string(kMaxId) + ")");
  if (const auto it = ids_.find(token); it != ids_.end()) {
    if (it->second == id) return;
    throw Error(where + ": token \"" + token + "\" has two ids, " + std::to_string(it->second) +
                " and " + std::to_string(id));
  }
  if (id < present_.size() && present_[id])
    throw Error(where + ": id " + std::to_string(id) + " is given to two tokens, \"" +
                tokens_[id] + "\" and \"" + token + "\"");
  if (id >= tokens_.size()) {
    tokens_.resize(id + 1);
    present_.resize(id + 1, false);
  }
  present_[id] = true;
  ids_.emplace(token, id);
  tokens_[id] = std::move(token);
}

std::optional<TokenId> TokenTable::find(std::string_view token) const noexcept {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

const std::string* TokenTable::token(TokenId id) const noexcept {
  if (id >= present_.size() || !present_[id]) return nullptr;
  return &tokens_[id];
}

}  // namespace tokenlab
