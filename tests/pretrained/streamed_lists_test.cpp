// The handler that takes model.vocab and model.merges from RapidJSON's event
// stream (hf/streamed_lists.hpp): whatever a file's shape, the lists it gathers
// plus the document it builds hold exactly what a plain parse's document holds,
// and a Unigram vocabulary's score digits are the numbers as the file spells
// them.
#include <catch2/catch.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <optional>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hf/streamed_lists.hpp"
#include "pretrained_support.hpp"

using tokenlab::hf_detail::ListDivertingHandler;
using tokenlab::hf_detail::StreamedLists;

namespace {

struct Streamed {
  std::string text;  // the buffer the views point into
  rapidjson::Document document;
  StreamedLists lists;
  std::size_t fast_vocab = 0;  // entries the fast paths took
  std::size_t fast_merges = 0;
  ListDivertingHandler::ListSpans spans{};  // where the fast paths found the lists
};

// fast: with the stream given to the handler (limit_nesting), whose fast
// paths then take the common entries straight from the buffer, as the reader
// runs it; without, every entry comes through RapidJSON's events. skip: a
// compiled entry's spans (skip_lists), for a fast parse. Returns whether the
// text parsed.
bool parse_into(Streamed& s, bool fast, const ListDivertingHandler::ListSpans* skip = nullptr) {
  rapidjson::Reader reader;
  std::optional<std::size_t> too_deep_at;
  const auto parse = [&](rapidjson::Document& out) {
    rapidjson::InsituStringStream stream(s.text.data());
    ListDivertingHandler handler(out, s.lists);
    if (fast) handler.limit_nesting(128, stream, too_deep_at);
    if (skip) handler.skip_lists(*skip, s.text.size());
    const bool parsed =
        !reader
             .Parse<rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag>(stream,
                                                                                         handler)
             .IsError();
    s.fast_vocab = handler.fast_vocab_entries();
    s.fast_merges = handler.fast_merge_entries();
    s.spans = handler.spans();
    return parsed;
  };
  s.document.Populate(parse);
  return !reader.HasParseError();
}

void parse_streamed(Streamed& s, bool fast) {
  REQUIRE(parse_into(s, fast));
}

const rapidjson::Value& model_member(const rapidjson::Value& root, const char* name) {
  return root["model"][name];
}

// The plain document's vocab object as rows, and merges as entries.
std::vector<std::pair<std::string, unsigned>> rows_of(const rapidjson::Value& vocab) {
  std::vector<std::pair<std::string, unsigned>> rows;
  for (const auto& m : vocab.GetObject()) rows.emplace_back(m.name.GetString(), m.value.GetUint());
  return rows;
}

void check_same_as_plain(const std::string& json, bool fast) {
  CAPTURE(json, fast);
  rapidjson::Document plain;
  plain.Parse<rapidjson::kParseFullPrecisionFlag>(json.c_str());
  REQUIRE_FALSE(plain.HasParseError());
  Streamed s{json, {}, {}};
  parse_streamed(s, fast);
  const rapidjson::Value& vocab = model_member(s.document, "vocab");
  if (s.lists.has_vocab) {
    CHECK(vocab.IsObject());
    CHECK(vocab.MemberCount() == 0);
    std::vector<std::pair<std::string, unsigned>> rows;
    for (const auto& row : s.lists.vocab) rows.emplace_back(std::string(row.token), row.id);
    CHECK(rows == rows_of(model_member(plain, "vocab")));
  } else {
    CHECK(vocab == model_member(plain, "vocab"));
  }
  if (model_member(plain, "merges").IsArray()) {
    const rapidjson::Value& merges = model_member(s.document, "merges");
    if (s.lists.has_merges) {
      REQUIRE(merges.Size() == 0);
      const auto& expected = model_member(plain, "merges");
      REQUIRE(s.lists.merges.size() == expected.Size());
      for (rapidjson::SizeType i = 0; i < expected.Size(); ++i) {
        const auto& [first, second] = s.lists.merges[i];
        if (expected[i].IsString()) {
          CHECK(second.data() == nullptr);
          CHECK(first == expected[i].GetString());
        } else {
          CHECK(first == expected[i][0].GetString());
          CHECK(second == expected[i][1].GetString());
        }
      }
    } else {
      CHECK(merges == model_member(plain, "merges"));
    }
  }
  // Everything else as it was: the whole document, the lists put back.
  rapidjson::Value& model = s.document["model"];
  if (s.lists.has_vocab) {
    rapidjson::Value rebuilt(rapidjson::kObjectType);
    for (const auto& row : s.lists.vocab)
      rebuilt.AddMember(rapidjson::Value(std::string(row.token).c_str(), s.document.GetAllocator()),
                        rapidjson::Value(row.id), s.document.GetAllocator());
    model["vocab"] = rebuilt;
  }
  if (s.lists.has_merges) {
    rapidjson::Value rebuilt(rapidjson::kArrayType);
    auto& a = s.document.GetAllocator();
    for (const auto& [first, second] : s.lists.merges) {
      const auto text = [&](std::string_view v) {
        return rapidjson::Value(std::string(v).c_str(), a);
      };
      if (second.data() == nullptr) {
        rebuilt.PushBack(text(first), a);
      } else {
        rapidjson::Value pair(rapidjson::kArrayType);
        pair.PushBack(text(first), a).PushBack(text(second), a);
        rebuilt.PushBack(pair, a);
      }
    }
    model["merges"] = rebuilt;
  }
  CHECK(s.document == plain);
}

void check_same_as_plain(const std::string& json) {
  check_same_as_plain(json, false);
  check_same_as_plain(json, true);
}

// The reader's message for malformed JSON, and the one RapidJSON's own parse
// of the text gives (its byte and line, in the reader's words): the fast paths
// must stop where RapidJSON would, and let it name the problem.
std::string reader_error(const std::string& json) {
  return tokenlab::test::error_of([&] { (void)tokenlab::test::tokenizer_json(json); });
}
std::string rapidjson_error(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  REQUIRE(d.HasParseError());
  const std::size_t offset = d.GetErrorOffset();
  const auto line =
      1 + std::count(json.begin(), json.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return "tokenizer.json: line " + std::to_string(line) + " (byte " + std::to_string(offset) +
         "): malformed JSON: " + rapidjson::GetParseError_En(d.GetParseError());
}

}  // namespace

TEST_CASE("the streamed lists and the document hold what a plain parse holds",
          "[pretrained][tokenizer.json][streamed]") {
  const std::string vocab = R"({"a":0,"b":1,"ab":2,"x\"y":3})";
  for (const std::string& v :
       {vocab, std::string(R"({"a":0,"b":"1"})"), std::string(R"({"a":0,"b":-1})"),
        std::string(R"({"a":0,"b":16777216})"), std::string(R"({"a":[0]})"), std::string("{}"),
        std::string(R"([["a",-1.5],["b",2]])")}) {
    for (const std::string& m :
         {std::string(R"(["a b",["ab","c"]])"), std::string(R"(["a b",7])"),
          std::string(R"([["a","b","c"]])"), std::string(R"([["a",1]])"), std::string(R"([["a"]])"),
          std::string(R"([{"a":"b"}])"), std::string("[]"), std::string(R"([[],"a b"])")}) {
      check_same_as_plain(R"({"version":"1.0","model":{"type":"BPE","vocab":)" + v +
                          R"(,"merges":)" + m + R"(,"dropout":null},"decoder":{"vocab":{"q":1}}})");
      check_same_as_plain(R"({"model":{"merges":)" + m + R"(,"vocab":)" + v + "}}");
    }
  }
  // Lists elsewhere, or model not an object, are the document's.
  check_same_as_plain(R"({"vocab":{"a":0},"model":{"type":"WordLevel","vocab":{"a":0}}})");
  check_same_as_plain(R"({"model":[{"vocab":{"a":0}}],"x":{"model":{"vocab":{"a":1}}}})");
}

TEST_CASE("a Unigram vocabulary's score digits are the numbers as written",
          "[pretrained][tokenizer.json][streamed]") {
  Streamed s{R"({"model":{"type":"Unigram","vocab":[["<unk>",0.0], ["a",-9.788626874800455],)"
             R"(["b" , -5 ],["c",1e-3],["d",-1.25E+2]],"unk_id":0}})",
             {},
             {}};
  parse_streamed(s, true);
  CHECK(s.lists.score_digits ==
        std::vector<std::string_view>{"0.0", "-9.788626874800455", "-5", "1e-3", "-1.25E+2"});
  for (const std::string json :
       {R"({"model":{"vocab":[["a",-1],["b","-2"]]}})", R"({"model":{"vocab":[["a",-1],["b"]]}})",
        R"({"model":{"vocab":[["a",-1],["b",-2,3]]}})",
        R"({"model":{"vocab":[["a",-1],{"b":-2}]}})"}) {
    CAPTURE(json);
    Streamed other{json, {}, {}};
    parse_streamed(other, true);
    CHECK(other.lists.score_digits.empty());
  }
}

TEST_CASE("the fast paths take many entries and stop where RapidJSON must go on",
          "[pretrained][tokenizer.json][streamed]") {
  std::string vocab = "{";
  std::string merges = "[";
  for (int i = 0; i < 300; ++i) {
    vocab += "\n  \"t" + std::to_string(i) + "\" : " + std::to_string(i) + ",";
    merges += i % 3 == 0 ? "\n  [ \"t0\" , \"t1\" ] ," : "\"t0 t1\",";
  }
  const auto file = [&](const std::string& vocab_end, const std::string& merges_end) {
    return R"({"model":{"type":"BPE","vocab":)" + vocab + vocab_end + R"(,"merges":)" + merges +
           merges_end + "}}";
  };
  // Valid: every kind of entry after the plain ones, in both lists.
  for (const std::string& v :
       {std::string(R"("t0t1":300})"), std::string(R"("x\"y":300})"), std::string(R"("z":0.5})"),
        std::string(R"("z":-1})"), std::string(R"("z":16777216})"), std::string(R"("z":0})"),
        std::string(R"("z":[1]})"), std::string(R"("z":300 } )"),
        std::string(R"("a\u0062c":300})")})
    for (const std::string& m :
         {std::string(R"("t0 t1"])"), std::string(R"(["t\"0","t1"]])"), std::string("7]"),
          std::string(R"([["t0"],"t1"]])"), std::string(R"(["t0","t1","t2"]])"),
          std::string(R"(  "a b"  ] )"), std::string(R"({"a":"b"}])")})
      check_same_as_plain(file(v, m));
  // Malformed, wherever a fast path would stop: RapidJSON's error, at its byte.
  for (const std::string& bad :
       {file(R"("z":1,})", R"("a b"])"), file(R"("z" 1})", R"("a b"])"),
        file(R"("z":01})", R"("a b"])"), file(R"("z":1 "y":2})", R"("a b"])"),
        file(R"("z":1.})", R"("a b"])"), file(R"("z)", ""), file(R"("z":1})", R"("a b",])"),
        file(R"("z":1})", R"(["a" "b"]])"), file(R"("z":1})", R"(["a","b"],,"c d"])"),
        file(R"("z":1})", R"("a b" "c d"])"), file(R"("z":1})", R"(["a","b")"),
        file("\"z\":1}", "\"a\tb\"]"), file("\"z\x01\":1}", "\"a b\"]")}) {
    CAPTURE(bad);
    CHECK(reader_error(bad) == rapidjson_error(bad));
  }
}

TEST_CASE(
    "strings are read alike wherever an escape, a bad byte or the end falls in a 16-byte block",
    "[pretrained][tokenizer.json][streamed]") {
  // The fast paths find a string's end sixteen bytes at a time with aligned
  // loads: every offset of the special byte within a block, for strings
  // starting at every alignment (the padding before them shifts), must read
  // as RapidJSON reads it.
  const std::string escapes[] = {R"(\")",     R"(\\)", R"(\n)",
                                 R"(\u00e9)", R"(\/)", "\xc3\xa8"};  // è: no key twice
  for (std::size_t pad = 0; pad < 16; ++pad) {
    std::string vocab = "{" + std::string(pad, ' ');
    std::string merges = "[" + std::string(pad, ' ');
    int id = 0;
    for (std::size_t before = 0; before < 34; ++before)
      for (const std::string& escape : escapes) {
        const std::string token = std::string(before, 'a') + escape + std::string(before % 5, 'b');
        vocab += "\"" + token + "\":" + std::to_string(id++) + ",";
        merges += "[\"" + token + "\",\"" + std::string(before, 'c') + "\"],\"" + token + " d\",";
      }
    vocab += "\"end\":" + std::to_string(id) + "}";
    merges += "\"x y\"]";
    const std::string json =
        R"({"model":{"type":"BPE","vocab":)" + vocab + R"(,"merges":)" + merges + "}}";
    check_same_as_plain(json);
    // And the fast paths took every one of them: a string scan that stopped
    // in the wrong place would only hand the rest to RapidJSON, as right and
    // slower.
    Streamed s{json, {}, {}};
    parse_streamed(s, true);
    CHECK(s.fast_vocab == static_cast<std::size_t>(id) + 1);
    CHECK(s.fast_merges == 2 * static_cast<std::size_t>(id) + 1);
  }
  // A control character, a bad escape, or the text's end, at every offset.
  for (std::size_t before = 0; before < 34; ++before) {
    for (const std::string& bad :
         {std::string("\x01"), std::string("\t"), std::string(R"(\x)"), std::string(R"(\ud800)")}) {
      const std::string json = R"({"model":{"type":"BPE","vocab":{"ok":0,")" +
                               std::string(before, 'a') + bad + R"(":1},"merges":[]}})";
      CAPTURE(before, bad);
      CHECK(reader_error(json) == rapidjson_error(json));
    }
    const std::string cut =
        R"({"model":{"type":"BPE","vocab":{"ok":0,")" + std::string(before, 'a');
    CAPTURE(before);
    CHECK(reader_error(cut) == rapidjson_error(cut));
  }
}

TEST_CASE("a compiled entry's spans make the fast paths jump over the lists unread",
          "[streamed][compiled]") {
  const std::string json =
      R"({"added_tokens":[{"id":3,"content":"<s>"},{"id":4,"content":"</s>"}],)"
      R"("model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"decoder":null})";
  // Where a first parse found the lists.
  Streamed first{json, {}, {}};
  parse_streamed(first, true);
  const auto& spans = first.spans;
  CHECK(spans.vocab.entries == 3);
  CHECK(spans.merges.entries == 1);
  CHECK(json.substr(spans.vocab.begin, spans.vocab.end - spans.vocab.begin) ==
        R"("a":0,"b":1,"ab":2)");
  CHECK(json.substr(spans.merges.begin, spans.merges.end - spans.merges.begin) == R"("a b")");
  CHECK(spans.added.entries == 2);
  CHECK(json.substr(spans.added.begin, spans.added.end - spans.added.begin) ==
        R"({"id":3,"content":"<s>"},{"id":4,"content":"</s>"})");
  // The same file with its lists' entries overwritten: read, they are no JSON
  // at all; jumped over, the rest parses, and nothing of them is kept (the
  // added tokens are an empty array in the document).
  std::string garbled = json;
  for (const auto& span : {spans.vocab, spans.merges, spans.added})
    for (std::uint64_t i = span.begin; i < span.end; ++i) garbled[i] = '#';
  Streamed read_garbled{garbled, {}, {}};
  CHECK_FALSE(parse_into(read_garbled, true));
  Streamed jumped{garbled, {}, {}};
  CHECK(parse_into(jumped, true, &spans));
  CHECK(jumped.lists.vocab.empty());
  CHECK(jumped.lists.merges.empty());
  CHECK(jumped.fast_vocab == 3);
  REQUIRE(jumped.document.HasMember("added_tokens"));
  CHECK(jumped.document["added_tokens"].IsArray());
  CHECK(jumped.document["added_tokens"].Empty());
  // Spans that start where a list does but do not end on its closing bracket
  // inside the text (a damaged entry whose checksum holds) are not jumped.
  for (const std::uint64_t end :
       {std::uint64_t{1}, std::uint64_t{json.size()}, std::uint64_t{1} << 40}) {
    for (const int which : {0, 1, 2}) {
      ListDivertingHandler::ListSpans bad = spans;
      ListDivertingHandler::Span& span = which == 0   ? bad.vocab
                                         : which == 1 ? bad.merges
                                                      : bad.added;
      span.end = end;
      INFO("list " << which << ", end " << end);
      Streamed not_jumped{garbled, {}, {}};
      CHECK_FALSE(parse_into(not_jumped, true, &bad));
      Streamed clean{json, {}, {}};
      CHECK(parse_into(clean, true, &bad));
    }
  }
  {
    ListDivertingHandler::ListSpans off_by_one = spans;
    off_by_one.added.end -= 1;  // on the last token's '}', not the ']'
    Streamed not_jumped{garbled, {}, {}};
    CHECK_FALSE(parse_into(not_jumped, true, &off_by_one));
  }
  // Spans that do not start where a list starts (another file's): the lists
  // are read, not jumped over.
  ListDivertingHandler::ListSpans elsewhere = spans;
  elsewhere.vocab.begin += 1;
  elsewhere.merges.begin += 1;
  elsewhere.added.begin += 1;
  Streamed garbled_elsewhere{garbled, {}, {}};
  CHECK_FALSE(parse_into(garbled_elsewhere, true, &elsewhere));
  Streamed read{json, {}, {}};
  CHECK(parse_into(read, true, &elsewhere));
  CHECK(read.fast_vocab == 3);
}
