// OptionReader: validated algorithm options with helpful messages.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"

using tokenlab::Error;
using tokenlab::OptionReader;
using Values = std::map<std::string, std::string>;

namespace {

const OptionReader::Spec kSpec = {{"units", "chars|bytes (default chars)"},
                                  {"dropout", "0..1 (default 0)"},
                                  {"max_length", "1..64 (default 16)"},
                                  {"lowercase", "true|false (default false)"}};

std::string message_of(const Values& values, void (*use)(const OptionReader&)) {
  try {
    const OptionReader reader("bpe", values, kSpec);
    use(reader);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no Error was thrown");
  return {};
}

}  // namespace

TEST_CASE("an unknown key is refused with a message listing every valid key", "[options]") {
  const Values values{{"unitz", "bytes"}};
  const std::string message = message_of(values, [](const OptionReader&) {});
  CHECK_THAT(message, Catch::Contains("'unitz'"));
  CHECK_THAT(message, Catch::Contains("bpe"));
  for (const auto& [key, help] : kSpec) {
    CHECK_THAT(message, Catch::Contains(key));
    CHECK_THAT(message, Catch::Contains(help));
  }
  SECTION("a plugin without options says so") {
    CHECK_THROWS_WITH(OptionReader("word", values, {}), Catch::Contains("(none)"));
  }
}

TEST_CASE("valid values are read with their types and defaults", "[options]") {
  const Values values{
      {"units", "bytes"}, {"dropout", "0.25"}, {"max_length", "32"}, {"lowercase", "yes"}};
  const OptionReader reader("bpe", values, kSpec);
  CHECK(reader.has("units"));
  CHECK(reader.get_choice("units", {"chars", "bytes"}, "chars") == "bytes");
  CHECK(reader.get_double("dropout", 0.0, 0.0, 1.0) == 0.25);
  CHECK(reader.get_uint("max_length", 16, 1, 64) == 32);
  CHECK(reader.get_bool("lowercase", false));
  const Values none;
  const OptionReader defaults("bpe", none, kSpec);
  CHECK_FALSE(defaults.has("units"));
  CHECK(defaults.get_choice("units", {"chars", "bytes"}, "chars") == "chars");
  CHECK(defaults.get_uint("max_length", 16, 1, 64) == 16);
  CHECK(defaults.get_string("units", "fallback") == "fallback");
}

TEST_CASE("bad values are refused with the key, the value and what was expected", "[options]") {
  SECTION("a choice outside the list") {
    const std::string m = message_of({{"units", "words"}}, [](const OptionReader& r) {
      (void)r.get_choice("units", {"chars", "bytes"}, "chars");
    });
    CHECK_THAT(m, Catch::Contains("'words'") && Catch::Contains("units") &&
                      Catch::Contains("chars|bytes"));
  }
  SECTION("numbers that are not numbers, or out of range") {
    const std::string value = GENERATE(as<std::string>{}, "abc", "0.5x", "", "1.5", "-0.1", "nan");
    INFO("dropout=" << value);
    const std::string m = message_of({{"dropout", value}}, [](const OptionReader& r) {
      (void)r.get_double("dropout", 0.0, 0.0, 1.0);
    });
    CHECK_THAT(m, Catch::Contains("dropout") && Catch::Contains("[0, 1]"));
  }
  SECTION("integers that are negative, fractional, empty or out of range") {
    const std::string value = GENERATE(as<std::string>{}, "-1", "1.5", "", "0", "65", "12abc");
    INFO("max_length=" << value);
    const std::string m = message_of({{"max_length", value}}, [](const OptionReader& r) {
      (void)r.get_uint("max_length", 16, 1, 64);
    });
    CHECK_THAT(m, Catch::Contains("max_length") && Catch::Contains("[1, 64]"));
  }
  SECTION("booleans other than true/false/1/0/yes/no/on/off") {
    const std::string m = message_of({{"lowercase", "maybe"}}, [](const OptionReader& r) {
      (void)r.get_bool("lowercase", false);
    });
    CHECK_THAT(m, Catch::Contains("'maybe'") && Catch::Contains("true|false"));
  }
}
