// JSON numbers read without RapidJSON's kParseFullPrecisionFlag code.
//
// That code (internal::StrtodDiyFp) calls __builtin_clzll(0), which is
// undefined, for a number whose digits are all zeros and whose exponent is
// beyond 22 ("0.000000000000000000000000", "0e23"): the fuzzer found it in a
// tokenizer.json. The readers parse with kParseNumbersAsStringsFlag instead
// (RapidJSON still checks the number's syntax and refuses the ones too big for
// a double), and number_event turns the text into the event RapidJSON would
// have given: Uint, Int, Uint64 or Int64 for an integer that fits, else Double,
// correctly rounded (std::from_chars, as the full-precision flag promised).
//
//   rapidjson::Document document;
//   const rapidjson::ParseResult ok = parse_json(document, text);   // a DOM, numbers typed
//   // or, in a SAX handler's RawNumber(s, n, copy):
//   return number_event(*this, std::string_view(s, n));
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <string_view>
#include <system_error>

namespace tokenlab::json {

/// Calls handler's Uint, Int, Uint64, Int64 or Double for the JSON number text
/// (already checked by RapidJSON), as RapidJSON's reader chooses among them.
template <class Handler>
bool number_event(Handler& handler, std::string_view text) {
  if (!text.empty() && text.size() <= 9) {  // the common case, a vocabulary's id
    std::uint32_t value = 0;
    bool all_digits = true;
    for (const char c : text) {
      const auto digit = static_cast<unsigned>(c - '0');
      all_digits = all_digits && digit <= 9;
      value = value * 10 + digit;
    }
    if (all_digits) return handler.Uint(value);
  }
  const bool minus = !text.empty() && text.front() == '-';
  const std::string_view digits = minus ? text.substr(1) : text;
  if (digits.find_first_of(".eE") == std::string_view::npos) {
    std::uint64_t u = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), u);
    if (error == std::errc() && end == digits.data() + digits.size()) {
      if (!minus)
        return u <= std::numeric_limits<std::uint32_t>::max()
                   ? handler.Uint(static_cast<unsigned>(u))
                   : handler.Uint64(u);
      if (u <= std::uint64_t{1} << 31)
        return handler.Int(static_cast<int>(-static_cast<std::int64_t>(u)));
      if (u <= std::uint64_t{1} << 63) return handler.Int64(static_cast<std::int64_t>(~u + 1));
    }
    // Beyond 64 bits: a double, as RapidJSON makes it.
  }
  double d = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (error == std::errc::result_out_of_range) {
    // Past a double's range (RapidJSON refuses exponents that are plainly too
    // big, not 9e308 or 1e-400): long double's wider range says which way.
    long double wide = 0;
    std::from_chars(text.data(), text.data() + text.size(), wide);
    d = static_cast<double>(wide);
  }
  return handler.Double(d);
}

/// A SAX handler that forwards to a Document, numbers typed by number_event.
class TypedNumbers {
 public:
  using Ch = char;
  explicit TypedNumbers(rapidjson::Document& document) : document_(document) {}
  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int i) { return document_.Int(i); }
  bool Uint(unsigned u) { return document_.Uint(u); }
  bool Int64(std::int64_t i) { return document_.Int64(i); }
  bool Uint64(std::uint64_t u) { return document_.Uint64(u); }
  bool Double(double d) { return document_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return number_event(*this, {s, n}); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return document_.String(s, n, copy);
  }
  bool StartObject() { return document_.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return document_.Key(s, n, copy); }
  bool EndObject(rapidjson::SizeType members) { return document_.EndObject(members); }
  bool StartArray() { return document_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return document_.EndArray(elements); }

 private:
  rapidjson::Document& document_;
};

/// Parses text into document (strings copied), numbers through number_event.
/// On an error the document is null and the result says what and where.
inline rapidjson::ParseResult parse_json(rapidjson::Document& document, std::string_view text) {
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  const auto generate = [&](rapidjson::Document& out) {
    TypedNumbers handler(out);
    rapidjson::MemoryStream bytes(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
    result = reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    return !result.IsError();
  };
  document.Populate(generate);
  return result;
}

}  // namespace tokenlab::json
