// File: json_nesting.hpp
// How deeply a JSON text nests, found by a linear scan before any parser sees it.
//
// RapidJSON's DOM parser recurses once per `[` or `{`, and so do the readers that
// walk the document: 120,000 `[` in a 240 KB request body or a tokenizer.json
// overflow the stack (SIGSEGV) long before any size limit applies. Every JSON
// reader in tokenlab (tokenizer.json, tiktoken JSON, the lab's request bodies)
// calls check_json_nesting first, so that such a text is refused with a message
// naming where the limit was passed, and nothing downstream recurses deeper than
// the limit.
//
//   check_json_nesting(text, kMaxJsonNesting, "tokenizer.json");
//   // throws Error("tokenizer.json: JSON nests deeper than 128 levels (byte 1234)")
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tokenlab/error.hpp"
#include "tokenlab/export.hpp"

namespace tokenlab {

/// Deepest nesting tokenlab's JSON readers accept. Real files nest far less: the
/// tokenizer.json of GPT-4o, Llama 3, Mistral 7B, Qwen 3, DeepSeek V3 and Gemma 3
/// all nest 5 levels, npm tiktoken's encoder JSON 2, the lab's requests 2.
inline constexpr std::size_t kMaxJsonNesting = 128;

/// The byte offset of the first `[` or `{` that opens level max_depth + 1, or
/// std::string_view::npos when the text never nests deeper than max_depth.
/// Brackets inside strings (with their escapes) do not count. Does not validate
/// the JSON: a malformed text is the parser's to report.
[[nodiscard]] TOKENLAB_API std::size_t find_json_nesting_over(std::string_view text,
                                                              std::size_t max_depth) noexcept;

/// Throws Error("<source>: JSON nests deeper than <max_depth> levels (at byte N)")
/// when find_json_nesting_over finds a place.
TOKENLAB_API void check_json_nesting(std::string_view text, std::size_t max_depth,
                                     const std::string& source);

/// That Error, for a reader that counts the levels as it parses (the
/// tokenizer.json reader's SAX handler) instead of scanning the text first:
/// `at` is the byte offset of the `[` or `{` that opened level max_depth + 1.
[[nodiscard]] TOKENLAB_API Error json_nesting_error(const std::string& source,
                                                    std::size_t max_depth, std::size_t at);

}  // namespace tokenlab
