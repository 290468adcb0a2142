// Hostile payloads: the checks of the payload archives (payload.hpp), read_model_file
// and each plugin's load() (docs/reliability.md). Every case must end in a
// tokenlab::Error, without allocating what the payload claims.
#include <catch2/catch.hpp>

#include <atomic>
#include <boost/serialization/tracking.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_files.hpp"
#include "fuzz_support.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/vocabulary.hpp"
#include "tokenlab/word_counts.hpp"
#include "tokenlab/wordpiece/wordpiece_model.hpp"

using boost::serialization::make_nvp;
using tokenlab::Error;
using tokenlab::PayloadIArchive;
using tokenlab::PayloadOArchive;

// The largest single allocation while an AllocationWatch is alive: this test binary
// replaces the global operator new to see it. Every form that is not aligned is
// replaced, with malloc and free, so that sanitizers see matching pairs.
namespace {
std::atomic<bool> g_watching{false};
std::atomic<std::size_t> g_largest{0};

void* watched_malloc(std::size_t size) noexcept {
  if (g_watching.load(std::memory_order_relaxed)) {
    std::size_t seen = g_largest.load(std::memory_order_relaxed);
    while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
    }
  }
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

void* operator new(std::size_t size) {
  if (void* p = watched_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return watched_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return watched_malloc(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace {

class AllocationWatch {
 public:
  AllocationWatch() {
    g_largest = 0;
    g_watching = true;
  }
  ~AllocationWatch() { g_watching = false; }
  AllocationWatch(const AllocationWatch&) = delete;
  AllocationWatch& operator=(const AllocationWatch&) = delete;
  [[nodiscard]] static std::size_t largest() { return g_largest; }
};

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no tokenlab::Error was thrown");
  return {};
}

// A payload of plugin "p", format 1: the tag, Boost's header, what write() writes,
// then extra bytes.
std::string payload(const std::function<void(PayloadOArchive&)>& write,
                    const std::string& extra = "") {
  std::ostringstream out;
  {
    PayloadOArchive ar(out, "p", 1);
    write(ar);
  }
  return out.str() + extra;
}

// Writes a value (a temporary too) under a name.
template <class T>
void put(PayloadOArchive& ar, const char* name, const T& value) {
  ar << make_nvp(name, value);
}

// A payload holding the vocabulary {"<unk>" (unknown), piece} as "vocabulary".
std::string vocabulary_payload(const std::string& piece) {
  tokenlab::Vocabulary vocabulary;
  vocabulary.set_unknown(vocabulary.add_special("<unk>"));
  vocabulary.add(piece);
  return payload([&](PayloadOArchive& ar) { ar << make_nvp("vocabulary", vocabulary); });
}

// What the payload archives put before the first value.
std::size_t prefix_size() {
  return payload([](PayloadOArchive&) {}).size();
}

struct Fields {
  std::uint32_t a = 0;
  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& BOOST_SERIALIZATION_NVP(a);
  }
};

// The same fields a newer build might write: version 1 adds b.
struct NewerFields {
  std::uint32_t a = 0;
  std::uint32_t b = 7;
  template <class Archive>
  void serialize(Archive& ar, unsigned version) {
    ar& BOOST_SERIALIZATION_NVP(a);
    if (version >= 1) ar& BOOST_SERIALIZATION_NVP(b);
  }
};

struct Tracked {
  std::uint32_t a = 0;
  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& BOOST_SERIALIZATION_NVP(a);
  }
};

tokenlab::WordCounts small_counts() {
  tokenlab::WordCounts counts;
  for (const char* w : {"hello", "world", "low", "lower", "newest", "widest", "the", "garden"})
    counts.add(w, 5);
  counts.add("unbelievable", 2);
  return counts;
}

}  // namespace

BOOST_CLASS_VERSION(Fields, 0)
BOOST_CLASS_VERSION(NewerFields, 1)
BOOST_CLASS_TRACKING(Tracked, boost::serialization::track_always)

TEST_CASE("PayloadIArchive refuses a length beyond the bytes left before allocating", "[payload]") {
  const boost::serialization::collection_size_type huge(std::size_t{1} << 60);
  SECTION("a vector claiming 2^60 elements") {
    std::istringstream in(
        payload([&](PayloadOArchive& ar) { ar << make_nvp("count", huge); }, "abc"));
    PayloadIArchive ar(in, "p", 1);
    std::vector<double> scores;
    const AllocationWatch watch;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(scores); }),
               Catch::Contains("scores: a collection of 1152921504606846976 elements exceeds the "
                               "3 bytes left in the payload"));
    CHECK(watch.largest() < 4096);
  }
  SECTION("a vector of strings claiming 2^28 elements, which would fit in memory") {
    const std::vector<std::string> abc{"abc"};
    std::string bytes =
        payload([&](PayloadOArchive& ar) { ar << make_nvp("pieces", abc); }, std::string(49, 'x'));
    // The count follows the vector's class information (tracking flag, version).
    bytes.replace(prefix_size() + 5, 8, std::string("\0\0\0\x10\0\0\0\0", 8));
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    std::vector<std::string> pieces;
    const AllocationWatch watch;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(pieces); }),
               Catch::Contains("pieces: a collection of 268435456 elements exceeds the 64 bytes"));
    CHECK(watch.largest() < 4096);
  }
  SECTION("a string longer than the bytes left") {
    const std::size_t length = std::size_t{1} << 40;
    std::istringstream in(
        payload([&](PayloadOArchive& ar) { ar << make_nvp("length", length); }, "abc"));
    PayloadIArchive ar(in, "p", 1);
    std::string prefix;
    const AllocationWatch watch;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(prefix); }),
               Catch::Contains("prefix: a string of 1099511627776 bytes exceeds the 3 bytes left"));
    CHECK(watch.largest() < 4096);
  }
  SECTION("a string one byte past the end") {
    std::string bytes = payload([](PayloadOArchive& ar) { put(ar, "s", std::string("abc")); });
    bytes.pop_back();
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    std::string s;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(s); }),
               Catch::Contains("s: a string of 3 bytes exceeds the 2 bytes left"));
  }
  SECTION("a vocabulary's pieces, named by their path") {
    std::string bytes = vocabulary_payload("abc");
    // The last piece's length: before "abc", the special count (8), the flag (1)
    // and the unknown id (4).
    const std::size_t at = bytes.size() - 4 - 1 - 8 - 3 - 8;
    bytes.replace(at, 8, std::string("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x0F", 8));
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    tokenlab::Vocabulary back;
    CHECK_THAT(error_of([&] { ar >> make_nvp("vocabulary", back); }),
               Catch::Contains("malformed p model payload: vocabulary.pieces[]: a string of "));
  }
  SECTION("a fixed-size value cut short") {
    std::string bytes = payload([](PayloadOArchive& ar) { put(ar, "n", std::uint64_t{9}); });
    bytes.resize(bytes.size() - 5);
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    std::uint64_t n = 0;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(n); }),
               Catch::Contains("n: truncated: 8 bytes needed, 3 left"));
  }
}

TEST_CASE("PayloadIArchive checks booleans, tracking, class versions, tags and trailing bytes",
          "[payload]") {
  SECTION("a bool other than 0 or 1") {
    std::istringstream in(payload([](PayloadOArchive& ar) { put(ar, "b", std::uint8_t{2}); }));
    PayloadIArchive ar(in, "p", 1);
    bool lowercase = false;
    CHECK_THAT(error_of([&] { ar >> BOOST_SERIALIZATION_NVP(lowercase); }),
               Catch::Contains("lowercase: 2 is not a boolean (0 or 1)"));
  }
  SECTION("a Vocabulary's unknown-token flag other than 0 or 1") {
    std::string bytes = vocabulary_payload("a");
    bytes[bytes.size() - 5] = '\x02';  // the flag, before the u32 unknown id
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    tokenlab::Vocabulary back;
    CHECK_THAT(error_of([&] { ar >> make_nvp("vocabulary", back); }),
               Catch::Contains("vocabulary.has_unknown: 2 is not a boolean"));
  }
  SECTION("object tracking, which only pointers need") {
    CHECK_THAT(
        error_of([] { (void)payload([](PayloadOArchive& ar) { put(ar, "t", Tracked{}); }); }),
        Catch::Contains("object tracking"));
    std::string bytes = payload([](PayloadOArchive& ar) { put(ar, "f", Fields{}); });
    bytes[prefix_size()] = '\x01';  // the class's tracking flag, before its version
    std::istringstream in(bytes);
    PayloadIArchive ar(in, "p", 1);
    Fields f;
    CHECK_THAT(error_of([&] { ar >> make_nvp("f", f); }),
               Catch::Contains("f: object tracking flag 1"));
  }
  SECTION("a class version newer than this build's") {
    std::istringstream in(payload([](PayloadOArchive& ar) { put(ar, "f", NewerFields{}); }));
    PayloadIArchive ar(in, "p", 1);
    Fields f;
    CHECK_THAT(error_of([&] { ar >> make_nvp("f", f); }),
               Catch::Contains("f: (anonymous namespace)::Fields has class version 1, newer than "
                               "this build reads (0)"));
  }
  SECTION("an older class version loads: serialize() reads the fields it had") {
    std::istringstream in(payload([](PayloadOArchive& ar) { put(ar, "f", Fields{.a = 3}); }));
    PayloadIArchive ar(in, "p", 1);
    NewerFields f;
    ar >> make_nvp("f", f);
    ar.finish();
    CHECK(f.a == 3);
    CHECK(f.b == 7);
  }
  SECTION("another plugin's payload") {
    std::ostringstream out;
    { PayloadOArchive ar(out, "unigram", 3); }
    std::istringstream in(out.str());
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in, "word", 3); }),
               Catch::Contains("belongs to plugin 'unigram'"));
  }
  SECTION("another format version") {
    std::ostringstream out;
    { PayloadOArchive ar(out, "word", 7); }
    std::istringstream in(out.str());
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in, "word", 3); }),
               Catch::Contains("unsupported format version 7") &&
                   Catch::Contains("re-train or re-import"));
  }
  SECTION("a payload from before the tag") {
    std::istringstream in(std::string("\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00", 12));
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in, "word", 3); }),
               Catch::Contains("older tokenlab") && Catch::Contains("re-train or re-import"));
  }
  SECTION("a tagged payload without a Boost archive: the hand-written layout of format 2") {
    std::string bytes = payload([](PayloadOArchive&) {});
    bytes.resize(bytes.size() - 40);  // Boost's header
    std::istringstream in(bytes + std::string("\x02\x00\x00\x00\x00\x00\x00\x00", 8) + "ab");
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in, "p", 1); }),
               Catch::Contains("no Boost.Serialization archive after the tag") &&
                   Catch::Contains("re-train or re-import"));
  }
  SECTION("Boost's header from another machine or a newer Boost") {
    const std::string good = payload([](PayloadOArchive&) {});
    std::string newer = good;
    newer[good.size() - 10] = '\x7F';  // the archive library version, a u16 before 8 bytes
    std::istringstream in(newer);
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in, "p", 1); }),
               Catch::Contains("written by a newer Boost.Serialization"));
    std::string older = good;
    older[good.size() - 10] = '\x11';
    std::istringstream in_older(older);
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in_older, "p", 1); }),
               Catch::Contains("archive library version 17 predates"));
    std::string big_endian = good;
    big_endian[good.size() - 4] = '\0';  // the int 1 that tells the byte order
    big_endian[good.size() - 1] = '\x01';
    std::istringstream in_big(big_endian);
    CHECK_THAT(error_of([&] { PayloadIArchive ar(in_big, "p", 1); }),
               Catch::Contains("other type sizes or byte order"));
  }
  SECTION("trailing bytes") {
    std::istringstream in(payload([](PayloadOArchive&) {}, "x"));
    PayloadIArchive ar(in, "p", 1);
    CHECK_THAT(error_of([&] { ar.finish(); }), Catch::Contains("1 unexpected bytes"));
  }
}

TEST_CASE("read_model_file checks the magic number and the declared length before reading",
          "[payload][model_file]") {
  tokenlab::test::TempDir dir;
  tokenlab::ModelFile model;
  model.header.plugin_name = "word";
  model.payload = "tiny";
  tokenlab::write_model_file(dir / "m.tkl", model);
  std::string file = tokenlab::test::read_bytes(dir / "m.tkl");
  file.replace(file.size() - 4 - 4 - 8, 8, std::string("\0\0\0\0\0\x01\0\0", 8));  // 2^40
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

TEST_CASE("a model from before the Boost payloads is refused: re-train or re-import",
          "[payload][plugins]") {
  tokenlab::PluginRegistry registry;
  registry.load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
  const std::filesystem::path file =
      std::filesystem::path(TOKENLAB_FUZZ_DIR) / "regressions/model/word-format-2-hand-written.tkl";
  auto segmenter = registry.create("word");
  CHECK_THAT(error_of([&] {
               tokenlab::fuzz::load_model_bytes(tokenlab::test::read_bytes(file), *segmenter);
             }),
             Catch::Contains("unsupported format version 2 (this build reads 3); re-train or "
                             "re-import the model"));
}

TEST_CASE("WordPiece builds its trie without recursion and bounds vocab.txt lines",
          "[payload][wordpiece]") {
  const std::string long_piece(100000, 'a');
  SECTION("a model with a 100 KB piece loads and encodes") {
    const std::filesystem::path file =
        std::filesystem::path(TOKENLAB_FUZZ_DIR) / "regressions/model/wordpiece-100k-piece.tkl";
    const tokenlab::ModelFile model = tokenlab::read_model_file(file);
    std::istringstream in(model.payload);
    tokenlab::wordpiece::WordPieceSegmenter segmenter;
    segmenter.load(in);
    REQUIRE(segmenter.vocabulary().contains(long_piece));
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
