// Replays the fuzz seed corpus and every input the fuzzers or the mutation test
// ever crashed on (tests/fuzz/regressions/) through the loaders, in the ordinary
// unit-test build: each must load or fail with a tokenlab::Error, never crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_files.hpp"
#include "fuzz_support.hpp"
#include "presets_fuzz_support.hpp"
#include "pretrained_fuzz_support.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

namespace fs = std::filesystem;
using tokenlab::test::read_bytes;

namespace {

std::vector<fs::path> inputs(const std::string& kind) {
  std::vector<fs::path> files;
  for (const char* root : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(TOKENLAB_FUZZ_DIR) / root / kind;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
        files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs body; passes if it returns or throws tokenlab::Error.
template <class Body>
void expect_clean(const fs::path& file, Body&& body) {
  INFO(file.string());
  try {
    body();
    SUCCEED();
  } catch (const tokenlab::Error& e) {
    INFO(e.what());
    SUCCEED();
  }
}

}  // namespace

TEST_CASE("every fuzz seed and regression model loads or fails cleanly in every plugin",
          "[fuzz][replay]") {
  tokenlab::PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  const auto files = inputs("model");
  REQUIRE(!files.empty());
  std::size_t loaded = 0;
  for (const fs::path& file : files) {
    const std::string bytes = read_bytes(file);
    for (const tokenlab::PluginInfo& plugin : registry.plugins()) {
      expect_clean(file, [&] {
        auto segmenter = registry.create(plugin.name);
        tokenlab::fuzz::load_model_bytes(bytes, *segmenter);
        ++loaded;
      });
    }
  }
  // The seeds are real models: each loads at least in its own plugin.
  CHECK(loaded > 0);
}

TEST_CASE("every fuzz seed and regression vocab.txt imports or fails cleanly", "[fuzz][replay]") {
  for (const fs::path& file : inputs("vocab_txt")) {
    expect_clean(file, [&] {
      std::istringstream in(read_bytes(file));
      tokenlab::wordpiece::WordPieceSegmenter segmenter;
      segmenter.import_model(in, "vocab.txt", file.string());
      tokenlab::fuzz::exercise(segmenter);
    });
  }
}

TEST_CASE("every fuzz seed and regression text is cut by the regex presets as ICU cuts it",
          "[fuzz][replay]") {
  const auto files = inputs("presets");
  REQUIRE(!files.empty());
  for (const fs::path& file : files) {
    CAPTURE(file.string());
    CHECK(tokenlab::fuzz::presets_agree_with_icu(read_bytes(file)));
  }
}

TEST_CASE("every fuzz seed and regression counts file loads or fails cleanly", "[fuzz][replay]") {
  for (const fs::path& file : inputs("counts"))
    expect_clean(file, [&] { tokenlab::fuzz::load_counts_bytes(read_bytes(file)); });
}

TEST_CASE("every fuzz seed and regression tokenizer file loads or fails cleanly in every format",
          "[fuzz][replay]") {
  const auto files = inputs("pretrained");
  REQUIRE(!files.empty());
  int loaded = 0;
  int seeds = 0;
  for (const fs::path& file : files) {
    INFO(file.string());
    const int formats = tokenlab::fuzz::load_pretrained_bytes(read_bytes(file));  // Errors caught
    // The regressions are hostile (nesting, repeated members): none may load.
    if (file.parent_path().parent_path().filename() == "regressions") {
      CHECK(formats == 0);
      continue;
    }
    loaded += formats;
    ++seeds;
  }
  // The seeds are real tokenizer files: each loads at least as its own format.
  CHECK(loaded >= seeds);
}
