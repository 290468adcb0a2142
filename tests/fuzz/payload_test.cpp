// Hostile payloads: the checks of PayloadReader, read_model_file and each plugin's
// load() (docs/reliability.md). Every case must end in a tokenlab::Error.
#include <catch2/catch.hpp>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_files.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece.hpp"

using tokenlab::Error;
using tokenlab::PayloadReader;
using tokenlab::PayloadWriter;

namespace {

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no tokenlab::Error was thrown");
  return {};
}

std::string le64(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

std::string tagged(const std::string& plugin, std::uint32_t version, const std::string& rest) {
  std::ostringstream out;
  { PayloadWriter writer(out, plugin, version); }
  return out.str() + rest;
}

tokenlab::WordCounts small_counts() {
  tokenlab::WordCounts counts;
  for (const char* w : {"hello", "world", "low", "lower", "newest", "widest", "the", "garden"})
    counts.add(w, 5);
  counts.add("unbelievable", 2);
  return counts;
}

}  // namespace

TEST_CASE("PayloadReader checks flags, lengths, tags and trailing bytes", "[payload]") {
  SECTION("a flag other than 0 or 1") {
    std::istringstream in(tagged("p", 1, std::string(1, '\x02')));
    PayloadReader reader(in, "p", 1);
    CHECK_THAT(error_of([&] { (void)reader.flag("lowercase"); }),
               Catch::Contains("lowercase is 2, not a boolean"));
  }
  SECTION("a length beyond the bytes left fails before allocating") {
    std::istringstream in(tagged("p", 1, le64(std::uint64_t{1} << 60) + "abc"));
    PayloadReader reader(in, "p", 1);
    CHECK_THAT(error_of([&] { (void)reader.array<double>("scores"); }),
               Catch::Contains("exceeds the 3 bytes left"));
  }
  SECTION("a vocabulary count beyond the bytes left") {
    std::istringstream in(tagged("p", 1, le64(0xFFFFFFFFull)));
    PayloadReader reader(in, "p", 1);
    CHECK_THAT(error_of([&] { (void)reader.vocabulary(); }), Catch::Contains("exceeds"));
  }
  SECTION("another plugin's payload") {
    std::istringstream in(tagged("unigram", 2, ""));
    CHECK_THAT(error_of([&] { PayloadReader reader(in, "word", 2); }),
               Catch::Contains("belongs to plugin 'unigram'"));
  }
  SECTION("another format version") {
    std::istringstream in(tagged("word", 7, ""));
    CHECK_THAT(error_of([&] { PayloadReader reader(in, "word", 2); }),
               Catch::Contains("re-train or re-import"));
  }
  SECTION("a payload from before the tag") {
    std::istringstream in(std::string("\x01\x00\x00\x00", 4) + le64(1));
    CHECK_THAT(error_of([&] { PayloadReader reader(in, "word", 2); }),
               Catch::Contains("older tokenlab") && Catch::Contains("re-train or re-import"));
  }
  SECTION("trailing bytes") {
    std::istringstream in(tagged("p", 1, "x"));
    PayloadReader reader(in, "p", 1);
    CHECK_THAT(error_of([&] { reader.finish(); }), Catch::Contains("1 unexpected bytes"));
  }
}

TEST_CASE("a Boost-serialized vocabulary refuses an unknown-token flag other than 0 or 1",
          "[payload][vocabulary]") {
  tokenlab::Vocabulary vocabulary;
  vocabulary.add_special("<unk>");
  vocabulary.set_unknown(0);
  vocabulary.add("a");
  std::stringstream buffer;
  {
    boost::archive::binary_oarchive out(buffer, boost::archive::no_header);
    out << vocabulary;
  }
  std::string bytes = buffer.str();
  bytes[bytes.size() - 5] = '\x02';  // the flag, before the u32 unknown id
  std::istringstream in(bytes);
  boost::archive::binary_iarchive archive(in, boost::archive::no_header);
  tokenlab::Vocabulary back;
  CHECK_THAT(error_of([&] { archive >> back; }), Catch::Contains("unknown-token flag"));
}

TEST_CASE("read_model_file checks the magic number and the declared length before reading",
          "[payload][model_file]") {
  tokenlab::test::TempDir dir;
  tokenlab::ModelFile model;
  model.header.plugin_name = "word";
  model.payload = "tiny";
  tokenlab::write_model_file(dir / "m.tkl", model);
  std::string file = tokenlab::test::read_bytes(dir / "m.tkl");
  file.replace(file.size() - 4 - 4 - 8, 8, le64(std::uint64_t{1} << 40));  // payload length
  std::istringstream in(file);
  CHECK_THAT(error_of([&] { (void)tokenlab::read_model_file(in, "m.tkl", file.size()); }),
             Catch::Contains("exceeds the 4 bytes left"));
  CHECK_THAT(error_of([&] { (void)tokenlab::read_model_file("/dev/zero"); }),
             Catch::Contains("bad magic number"));
}

TEST_CASE("every built-in plugin refuses another plugin's payload, trailing bytes and cuts",
          "[payload][plugins]") {
  tokenlab::PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  const std::vector<std::string> names{"bpe", "character", "unigram", "word", "wordpiece"};
  tokenlab::TrainOptions options;
  options.vocab_size = 60;
  options.threads = 1;
  options.character_coverage = 1.0;
  std::vector<std::string> payloads;
  for (const std::string& name : names) {
    auto segmenter = registry.create(name);
    segmenter->train(small_counts(), options, nullptr);
    std::ostringstream out;
    segmenter->save(out);
    payloads.push_back(out.str());
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    auto segmenter = registry.create(names[i]);
    {
      std::istringstream in(payloads[i]);
      segmenter->load(in);  // its own payload loads
    }
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (j == i) continue;
      std::istringstream in(payloads[j]);
      CHECK_THAT(error_of([&] { segmenter->load(in); }),
                 Catch::Contains("belongs to plugin '" + names[j] + "'"));
    }
    std::istringstream longer(payloads[i] + '\0');
    CHECK_THAT(error_of([&] { segmenter->load(longer); }), Catch::Contains("unexpected bytes"));
    for (std::size_t cut = 0; cut < payloads[i].size(); cut += 7) {
      std::istringstream shorter(payloads[i].substr(0, cut));
      (void)error_of([&] { segmenter->load(shorter); });
    }
  }
}

TEST_CASE("WordPiece builds its trie without recursion and bounds vocab.txt lines",
          "[payload][wordpiece]") {
  const std::string long_piece(100000, 'a');
  SECTION("a model with a 100 KB piece loads and encodes") {
    tokenlab::Vocabulary vocabulary;
    vocabulary.add_special("[UNK]");
    vocabulary.set_unknown(0);
    vocabulary.add(long_piece);
    vocabulary.add("a");
    std::ostringstream out;
    {
      PayloadWriter writer(out, "wordpiece", 2);
      writer.vocabulary(vocabulary);
      writer.text("##");
      writer.scalar<std::uint64_t>(100);
      writer.flag(false);
      writer.flag(false);
      writer.scalar<std::uint32_t>(0);
      writer.array<std::uint32_t>(std::vector<std::uint32_t>{});
    }
    std::istringstream in(out.str());
    tokenlab::wordpiece::WordPieceSegmenter segmenter;
    segmenter.load(in);
    std::vector<tokenlab::TokenId> ids;
    segmenter.encode("aa", ids);
    CHECK(ids.size() == 1);
  }
  SECTION("a vocab.txt line of 100 KB is refused") {
    std::istringstream in("[UNK]\n" + long_piece + "\n");
    tokenlab::wordpiece::WordPieceSegmenter segmenter;
    CHECK_THAT(error_of([&] { segmenter.import_model(in, "vocab.txt", "v.txt"); }),
               Catch::Contains("v.txt:2: token longer than"));
  }
}
