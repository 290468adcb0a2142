#include "tokenlab/unicode_version.hpp"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace tokenlab {
namespace {

constexpr UnicodeChange kChanges[] = {
#include "unicode_16_changes.inc"
};

// The row holding c, or nullptr. Everything below the first row (all of ASCII,
// Latin-1 and most of the BMP's scripts) returns at the first comparison.
const UnicodeChange* change_of(char32_t c) noexcept {
  if (c < kChanges[0].first) return nullptr;
  const auto* end = std::end(kChanges);
  const auto* row =
      std::upper_bound(std::begin(kChanges), end, c,
                       [](char32_t cp, const UnicodeChange& r) { return cp < r.first; });
  --row;  // the last row starting at or before c
  return c <= row->last ? row : nullptr;
}

}  // namespace

std::string_view describe(UnicodeVersion version) {
  return version == UnicodeVersion::v16_0 ? "Unicode 16.0"
                                          : "ICU " U_ICU_VERSION " (Unicode " U_UNICODE_VERSION ")";
}

std::int8_t general_category(char32_t c, UnicodeVersion version) noexcept {
  const auto icu = static_cast<std::int8_t>(u_charType(static_cast<UChar32>(c)));
  if (version == UnicodeVersion::library) return icu;
  const UnicodeChange* row = change_of(c);
  // An ICU that already has the 16.0 value (or any other) is left alone.
  return row != nullptr && row->category_before == icu ? row->category_after : icu;
}

std::uint32_t general_category_mask(char32_t c, UnicodeVersion version) noexcept {
  return U_MASK(general_category(c, version));
}

bool is_alphabetic(char32_t c, UnicodeVersion version) noexcept {
  const bool icu = u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC) != 0;
  if (version == UnicodeVersion::library) return icu;
  const UnicodeChange* row = change_of(c);
  return row != nullptr && row->alphabetic_before == icu ? row->alphabetic_after : icu;
}

const UnicodeChange* unicode_16_changes(std::size_t& count) noexcept {
  count = std::size(kChanges);
  return kChanges;
}

}  // namespace tokenlab
