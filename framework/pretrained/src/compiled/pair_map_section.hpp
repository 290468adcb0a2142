// File: compiled/pair_map_section.hpp (private to tokenlab_pretrained)
// A PairMap's slots as one section of a compiled-model entry, read back as a
// PairMap::View in the entry's mapping (whole-line BPE's merge table, the
// merge cuts' pairs): nothing is inserted again or copied.
//
//   save_pair_map(out, map.view());
//   tables.view = view_pair_map<decltype(map)>(in, "merge table");
//   tables.mapping = in.mapping();   // what keeps the view's bytes alive
#pragma once

#include <cstdint>
#include <string_view>

#include "compiled/compiled_file.hpp"

namespace tokenlab::compiled {

/// Writes the slots view looks up in (out views them until its commit).
template <class View>
void save_pair_map(Writer& out, const View& view) {
  out.value(static_cast<std::uint64_t>(view.capacity()));
  out.value(static_cast<std::uint64_t>(view.size()));
  out.bytes(view.slot_data(), view.capacity() * view.slot_bytes());
}

/// The view of the slots save_pair_map wrote, valid while in.mapping() is
/// held. Throws Stale(what) when they would not make a table whose probes all
/// end (PairMap::View::of).
template <class Map>
typename Map::View view_pair_map(Reader& in, const char* what) {
  const auto capacity = in.value<std::uint64_t>();
  const auto size = in.value<std::uint64_t>();
  constexpr std::size_t kSlot = Map::slot_bytes();
  if (capacity > (std::uint64_t{1} << 36) / kSlot) throw Stale(what);
  in.expect(capacity, kSlot);
  const std::string_view slots = in.view(capacity * kSlot);
  const auto view = Map::View::of(slots.data(), capacity, size);
  if (!view) throw Stale(what);
  return *view;
}

}  // namespace tokenlab::compiled
