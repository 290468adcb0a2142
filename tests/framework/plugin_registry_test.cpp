// Plugin loading and the conformance suite, run on every plugin the build made.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tokenlab/conformance.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"

using tokenlab::Error;
using tokenlab::PluginRegistry;
namespace fs = std::filesystem;

namespace {

const fs::path kPluginDir = TOKENLAB_TEST_PLUGIN_DIR;
const fs::path kBadPluginDir = TOKENLAB_BAD_PLUGIN_DIR;

std::vector<std::string> built_plugins() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kPluginDir, ec))
    if (entry.path().extension() == ".so") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string load_error(PluginRegistry& registry, const fs::path& file) {
  try {
    registry.load_file(file);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("load_file accepted " << file);
  return {};
}

}  // namespace

TEST_CASE("the built-in plugins load from the plugin directory like any other", "[plugins]") {
  PluginRegistry registry;
  registry.load_search_path({kPluginDir});
  INFO("load errors: " << registry.load_errors().size());
  for (const auto& e : registry.load_errors()) WARN(e);
  REQUIRE(registry.has("character"));
  REQUIRE(registry.has("word"));
  CHECK(registry.info("character").file == fs::absolute(kPluginDir / "character.so"));
  CHECK_FALSE(registry.info("word").version.empty());
  CHECK_FALSE(registry.info("word").description.empty());
  const auto plugins = registry.plugins();
  CHECK(std::is_sorted(plugins.begin(), plugins.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
  const auto segmenter = registry.create("character");
  REQUIRE(segmenter);
  CHECK(segmenter->name() == "character");

  SECTION("an unknown name is an Error listing the available plugins") {
    CHECK_THROWS_WITH(registry.create("sentencepiece"), Catch::Contains("'sentencepiece'") &&
                                                            Catch::Contains("character") &&
                                                            Catch::Contains("word"));
  }
  SECTION("loading the same plugin twice fails the uniqueness check") {
    CHECK_THROWS_WITH(registry.load_file(kPluginDir / "word.so"),
                      Catch::Contains("uniqueness check failed"));
  }
  SECTION("an earlier directory wins and the later copy is skipped silently") {
    const auto errors_before = registry.load_errors().size();
    registry.load_search_path({kPluginDir});
    CHECK(registry.load_errors().size() == errors_before);
  }
}

TEST_CASE("broken plugin files are refused, naming the file and the failed check", "[plugins]") {
  PluginRegistry registry;
  SECTION("a shared library without the entry point") {
    const auto file = kBadPluginDir / "no_entry.so";
    const std::string message = load_error(registry, file);
    CHECK_THAT(message,
               Catch::Contains(file.string()) && Catch::Contains("entry point check failed"));
  }
  SECTION("a plugin built for another ABI version") {
    const auto file = kBadPluginDir / "wrong_abi.so";
    const std::string message = load_error(registry, file);
    CHECK_THAT(message,
               Catch::Contains(file.string()) && Catch::Contains("ABI version check failed"));
  }
  SECTION("a plugin whose name differs from its file name") {
    const auto file = kBadPluginDir / "misnamed.so";
    const std::string message = load_error(registry, file);
    CHECK_THAT(message, Catch::Contains(file.string()) && Catch::Contains("name check failed") &&
                            Catch::Contains("someone_else"));
  }
  SECTION("a file that is not a shared library at all") {
    tokenlab::test::TempDir dir;
    tokenlab::test::write_bytes(dir / "text.so", "this is a text file, not ELF");
    const std::string message = load_error(registry, dir / "text.so");
    CHECK_THAT(message,
               Catch::Contains((dir / "text.so").string()) && Catch::Contains("cannot load"));
  }
  SECTION("a missing file and a directory") {
    CHECK_THAT(load_error(registry, kBadPluginDir / "absent.so"),
               Catch::Contains("no such plugin file"));
    CHECK_THAT(load_error(registry, kBadPluginDir), Catch::Contains("directory"));
  }
  SECTION("a search path with broken plugins records them and still loads the good ones") {
    registry.load_search_path({kBadPluginDir, kPluginDir});
    CHECK(registry.has("character"));
    CHECK_FALSE(registry.has("wrong_abi"));
    const auto& errors = registry.load_errors();
    const auto mentions = [&](const std::string& what) {
      return std::any_of(errors.begin(), errors.end(),
                         [&](const std::string& e) { return e.find(what) != std::string::npos; });
    };
    CHECK(mentions("no_entry.so"));
    CHECK(mentions("wrong_abi.so"));
    CHECK(mentions("misnamed.so"));
  }
}

TEST_CASE("check_descriptor explains the first failed check", "[plugins]") {
  CHECK_THAT(tokenlab::check_descriptor(nullptr, "x"), Catch::Contains("null descriptor"));
}

TEST_CASE("every built plugin passes the conformance suite", "[plugins][conformance]") {
  const auto plugins = built_plugins();
  REQUIRE_FALSE(plugins.empty());
  const std::string file = GENERATE_COPY(from_range(plugins));
  PluginRegistry registry;
  const std::string name = registry.load_file(file).name;
  INFO("plugin " << name << " (" << file << ")");
  const auto results = tokenlab::run_conformance(registry, name);
  CHECK(results.size() >= 10);
  for (const auto& r : results) {
    INFO(r.check << ": " << r.detail);
    CHECK(r.passed);
  }
}
