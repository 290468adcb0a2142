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

TEST_CASE("a truncated copy of a good plugin is refused before dlopen, naming the file",
          "[plugins][hostile]") {
  // A half-finished copy used to kill every command with SIGBUS inside dlopen.
  const std::string whole = tokenlab::test::read_bytes(kPluginDir / "character.so");
  REQUIRE(whole.size() > 4096);
  tokenlab::test::TempDir dir;
  const auto file = dir / "character.so";
  for (const std::size_t size : {std::size_t{3}, std::size_t{40}, std::size_t{100},
                                 std::size_t{4096}, whole.size() / 2, whole.size() - 1}) {
    INFO("truncated to " << size << " of " << whole.size() << " bytes");
    tokenlab::test::write_bytes(file, std::string_view(whole).substr(0, size));
    PluginRegistry registry;
    const std::string message = load_error(registry, file);
    CHECK_THAT(message, Catch::Contains(file.string()));
    if (size >= 64) CHECK_THAT(message, Catch::Contains("truncated"));
    CHECK_FALSE(registry.has("character"));
  }
  SECTION("the intact file still loads from the same place") {
    tokenlab::test::write_bytes(file, whole);
    PluginRegistry registry;
    CHECK(registry.load_file(file).name == "character");
  }
  SECTION("a truncated copy earlier on the search path does not hide the good one") {
    tokenlab::test::write_bytes(file, std::string_view(whole).substr(0, whole.size() / 2));
    PluginRegistry registry;
    registry.load_search_path({dir.path(), kPluginDir});
    REQUIRE(registry.load_errors().size() >= 1);
    CHECK_THAT(registry.load_errors().front(),
               Catch::Contains(file.string()) && Catch::Contains("truncated"));
    REQUIRE(registry.has("character"));
    CHECK(registry.info("character").file == fs::absolute(kPluginDir / "character.so"));
    CHECK(registry.create("character")->name() == "character");
  }
}

TEST_CASE("the toolchain fingerprint records sanitizer builds", "[plugins][hostile]") {
  const std::string fingerprint = TOKENLAB_TOOLCHAIN_FINGERPRINT;
#if defined(__SANITIZE_ADDRESS__)
  CHECK_THAT(fingerprint, Catch::Contains("+asan"));
#else
  CHECK_THAT(fingerprint, !Catch::Contains("+asan"));
#endif
#if defined(TOKENLAB_SANITIZE)
  CHECK_THAT(fingerprint, Catch::Contains("+sanitize"));
#else
  CHECK_THAT(fingerprint, !Catch::Contains("+sanitize"));
#endif
}

TEST_CASE("plugins from another toolchain, release or sanitizer build are refused",
          "[plugins][hostile]") {
  PluginRegistry registry;
  SECTION("a plugin whose toolchain fingerprint differs") {
    const auto file = kBadPluginDir / "wrong_toolchain.so";
    CHECK_THAT(load_error(registry, file), Catch::Contains(file.string()) &&
                                               Catch::Contains("toolchain check failed") &&
                                               Catch::Contains("+asan"));
  }
  SECTION("a plugin built against another tokenlab version") {
    const auto file = kBadPluginDir / "wrong_version.so";
    CHECK_THAT(load_error(registry, file), Catch::Contains(file.string()) &&
                                               Catch::Contains("version check failed") &&
                                               Catch::Contains("0.0.0-other") &&
                                               Catch::Contains(TOKENLAB_PLUGIN_TOKENLAB_VERSION));
  }
#if TOKENLAB_TEST_SANITIZED_PLUGIN
  SECTION("a plugin built with AddressSanitizer, in a host without it") {
    const auto file = kBadPluginDir / "sanitized.so";
    CHECK_THAT(load_error(registry, file), Catch::Contains(file.string()) &&
                                               Catch::Contains("sanitizer check failed") &&
                                               Catch::Contains("AddressSanitizer"));
  }
#endif
}

TEST_CASE("a plugin whose factory throws fails alone, as an Error naming it",
          "[plugins][hostile]") {
  PluginRegistry registry;
  REQUIRE(registry.load_file(kBadPluginDir / "factory_throws.so").name == "factory_throws");
  CHECK_THROWS_WITH(registry.create("factory_throws"),
                    Catch::Contains("'factory_throws'") && Catch::Contains("always throws"));
  registry.load_search_path({kPluginDir});
  CHECK(registry.create("word")->name() == "word");
}

TEST_CASE("every kind of broken plugin on the search path leaves the others working",
          "[plugins][hostile]") {
  const std::string whole = tokenlab::test::read_bytes(kPluginDir / "word.so");
  tokenlab::test::TempDir dir;
  tokenlab::test::write_bytes(dir / "truncated.so", std::string_view(whole).substr(0, 5000));
  PluginRegistry registry;
  registry.load_search_path({dir.path(), kBadPluginDir, kPluginDir});
  const auto& errors = registry.load_errors();
  const auto mentions = [&](const std::string& what) {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const std::string& e) { return e.find(what) != std::string::npos; });
  };
  std::vector<std::string> refused = {"truncated.so", "no_entry.so",        "wrong_abi.so",
                                      "misnamed.so",  "wrong_toolchain.so", "wrong_version.so"};
  if (TOKENLAB_TEST_SANITIZED_PLUGIN) refused.push_back("sanitized.so");
  for (const auto& file : refused) {
    INFO(file);
    CHECK(mentions(file));
  }
  CHECK(errors.size() == refused.size());
  for (const auto& name : {"character", "word"}) {
    INFO(name);
    REQUIRE(registry.has(name));
    const auto segmenter = registry.create(name);
    CHECK(segmenter->name() == name);
  }
  CHECK_THROWS_AS(registry.create("factory_throws"), Error);
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
