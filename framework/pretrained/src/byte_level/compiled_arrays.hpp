// File: byte_level/compiled_arrays.hpp (private to tokenlab_pretrained)
// A HugePageArray written to a compiled-model entry and read back into huge
// pages (compiled/compiled_file.hpp): the file's bytes go straight into the
// array, one copy, rather than through a buffer.
#pragma once

#include <cstdint>

#include "byte_level/huge_page_array.hpp"
#include "compiled/compiled_file.hpp"

namespace tokenlab::byte_level_detail {

template <class T>
void save_array(compiled::Writer& out, const HugePageArray<T>& array) {
  out.value(static_cast<std::uint64_t>(array.size()));
  out.bytes(array.data(), array.size() * sizeof(T));
}

/// Throws compiled::Stale when the entry does not hold the array it says.
template <class T>
HugePageArray<T> load_array(compiled::Reader& in) {
  const auto size = in.value<std::uint64_t>();
  if (size > (std::uint64_t{1} << 32) / sizeof(T)) throw compiled::Stale("array size");
  in.expect(size, sizeof(T));
  HugePageArray<T> array(size);
  in.read(array.data(), size * sizeof(T));
  return array;
}

}  // namespace tokenlab::byte_level_detail
