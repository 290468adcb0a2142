// File: commands/id_text.hpp
// Token ids as the decimal text `tokenlab encode` writes: "15339 1917\n".
// Each id below the vocabulary's size is looked up in a table of its digits,
// made once (8 bytes an id: up to 7 digits and the space after them), and
// copied as one 8-byte store; its length is worked out from the id by
// comparisons (no branch), so the table is 8 bytes an id (1.6 MB for o200k,
// which stays in the core's cache; with the length beside it, padded to 16
// bytes, it did not); larger ids (none in a valid encoding, but the
// caller checks that after) go through std::to_chars. std::to_chars on every id
// branched on the number of digits, which varies from id to id: with the fast
// encoders that was a tenth of a whole `tokenlab encode` run.
//
//   IdText text(vocabulary_size);
//   text.append_line(ids, out);   // out += "15339 1917\n"
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tokenlab/types.hpp"

namespace tokenlab::cli {

class IdText {
 public:
  /// Tables the digits of ids [0, min(ids, 10^7)).
  explicit IdText(std::size_t ids) {
    constexpr std::size_t kTabled = 10'000'000;  // 7 digits and a space in 8 bytes
    table_.resize(ids < kTabled ? ids : kTabled);
    // A decimal counter, not std::to_chars on each id (2% of encoding 2 MB
    // with o200k): the digits, then spaces.
    char digits[8] = {'0', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    std::size_t length = 1;
    for (std::size_t id = 0; id < table_.size(); ++id) {
      std::memcpy(&table_[id], digits, 8);
      std::size_t k = length;
      while (k > 0 && digits[k - 1] == '9') digits[--k] = '0';
      if (k > 0) {
        ++digits[k - 1];
      } else {  // 9...9 + 1: one more digit (at most 8: the last id tabled is 9,999,999)
        digits[0] = '1';
        digits[length++] = '0';
      }
    }
  }

  /// Appends the ids separated by single spaces, then a newline.
  void append_line(const std::vector<TokenId>& ids, std::string& out) const {
    // Written in a scratch buffer that only grows, then appended: resizing out
    // for the worst case zero-filled 11 bytes an id, twice what is written.
    // Room for 8-byte stores, and for ten digits and a space past the table.
    thread_local std::string scratch;
    if (scratch.size() < ids.size() * 11 + 8) scratch.resize(ids.size() * 11 + 8);
    char* const first = scratch.data();
    char* p = first;
    for (const TokenId id : ids) {
      if (id < table_.size()) {
        std::memcpy(p, &table_[id], 8);
        p += length_with_space(id);
      } else {
        p = std::to_chars(p, p + 10, id).ptr;
        *p++ = ' ';
      }
    }
    if (!ids.empty()) --p;  // the last space becomes the newline
    *p++ = '\n';
    out.append(first, static_cast<std::size_t>(p - first));
  }

 private:
  // The digits of id (below 10^7) and the space after them.
  static std::size_t length_with_space(TokenId id) noexcept {
    return 2 + std::size_t{id >= 10} + std::size_t{id >= 100} + std::size_t{id >= 1000} +
           std::size_t{id >= 10000} + std::size_t{id >= 100000} + std::size_t{id >= 1000000};
  }
  std::vector<std::uint64_t> table_;  // the digits, then spaces
};

}  // namespace tokenlab::cli
