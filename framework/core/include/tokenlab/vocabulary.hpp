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

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <cstdint>

#include "tokenlab/export.hpp"
#include "tokenlab/types.hpp"

namespace tokenlab {

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

  /// Longest piece a saved vocabulary may hold; load() rejects larger lengths
  /// before allocating, so a corrupt payload cannot request absurd memory.
  static constexpr std::uint64_t kMaxPieceBytes = std::uint64_t{1} << 26;

  // Boost.Serialization, for plugins that use Boost archives. Pieces are written as
  // explicit lengths plus raw bytes, not as Boost strings: Boost would allocate
  // whatever length a corrupt payload claims before reading. A Boost archive cannot
  // tell how many bytes remain, so each piece is bounded only by kMaxPieceBytes;
  // PayloadReader::vocabulary (payload.hpp) reads the same bytes and checks every
  // length against the bytes that remain, and is what built-in plugins use.
  template <class Archive>
  void save(Archive& ar, unsigned /*version*/) const {
    const std::uint64_t count = pieces_.size();
    ar << count;
    for (const auto& piece : pieces_) {
      const std::uint64_t length = piece.size();
      ar << length;
      ar.save_binary(piece.data(), piece.size());
    }
    const std::uint64_t specials = special_count_;
    ar << specials;
    const std::uint8_t has_unknown = unknown_id_.has_value() ? 1 : 0;  // not bool: see load()
    ar << has_unknown;
    const TokenId unknown = unknown_id_.value_or(0);
    ar << unknown;
  }
  template <class Archive>
  void load(Archive& ar, unsigned /*version*/) {
    std::uint64_t count = 0;
    ar >> count;
    if (count > 0xFFFFFFFFu) throw_malformed("vocabulary size");
    std::vector<std::string> pieces;
    for (std::uint64_t i = 0; i < count; ++i) {  // no reserve: the stream ends first on garbage
      std::uint64_t length = 0;
      ar >> length;
      if (length > kMaxPieceBytes) throw_malformed("piece length");
      std::string piece(length, '\0');
      ar.load_binary(piece.data(), length);
      pieces.push_back(std::move(piece));
    }
    std::uint64_t special_count = 0;
    // A byte, not a bool: loading any value but 0 or 1 into a bool is undefined.
    std::uint8_t has_unknown = 0;
    TokenId unknown = 0;
    ar >> special_count >> has_unknown >> unknown;
    if (has_unknown > 1) throw_malformed("unknown-token flag");
    rebuild(std::move(pieces), static_cast<std::size_t>(special_count),
            has_unknown != 0 ? std::optional<TokenId>(unknown) : std::nullopt);
  }
  template <class Archive>
  void serialize(Archive& ar, unsigned version) {
    if constexpr (Archive::is_saving::value)
      save(ar, version);
    else
      load(ar, version);
  }

 private:
  friend class PayloadReader;
  [[noreturn]] static void throw_malformed(const char* what);
  // Validates and indexes loaded data; throws Error on duplicates or bad ids.
  void rebuild(std::vector<std::string> pieces, std::size_t special_count,
               std::optional<TokenId> unknown);

  std::vector<std::string> pieces_;
  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> ids_;
  std::size_t special_count_ = 0;
  std::optional<TokenId> unknown_id_;
};

}  // namespace tokenlab
