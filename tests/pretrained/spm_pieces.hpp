// The pieces of a SentencePiece .model (ModelProto field 1), read straight from
// the protobuf wire format: piece (1), score (2, float), type (3, default
// NORMAL = 1). For tests and the training check, which compare what tokenlab
// trains with what spm_train writes; other fields are skipped.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tokenlab::test {

struct SpmPiece {
  std::string piece;
  float score = 0.0f;
  int type = 1;
  friend bool operator==(const SpmPiece&, const SpmPiece&) = default;
};

namespace spm_wire {
inline std::uint64_t varint(std::string_view& s) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (s.empty()) throw std::runtime_error("truncated varint");
    const auto b = static_cast<unsigned char>(s.front());
    s.remove_prefix(1);
    v |= std::uint64_t{b & 0x7Fu} << shift;
    if (b < 0x80) return v;
  }
  throw std::runtime_error("bad varint");
}
// Reads one field: its number and, for length-delimited ones, the bytes.
inline int field(std::string_view& s, std::string_view& bytes, std::uint64_t& value) {
  const std::uint64_t key = varint(s);
  switch (key & 7) {
    case 0:
      value = varint(s);
      break;
    case 1:
      s.remove_prefix(8);
      break;
    case 2: {
      const std::uint64_t n = varint(s);
      if (n > s.size()) throw std::runtime_error("truncated field");
      bytes = s.substr(0, n);
      s.remove_prefix(n);
      break;
    }
    case 5:
      if (s.size() < 4) throw std::runtime_error("truncated fixed32");
      std::memcpy(&value, s.data(), 4);  // little-endian host
      s.remove_prefix(4);
      break;
    default:
      throw std::runtime_error("unsupported wire type");
  }
  return static_cast<int>(key >> 3);
}
}  // namespace spm_wire

inline std::vector<SpmPiece> spm_pieces(std::string_view model) {
  std::vector<SpmPiece> pieces;
  while (!model.empty()) {
    std::string_view bytes;
    std::uint64_t value = 0;
    if (spm_wire::field(model, bytes, value) != 1) continue;
    SpmPiece p;
    while (!bytes.empty()) {
      std::string_view inner;
      std::uint64_t v = 0;
      switch (spm_wire::field(bytes, inner, v)) {
        case 1:
          p.piece = std::string(inner);
          break;
        case 2: {
          const auto bits = static_cast<std::uint32_t>(v);
          std::memcpy(&p.score, &bits, 4);
          break;
        }
        case 3:
          p.type = static_cast<int>(v);
          break;
        default:
          break;
      }
    }
    pieces.push_back(std::move(p));
  }
  return pieces;
}

}  // namespace tokenlab::test
