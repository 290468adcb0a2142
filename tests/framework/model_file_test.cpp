// Model files and atomic writes: a damaged file is an Error, never a crash.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "test_support.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/character/character_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/word_counts.hpp"

using tokenlab::Error;
using tokenlab::ModelFile;
using tokenlab::read_model_file;
using tokenlab::write_model_file;
using tokenlab::test::read_bytes;
using tokenlab::test::TempDir;
using tokenlab::test::write_bytes;

namespace {

ModelFile sample_model() {
  ModelFile model;
  model.header.plugin_name = "character";
  model.header.plugin_version = "1.0.0";
  model.header.normalizer = {.form = tokenlab::NormalizationForm::nfkc, .lowercase = true};
  model.header.pre_tokenizer = {.kind = tokenlab::PreTokenizerKind::whitespace,
                                .marker = tokenlab::MarkerStyle::suffix};
  for (int i = 0; i < 300; ++i) model.payload += static_cast<char>(i * 7);
  return model;
}

std::string read_error(const std::filesystem::path& path) {
  try {
    (void)read_model_file(path);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("read_model_file accepted " << path);
  return {};
}

}  // namespace

TEST_CASE("a model file written then read gives back header and payload", "[model_file]") {
  TempDir dir;
  const ModelFile model = sample_model();
  write_model_file(dir / "m.tkl", model);
  const ModelFile back = read_model_file(dir / "m.tkl");
  CHECK(back.header.format_version == tokenlab::kModelFormatVersion);
  CHECK(back.header.plugin_name == "character");
  CHECK(back.header.plugin_version == "1.0.0");
  CHECK(back.header.normalizer == model.header.normalizer);
  CHECK(back.header.pre_tokenizer == model.header.pre_tokenizer);
  CHECK(back.payload == model.payload);
  CHECK(read_bytes(dir / "m.tkl").substr(0, 8) == "TKLBMODL");
  CHECK(dir.entries() == std::vector<std::string>{"m.tkl"});
}

TEST_CASE("the CRC is the standard CRC-32 (as zlib computes it)", "[model_file]") {
  CHECK(tokenlab::crc32("123456789", 9) == 0xCBF43926u);
  CHECK(tokenlab::crc32("", 0) == 0u);
}

TEST_CASE("a model file cut at any length is refused with a message naming the file",
          "[model_file]") {
  TempDir dir;
  write_model_file(dir / "full.tkl", sample_model());
  const std::string bytes = read_bytes(dir / "full.tkl");
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    write_bytes(dir / "cut.tkl", bytes.substr(0, length));
    const std::string message = read_error(dir / "cut.tkl");
    INFO("cut at " << length << " of " << bytes.size() << " bytes: " << message);
    REQUIRE_THAT(message, Catch::Contains((dir / "cut.tkl").string()));
    if (length >= 8) REQUIRE_THAT(message, Catch::Contains("truncated"));
  }
}

TEST_CASE("every damaged model file is a clear Error", "[model_file]") {
  TempDir dir;
  write_model_file(dir / "good.tkl", sample_model());
  const std::string good = read_bytes(dir / "good.tkl");
  const auto file = dir / "bad.tkl";

  SECTION("one flipped payload byte fails the CRC") {
    std::string bad = good;
    bad[bad.size() - 100] = static_cast<char>(bad[bad.size() - 100] ^ 0x01);
    write_bytes(file, bad);
    CHECK_THAT(read_error(file), Catch::Contains("checksum"));
  }
  SECTION("a wrong magic number") {
    std::string bad = good;
    bad[7] = 'X';
    write_bytes(file, bad);
    CHECK_THAT(read_error(file), Catch::Contains("magic"));
  }
  SECTION("a foreign file (a PNG image)") {
    static constexpr char kPngHeader[] = "\x89PNG\r\n\x1A\n\0\0\0\x0DIHDR\0\0\0\x10";
    write_bytes(file, std::string(kPngHeader, sizeof kPngHeader - 1));
    CHECK_THAT(read_error(file), Catch::Contains("not a tokenlab model"));
  }
  SECTION("a text file") {
    write_bytes(file, "low\t5\nlower\t2\n");
    CHECK_THAT(read_error(file), Catch::Contains("not a tokenlab model"));
  }
  SECTION("an unknown format version") {
    std::string bad = good;
    bad[8] = 99;
    write_bytes(file, bad);
    CHECK_THAT(read_error(file), Catch::Contains("format version 99"));
  }
  SECTION("an absurd string length in the header") {
    std::string bad = good;
    bad[12] = '\xFF';
    bad[13] = '\xFF';
    bad[14] = '\xFF';
    bad[15] = '\x7F';
    write_bytes(file, bad);
    CHECK_THAT(read_error(file), Catch::Contains("corrupted"));
  }
  SECTION("bytes appended after the payload") {
    write_bytes(file, good + "extra");
    CHECK_THAT(read_error(file), Catch::Contains("after the payload"));
  }
  SECTION("a directory") {
    CHECK_THAT(read_error(dir.path()), Catch::Contains("directory"));
  }
  SECTION("a missing file") {
    CHECK_THAT(read_error(dir / "missing.tkl"), Catch::Contains("missing.tkl"));
  }
}

TEST_CASE("a tokenizer saved to a model file loads through the plugin registry", "[model_file]") {
  TempDir dir;
  tokenlab::WordCounts counts;
  for (const char* w : {"\u2581low", "\u2581lower", "\u2581newest", "\u2581wid\u00E9st"})
    counts.add(w, 3);
  auto segmenter = std::make_shared<tokenlab::character::CharacterSegmenter>();
  segmenter->train(counts, tokenlab::TrainOptions{.vocab_size = 100}, nullptr);
  const tokenlab::Tokenizer original({.lowercase = true}, {}, segmenter);
  original.save(dir / "char.tkl");

  tokenlab::PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  REQUIRE(registry.has("character"));
  const tokenlab::Tokenizer loaded = tokenlab::Tokenizer::load(dir / "char.tkl", registry);
  CHECK(loaded.normalizer().options() == original.normalizer().options());
  CHECK(loaded.encode("LOWEST wid\u00E9r") == original.encode("LOWEST wid\u00E9r"));
  CHECK(loaded.decode(loaded.encode("newer lower")) == "newer lower");

  SECTION("a payload the plugin cannot read, behind a valid header and CRC, is an Error") {
    ModelFile model = read_model_file(dir / "char.tkl");
    model.payload = "definitely not a boost archive";
    write_model_file(dir / "garbage.tkl", model);
    CHECK_THROWS_AS(tokenlab::Tokenizer::load(dir / "garbage.tkl", registry), Error);
  }
  SECTION("a model of a plugin that is not installed names the plugin it needs") {
    ModelFile model = read_model_file(dir / "char.tkl");
    model.header.plugin_name = "no_such_plugin";
    write_model_file(dir / "foreign.tkl", model);
    CHECK_THROWS_WITH(tokenlab::Tokenizer::load(dir / "foreign.tkl", registry),
                      Catch::Contains("no_such_plugin") && Catch::Contains("not available"));
  }
}

TEST_CASE("write_file_atomically leaves either the complete file or nothing", "[atomic_file]") {
  TempDir dir;
  SECTION("success writes the content and leaves no temporary file") {
    tokenlab::write_file_atomically(dir / "out.txt",
                                    [](std::ostream& out) { out << "complete\n"; });
    CHECK(read_bytes(dir / "out.txt") == "complete\n");
    CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
  }
  SECTION("a writer that fails half-way keeps the old file and removes the temporary one") {
    write_bytes(dir / "out.txt", "old content");
    CHECK_THROWS_AS(tokenlab::write_file_atomically(dir / "out.txt",
                                                    [](std::ostream& out) {
                                                      out << "half of the new";
                                                      throw Error("writer failed");
                                                    }),
                    Error);
    CHECK(read_bytes(dir / "out.txt") == "old content");
    CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
  }
  SECTION("a directory that does not exist is an Error naming the path, and nothing is created") {
    const auto path = dir / "no" / "such" / "dir" / "out.txt";
    CHECK_THROWS_WITH(tokenlab::write_file_atomically(path, [](std::ostream& out) { out << "x"; }),
                      Catch::Contains(path.string()));
    CHECK(dir.entries().empty());
  }
  SECTION("a directory nobody may create files in (even root: /proc) is an Error") {
    const std::filesystem::path path = "/proc/tokenlab-test-unwritable.txt";
    CHECK_THROWS_WITH(tokenlab::write_file_atomically(path, [](std::ostream& out) { out << "x"; }),
                      Catch::Contains(path.string()));
    CHECK_FALSE(std::filesystem::exists(path));
  }
  SECTION("an existing directory as the target is an Error") {
    std::filesystem::create_directory(dir / "sub");
    CHECK_THROWS_WITH(
        tokenlab::write_file_atomically(dir / "sub", [](std::ostream& out) { out << "x"; }),
        Catch::Contains("directory"));
    CHECK(std::filesystem::is_directory(dir / "sub"));
  }
}
