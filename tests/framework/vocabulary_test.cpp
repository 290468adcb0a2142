// Vocabulary: the dense id <-> piece table every segmenter shares.
#include <catch2/catch.hpp>

#include <sstream>

#include "tokenlab/error.hpp"
#include "tokenlab/payload.hpp"
#include "tokenlab/vocabulary.hpp"

using tokenlab::Error;
using tokenlab::TokenId;
using tokenlab::Vocabulary;

namespace {

Vocabulary sample_vocabulary() {
  Vocabulary v;
  v.set_unknown(v.add_special("<unk>"));
  v.add_special("<s>");
  v.add("\u2581the");
  v.add("s");
  v.add("\u0928\u092E");
  return v;
}

}  // namespace

TEST_CASE("ids are dense from zero and lookups agree both ways", "[vocabulary]") {
  const Vocabulary v = sample_vocabulary();
  REQUIRE(v.size() == 5);
  for (TokenId id = 0; id < v.size(); ++id) {
    INFO("id " << id);
    REQUIRE(v.find(v.piece(id)).has_value());
    CHECK(*v.find(v.piece(id)) == id);
  }
  CHECK(v.find("\u2581the") == TokenId{2});
  CHECK_FALSE(v.find("missing").has_value());
  CHECK_FALSE(v.contains("the"));  // the marker is part of the piece
}

TEST_CASE("special tokens come first and are the only candidates for the unknown token",
          "[vocabulary]") {
  Vocabulary v = sample_vocabulary();
  CHECK(v.special_count() == 2);
  CHECK(v.is_special(0));
  CHECK(v.is_special(1));
  CHECK_FALSE(v.is_special(2));
  CHECK(v.unknown_id() == TokenId{0});

  SECTION("a special token after an ordinary piece is rejected") {
    CHECK_THROWS_AS(v.add_special("<pad>"), Error);
    CHECK(v.size() == 5);
  }
  SECTION("an ordinary piece cannot be the unknown token") {
    CHECK_THROWS_AS(v.set_unknown(2), Error);
  }
}

TEST_CASE("a piece appears once", "[vocabulary]") {
  Vocabulary v = sample_vocabulary();
  SECTION("add rejects a duplicate with a message naming it") {
    CHECK_THROWS_WITH(v.add("s"), Catch::Contains("'s'"));
    CHECK(v.size() == 5);
  }
  SECTION("add_special rejects a duplicate special") {
    Vocabulary fresh;
    fresh.add_special("<unk>");
    CHECK_THROWS_AS(fresh.add_special("<unk>"), Error);
  }
  SECTION("add_or_find returns the existing id instead of adding") {
    CHECK(v.add_or_find("s") == TokenId{3});
    CHECK(v.add_or_find("new") == TokenId{5});
    CHECK(v.size() == 6);
  }
}

TEST_CASE("serialization round-trips pieces, specials and the unknown token", "[vocabulary]") {
  const Vocabulary original = sample_vocabulary();
  std::stringstream buffer;
  {
    tokenlab::PayloadOArchive out(buffer, "test", 1);
    out << boost::serialization::make_nvp("vocabulary", original);
  }
  Vocabulary loaded;
  loaded.add("stale content that load must replace");
  {
    tokenlab::PayloadIArchive in(buffer, "test", 1);
    in >> boost::serialization::make_nvp("vocabulary", loaded);
    in.finish();
  }
  CHECK(loaded.pieces() == original.pieces());
  CHECK(loaded.special_count() == original.special_count());
  CHECK(loaded.unknown_id() == original.unknown_id());
  CHECK(loaded.find("\u0928\u092E") == TokenId{4});
  CHECK_FALSE(loaded.contains("stale content that load must replace"));
}

TEST_CASE("clear empties the vocabulary so specials may be added again", "[vocabulary]") {
  Vocabulary v = sample_vocabulary();
  v.clear();
  CHECK(v.empty());
  CHECK_FALSE(v.unknown_id().has_value());
  CHECK(v.add_special("<unk>") == TokenId{0});
}
