// JSON text as serde_json's to_string_pretty writes it (what HF tokenizers'
// save(path, pretty=true) produces): two-space indent, ": " after keys, empty
// containers as {} and [], only '"', '\\' and control characters escaped
// (\b \t \n \f \r, others as lowercase \u00xx), no newline at the end, floats
// in ryu's shortest form ("1.0", "0.001234", "1e-7"). Writing a document HF
// wrote gives back the same bytes, which is what lets train --like promise the
// file HF's trainer writes, not only the same content.
#pragma once
#include <rapidjson/document.h>

#include <string>

namespace tokenlab::hf {

/// value as serde_json's pretty printer writes it (object members in their order).
std::string serde_pretty(const rapidjson::Value& value);

/// A JSON string literal as serde_json escapes it, quotes included.
void append_serde_string(std::string& out, std::string_view text);

/// A double as serde_json (ryu) writes it.
std::string serde_float(double value);

}  // namespace tokenlab::hf
