// File: utf8.hpp
// Minimal, fast UTF-8 helpers used in hot loops (no ICU calls).
//
//   for (std::size_t i = 0; i < s.size();) { auto len = utf8::sequence_length(s, i); ... i += len;
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab::utf8 {

/// Length in bytes of the well-formed sequence starting at s[pos], or 0 if the
/// bytes there are not well-formed UTF-8 (overlong, surrogate, truncated...).
TOKENLAB_API std::size_t sequence_length(std::string_view s, std::size_t pos) noexcept;

/// Byte offset of the first ill-formed sequence, or nullopt if s is valid UTF-8.
TOKENLAB_API std::optional<std::size_t> find_invalid(std::string_view s) noexcept;

/// s with every ill-formed sequence replaced by U+FFFD (maximal subparts, as ICU does).
TOKENLAB_API std::string replace_invalid(std::string_view s);

/// Decodes the valid sequence at s[pos]; pos must start a well-formed sequence.
TOKENLAB_API char32_t decode_at(std::string_view s, std::size_t pos) noexcept;

/// Appends the UTF-8 encoding of a code point.
TOKENLAB_API void append(std::string& out, char32_t code_point);

/// Number of code points in valid UTF-8 (counts lead bytes).
TOKENLAB_API std::size_t count_code_points(std::string_view s) noexcept;

/// Splits valid UTF-8 into one string_view per code point.
TOKENLAB_API std::vector<std::string_view> split_code_points(std::string_view s);

}  // namespace tokenlab::utf8
