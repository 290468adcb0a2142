// JSON numbers typed without RapidJSON's full-precision code (json_numbers.hpp):
// the same event and value RapidJSON's full-precision parse gives wherever
// that parse is defined, and zero where it is not (all-zero digits past 22
// places, on which it calls __builtin_clzll(0)).
#include <catch2/catch.hpp>

#include <rapidjson/document.h>

#include <cmath>
#include <limits>
#include <string>

#include "json_numbers.hpp"
#include "pretrained_support.hpp"

namespace {

rapidjson::Document typed(const std::string& json) {
  rapidjson::Document d;
  REQUIRE_FALSE(tokenlab::json::parse_json(d, json).IsError());
  return d;
}

}  // namespace

TEST_CASE("numbers are typed and valued as RapidJSON's full-precision parse types them",
          "[pretrained][json]") {
  for (const std::string number : {"0",
                                   "-0",
                                   "1",
                                   "-1",
                                   "4294967295",
                                   "4294967296",
                                   "-2147483648",
                                   "-2147483649",
                                   "18446744073709551615",
                                   "18446744073709551616",
                                   "-9223372036854775808",
                                   "-9223372036854775809",
                                   "0.0",
                                   "-0.0",
                                   "1.5",
                                   "1e5",
                                   "1E+5",
                                   "2.5e-3",
                                   "-9.788626874800455",
                                   "0.1000000000000000055511151231257827",
                                   "123456789012345678901234",
                                   "1.7976931348623157e308",
                                   "4.9e-324",
                                   "2.2250738585072011e-308",
                                   "0.30000000000000004440892098500626161694962883"}) {
    CAPTURE(number);
    rapidjson::Document full;
    full.Parse<rapidjson::kParseFullPrecisionFlag>(("[" + number + "]").c_str());
    REQUIRE_FALSE(full.HasParseError());
    const rapidjson::Document ours = typed("[" + number + "]");
    const rapidjson::Value& a = full[0];
    const rapidjson::Value& b = ours[0];
    CHECK(a.IsUint() == b.IsUint());
    CHECK(a.IsInt() == b.IsInt());
    CHECK(a.IsUint64() == b.IsUint64());
    CHECK(a.IsInt64() == b.IsInt64());
    CHECK(a.IsDouble() == b.IsDouble());
    CHECK(a == b);
    CHECK(std::signbit(a.GetDouble()) == std::signbit(b.GetDouble()));
  }
}

TEST_CASE("all-zero digits far past the point are zero, not undefined behaviour",
          "[pretrained][json]") {
  for (const std::string& number :
       {"0." + std::string(60, '0'), "-0." + std::string(40, '0'), std::string("0e23"),
        std::string("0.0e300"), std::string("0e-400"), "0." + std::string(30, '0') + "e-30"}) {
    CAPTURE(number);
    const rapidjson::Document d = typed("[" + number + "]");
    REQUIRE(d[0].IsDouble());
    CHECK(d[0].GetDouble() == 0.0);
    CHECK(std::signbit(d[0].GetDouble()) == (number.front() == '-'));
  }
  CHECK(typed("[9e308]")[0].GetDouble() == std::numeric_limits<double>::infinity());
  CHECK(typed("[1e-400]")[0].GetDouble() == 0.0);
  // A tokenizer.json with such numbers loads, or fails with an Error, as any other.
  const auto unigram = tokenlab::test::tokenizer_json(
      R"({"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.)" + std::string(40, '0') +
      R"(],["a",-1.5],["b",0e23]]}})");
  CHECK(unigram.encode("ab") == tokenlab::test::Ids{1, 2});
}
