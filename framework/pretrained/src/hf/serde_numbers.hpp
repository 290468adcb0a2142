// Internal: JSON numbers as HF tokenizers reads them (serde_json's default
// parser, which is not correctly rounded).
#pragma once

#include <string>
#include <string_view>

namespace tokenlab::detail {

/// The double HF reads from the shortest round-trip digits of value (what HF
/// and tokenlab's export write); see serde_numbers.cpp.
double as_serde_json_reads(double value);

/// The double serde_json gives for a JSON number's digits, as written in a file.
double serde_json_parse(std::string_view digits);

/// Digits that serde_json reads as exactly score: the shortest round-trip ones
/// when serde reads those back, else 17 to 19 significant digits (the shortest
/// again if none of those works). For scores written to tokenizer.json, so that
/// HF's Viterbi adds the very doubles tokenlab adds.
std::string serde_exact_digits(double score);

}  // namespace tokenlab::detail
