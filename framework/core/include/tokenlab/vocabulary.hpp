// File: vocabulary.hpp
// Dense id <-> piece mapping shared by every segmenter.
//
//   Vocabulary v;
//   v.add_special("<unk>");          // id 0
//   TokenId a = v.add("a");          // id 1
//   v.find("a") == a; v.piece(a) == "a";
//
// Contract: ids are dense from 0; special tokens are added before any ordinary
// piece; a piece appears once. Lookups both ways are O(1) and allocation-free
// (heterogeneous lookup by string_view). Not thread-safe for writers; any
// number of concurrent readers is fine.
#pragma once

#include <boost/serialization/access.hpp>
#include <boost/serialization/split_member.hpp>
#include <boost/serialization/version.hpp>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

class PayloadIArchive;
class PayloadOArchive;

/// Transparent hash so unordered containers can be probed with a string_view.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

class TOKENLAB_API Vocabulary {
 public:
  /// Adds a special token; throws Error if an ordinary piece was added before or
  /// the token already exists.
  TokenId add_special(std::string piece);
  /// Adds an ordinary piece and returns its id; throws Error on a duplicate.
  TokenId add(std::string piece);
  /// Adds the piece unless present; returns its id either way.
  TokenId add_or_find(std::string piece);

  [[nodiscard]] std::optional<TokenId> find(std::string_view piece) const noexcept;
  [[nodiscard]] bool contains(std::string_view piece) const noexcept {
    return find(piece).has_value();
  }
  /// The piece of an id; id must be < size().
  [[nodiscard]] const std::string& piece(TokenId id) const { return pieces_.at(id); }
  [[nodiscard]] std::size_t size() const noexcept { return pieces_.size(); }
  [[nodiscard]] bool empty() const noexcept { return pieces_.empty(); }
  [[nodiscard]] std::size_t special_count() const noexcept { return special_count_; }
  [[nodiscard]] bool is_special(TokenId id) const noexcept { return id < special_count_; }
  [[nodiscard]] const std::vector<std::string>& pieces() const noexcept { return pieces_; }

  /// The unknown token, if the segmenter can emit one.
  [[nodiscard]] std::optional<TokenId> unknown_id() const noexcept { return unknown_id_; }
  /// Marks an existing special token as the unknown token.
  void set_unknown(TokenId id);

  void clear();

  // Boost.Serialization, through the payload archives only (payload.hpp): a stock
  // binary archive would allocate whatever size a corrupt payload claims. load()
  // checks the pieces (no duplicates) and the special count and unknown id (in
  // range) before anything is replaced. The class version is below the class.
  BOOST_SERIALIZATION_SPLIT_MEMBER()

 private:
  friend class boost::serialization::access;
  void save(PayloadOArchive& ar, unsigned version) const;
  void load(PayloadIArchive& ar, unsigned version);
  // Validates and indexes loaded data; throws Error on duplicates or bad ids.
  void rebuild(std::vector<std::string> pieces, std::size_t special_count,
               std::optional<TokenId> unknown);

  std::vector<std::string> pieces_;
  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> ids_;
  std::size_t special_count_ = 0;
  std::optional<TokenId> unknown_id_;
};

}  // namespace tokenlab

// Bump when the serialized fields change, and have load() read the older versions too.
BOOST_CLASS_VERSION(tokenlab::Vocabulary, 0)
