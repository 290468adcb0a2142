// File: byte_level/compiled_arrays.hpp (private to tokenlab_pretrained)
// A HugePageArray written to a compiled-model entry, and read back as a view
// of the entry's read-only mapping (compiled/compiled_file.hpp): nothing is
// allocated, zeroed or copied. Copying GPT-4o's byte and merge tables (13 MB)
// into fresh huge pages was a tenth of its stamped load (the kernel zeroing
// the pages, then the copy), and encoding from the page cache's pages was no
// slower on English, Hindi, Japanese or Chinese (docs/performance.md,
// twenty-first round). The mapping is the page cache's, so processes loading
// the same entry share one copy of the tables.
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

/// The array save_array wrote, viewed in in's mapping (which the view keeps
/// alive): read-only, and like everything read before in.finish(), not to be
/// trusted until it returns. Throws compiled::Stale when the entry does not
/// hold the array it says.
template <class T>
HugePageArray<T> view_array(compiled::Reader& in) {
  const auto size = in.value<std::uint64_t>();
  if (size > (std::uint64_t{1} << 32) / sizeof(T)) throw compiled::Stale("array size");
  in.expect(size, sizeof(T));
  static_assert(alignof(T) <= 8);  // a section starts 8-byte aligned in the mapping
  const std::string_view bytes = in.view(size * sizeof(T));
  return HugePageArray<T>::view(reinterpret_cast<const T*>(bytes.data()), size, in.mapping());
}

}  // namespace tokenlab::byte_level_detail
