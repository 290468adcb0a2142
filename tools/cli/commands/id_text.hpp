// File: commands/id_text.hpp
// Token ids as the decimal text `tokenlab encode` writes: "15339 1917\n".
// Each id below the vocabulary's size is looked up in a table of its digits,
// made once (8 bytes an id: up to 7 digits and the space after them), and
// copied as one 8-byte store; larger ids (none in a valid encoding, but the
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
    for (std::size_t id = 0; id < table_.size(); ++id) {
      char bytes[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
      const char* end = std::to_chars(bytes, bytes + 7, static_cast<TokenId>(id)).ptr;
      Entry& e = table_[id];
      std::memcpy(&e.bytes, bytes, 8);
      e.length = static_cast<std::uint8_t>(end - bytes + 1);  // the digits and a space
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
        const Entry& e = table_[id];
        std::memcpy(p, &e.bytes, 8);
        p += e.length;
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
  struct Entry {
    std::uint64_t bytes;  // the digits, then spaces
    std::uint8_t length;
  };
  std::vector<Entry> table_;
};

}  // namespace tokenlab::cli
