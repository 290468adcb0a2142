// Real models' tokenizer files on the command line: encode, decode and inspect read
// them directly, import stores them in a .tkl model, and a broken file is an error
// that names the file and the place, with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_support.hpp"

using namespace tokenlab::test;

namespace {

// A small tokenizer.json of HF's shape: WordLevel over a lowercasing normalizer and
// the Whitespace pre-tokenizer. The ids below are what HF tokenizers 0.22 gives.
const std::string kWordLevelJson = R"({"version":"1.0","truncation":null,"padding":null,
"added_tokens":[{"id":0,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,
"normalized":false,"special":true}],
"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},
"post_processor":null,"decoder":null,
"model":{"type":"WordLevel","vocab":{"[UNK]":0,"the":1,"river":2,"flows":3,".":4},
"unk_token":"[UNK]"}})";

const std::string kText = "The river flows.\nThe sea flows\n";
const std::string kIds = "1 2 3 4\n1 0 3\n";

}  // namespace

TEST_CASE("a tokenizer.json is used directly wherever a model is accepted", "[cli][pretrained]") {
  TempDir dir;
  const std::string json = dir / "tokenizer.json";
  write_bytes(json, kWordLevelJson);
  const RunResult encoded = run_tokenlab({"encode", "-m", json}, kText);
  INFO(encoded.err);
  REQUIRE(encoded.exit_code == 0);
  CHECK(encoded.out == kIds);
  // No decoder: HF joins the tokens with spaces.
  const RunResult decoded = run_tokenlab({"decode", "-m", json}, kIds);
  REQUIRE(decoded.exit_code == 0);
  CHECK(decoded.out == "the river flows .\nthe [UNK] flows\n");
}

TEST_CASE("import keeps a real tokenizer in a .tkl model that encodes the same",
          "[cli][pretrained]") {
  TempDir dir;
  const std::string json = dir / "tokenizer.json";
  const std::string model = dir / "imported.tkl";
  write_bytes(json, kWordLevelJson);
  const RunResult imported = run_tokenlab({"import", json, "-o", model});
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
  CHECK_THAT(imported.err, Catch::Contains("imported tokenizer.json (5 ids)"));
  const RunResult encoded = run_tokenlab({"encode", "-m", model}, kText);
  REQUIRE(encoded.exit_code == 0);
  CHECK(encoded.out == kIds);

  SECTION("inspect describes it") {
    const RunResult inspected = run_tokenlab({"inspect", model});
    REQUIRE(inspected.exit_code == 0);
    const auto lines = inspected.out_lines();
    REQUIRE(lines.size() >= 7);
    CHECK(lines[1] == "format         tokenizer.json");
    CHECK(lines[2] == "model          WordLevel (unknown \"[UNK]\")");
    CHECK(lines[3] == "vocabulary     5 ids (5 model tokens, 1 added tokens)");
    CHECK(lines[4] == "normalizer     Lowercase");
    CHECK(lines[5] == "pre-tokenizer  Whitespace");
    CHECK(lines[6] == "decoder        none");
    CHECK_THAT(inspected.out, Catch::Contains("special tokens [UNK]=0"));
  }
  SECTION("--format names the format when detection should not be trusted") {
    const RunResult forced =
        run_tokenlab({"encode", "-m", json, "--format", "tokenizer.json"}, kText);
    CHECK(forced.out == kIds);
    check_failure(run_tokenlab({"encode", "-m", json, "--format", "sentencepiece"}, kText), {json});
  }
}

TEST_CASE("a broken tokenizer file is an error naming the file and the place",
          "[cli][pretrained][bad-input]") {
  TempDir dir;
  const std::string bad = dir / "tokenizer.json";
  const std::string out = dir / "m.tkl";
  SECTION("malformed JSON names the line and byte") {
    // Cut inside the third line of a pretty-printed file.
    write_bytes(bad, "{\n  \"version\": \"1.0\",\n  \"model\": {\"type\": \"Word");
    check_failure(run_tokenlab({"import", bad, "-o", out}), {bad, "line 3", "malformed JSON"});
  }
  SECTION("an unknown component names its JSON path") {
    std::string json = kWordLevelJson;
    json.replace(json.find("\"Lowercase\""), 11, "\"Lowercased\"");
    write_bytes(bad, json);
    check_failure(run_tokenlab({"import", bad, "-o", out}), {bad, "normalizer.type", "Lowercased"});
    check_failure(run_tokenlab({"encode", "-m", bad}, kText), {bad, "normalizer.type"});
  }
  SECTION("a file of no known format says so") {
    write_bytes(bad, "just some text\n");
    check_failure(run_tokenlab({"import", bad, "-o", out}), {bad, "not a tokenizer file"});
    check_failure(run_tokenlab({"inspect", bad}), {bad, "not a tokenlab model"});
  }
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a byte-level BPE trains on a regex preset as GPT-style tokenizers do",
          "[cli][pretrained]") {
  TempDir dir;
  const std::string corpus = data_file("corpus/english.txt");
  const std::string model = dir / "o200k-bpe.tkl";
  const RunResult trained =
      run_tokenlab({"train", "-a", "bpe", "-v", "400", "--pre-tokenizer", "o200k", "--option",
                    "units=bytes", "--corpus", corpus, "-o", model});
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  // Spaces, tabs and the line's own ends survive encode and decode byte for byte.
  const std::string text = " The river,  it flows\tnorth. \n";
  const RunResult ids = run_tokenlab({"encode", "-m", model}, text);
  REQUIRE(ids.exit_code == 0);
  const RunResult decoded = run_tokenlab({"decode", "-m", model}, ids.out);
  REQUIRE(decoded.exit_code == 0);
  CHECK(decoded.out == text);
  const RunResult inspected = run_tokenlab({"inspect", model});
  CHECK_THAT(inspected.out,
             Catch::Contains("nfc+keep-whitespace") && Catch::Contains("o200k/space"));

  SECTION("counting first gives the same model") {
    const std::string counts = dir / "counts.tsv";
    REQUIRE(run_tokenlab({"count", "--pre-tokenizer", "o200k", "--corpus", corpus, "-o", counts})
                .exit_code == 0);
    const std::string from_counts = dir / "from-counts.tkl";
    const RunResult again =
        run_tokenlab({"train", "-a", "bpe", "-v", "400", "--pre-tokenizer", "o200k", "--option",
                      "units=bytes", "--counts", counts, "-o", from_counts});
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK(read_bytes(from_counts) == read_bytes(model));
  }
  SECTION("a boundary marker with a regex preset is refused, naming both") {
    check_failure(run_tokenlab({"train", "-a", "bpe", "-v", "400", "--pre-tokenizer", "o200k",
                                "--marker", "prefix", "--corpus", corpus, "-o", dir / "x.tkl"}),
                  {"o200k", "space"});
  }
}

namespace {

// Trains a model on the English fixture with the given train arguments.
std::string train_fixture_model(const TempDir& dir, const std::string& name,
                                std::vector<std::string> args) {
  const std::string model = dir / name;
  args.insert(args.begin(), "train");
  for (const std::string& extra :
       std::vector<std::string>{"--corpus", data_file("corpus/english.txt"), "-o", model})
    args.push_back(extra);
  const RunResult trained = run_tokenlab(args);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  return model;
}

// Exports model with --verify on the fixture; returns what the export printed.
std::string export_verified(const std::string& model, const std::string& format,
                            const std::string& out) {
  const RunResult exported = run_tokenlab({"export", "-m", model, "--format", format, "-o", out,
                                           "--verify", data_file("corpus/english.txt")});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  CHECK_THAT(exported.err, Catch::Contains("verify: 0 of"));
  return exported.err;
}

// The exported file is a model wherever one is accepted, and gives the model's ids.
void check_same_encoding(const std::string& model, const std::string& exported,
                         const std::string& text) {
  const RunResult from_model = run_tokenlab({"encode", "-m", model}, text);
  const RunResult from_export = run_tokenlab({"encode", "-m", exported}, text);
  REQUIRE(from_model.exit_code == 0);
  CHECK(from_export.out == from_model.out);
}

// A refused export fails naming what is wrong, and leaves no file.
void check_refused(const std::string& model, const std::string& format, const std::string& out,
                   const std::vector<std::string>& message) {
  check_failure(run_tokenlab({"export", "-m", model, "--format", format, "-o", out}), message);
  CHECK_FALSE(std::filesystem::exists(out));
}

}  // namespace

TEST_CASE("export writes a tokenizer.json that encodes as the model, and --verify says so",
          "[cli][pretrained][export]") {
  TempDir dir;
  const std::string model = train_fixture_model(
      dir, "unigram.tkl", {"-a", "unigram", "-v", "300", "--pre-tokenizer", "whitespace"});
  const std::string json = dir / "tokenizer.json";
  export_verified(model, "tokenizer.json", json);
  check_same_encoding(model, json, "The river flows north, past the old mill.\n");

  SECTION("a model trained with every default exports, and --verify agrees") {
    const std::string defaults =
        train_fixture_model(dir, "unicode.tkl", {"-a", "bpe", "-v", "300"});
    const std::string exported = dir / "defaults.json";
    export_verified(defaults, "tokenizer.json", exported);
    check_same_encoding(defaults, exported, "The river flows north, past the old mill: 42km!\n");
  }
  SECTION("a pipeline HF cannot reproduce is refused, and no file is written") {
    check_refused(train_fixture_model(dir, "icu-words.tkl",
                                      {"-a", "bpe", "-v", "300", "--pre-tokenizer", "icu-words"}),
                  "tokenizer.json", dir / "refused.json",
                  {"--pre-tokenizer icu-words/prefix", "nearest exportable choice"});
  }
}

TEST_CASE("encode --pieces spells a byte piece <0xNN> alike for a model and its tokenizer.json",
          "[cli][pretrained][export]") {
  // The .tkl printed <0xF0> and its exported tokenizer.json \xF0: one model, two
  // spellings of the same piece (issue 26).
  TempDir dir;
  // An emoji and a CJK character the fixture does not have: both become bytes.
  const std::string line = "The ferryman \xF0\x9F\x99\x82 rang \xE6\xBC\xA2 bells\n";
  for (const std::string algorithm : {"bpe", "unigram"}) {
    INFO(algorithm);
    const std::string model = train_fixture_model(dir, algorithm + ".tkl",
                                                  {"-a", algorithm, "-v", "400", "--pre-tokenizer",
                                                   "whitespace", "--option", "byte_fallback=true"});
    const std::string json = dir / (algorithm + ".json");
    export_verified(model, "tokenizer.json", json);
    check_same_encoding(model, json, line);
    const RunResult from_model = run_tokenlab({"encode", "-m", model, "--pieces"}, line);
    const RunResult from_json = run_tokenlab({"encode", "-m", json, "--pieces"}, line);
    REQUIRE(from_model.exit_code == 0);
    REQUIRE(from_json.exit_code == 0);
    CHECK_THAT(from_model.out, Catch::Contains("<0xF0> <0x9F> <0x99> <0x82>") &&
                                   Catch::Contains("<0xE6> <0xBC> <0xA2>"));
    CHECK(from_json.out == from_model.out);
  }
}

TEST_CASE(
    "export --format tiktoken writes ranks and says the pattern; tiktoken-json carries it all",
    "[cli][pretrained][export]") {
  TempDir dir;
  const std::string model =
      train_fixture_model(dir, "bytes.tkl",
                          {"-a", "bpe", "-v", "400", "--pre-tokenizer", "o200k", "--normalization",
                           "none", "--option", "units=bytes"});
  const std::string ranks = dir / "bytes.tiktoken";
  CHECK_THAT(export_verified(model, "tiktoken", ranks), Catch::Contains("the pattern o200k_base"));
  CHECK(read_bytes(ranks).substr(0, 7) == "AA== 0\n");
  const std::string json = dir / "bytes.tiktoken.json";
  export_verified(model, "tiktoken-json", json);
  check_same_encoding(model, json, "The river flows north, past the old mill.\n");

  SECTION("a character-level BPE is refused, and no file is written") {
    check_refused(train_fixture_model(dir, "chars.tkl",
                                      {"-a", "bpe", "-v", "300", "--pre-tokenizer", "o200k"}),
                  "tiktoken", dir / "refused.tiktoken", {"character-level BPE", "units=bytes"});
  }
}

TEST_CASE("export --format sentencepiece writes a .model that encodes as the model",
          "[cli][pretrained][export]") {
  TempDir dir;
  const std::string model = train_fixture_model(
      dir, "unigram.tkl",
      {"-a", "unigram", "-v", "300", "--pre-tokenizer", "whitespace", "--normalization", "nfkc"});
  const std::string spm = dir / "unigram.model";
  export_verified(model, "sentencepiece", spm);
  // Full-width letters and a tab: the charsmap normalizes them as tokenlab does.
  check_same_encoding(model, spm,
                      "The river flows \uFF4E\uFF4F\uFF52\uFF54\uFF48,\tpast the old mill.\n");

  SECTION("a WordPiece model is refused, and no file is written") {
    check_refused(
        train_fixture_model(dir, "wordpiece.tkl",
                            {"-a", "wordpiece", "-v", "300", "--pre-tokenizer", "whitespace"}),
        "sentencepiece", dir / "refused.model", {"neither unigram nor BPE", "tokenizer.json"});
  }
}

TEST_CASE("train --like writes the file's own kind of file, or a .tkl of it",
          "[cli][pretrained][like]") {
  TempDir dir;
  const std::string like = dir / "template.json";
  const std::string corpus = dir / "corpus.txt";
  write_bytes(like, R"({"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},
"model":{"type":"BPE","vocab":{},"merges":[]}})");
  write_bytes(corpus, "The river flows.\nthe river rises\n");
  const std::string json = dir / "retrained.json";
  const RunResult trained =
      run_tokenlab({"train", "--like", like, "--corpus", corpus, "-v", "40", "-o", json});
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  CHECK_THAT(trained.err, Catch::Contains("tokenizer.json like"));
  // Lowercase kept: "The" and "the" are one word, and "river" one token.
  const RunResult encoded = run_tokenlab({"encode", "-m", json, "--pieces"}, "The river\n");
  REQUIRE(encoded.exit_code == 0);
  CHECK(encoded.out == "the river\n");

  const std::string tkl = dir / "retrained.tkl";
  REQUIRE(run_tokenlab({"train", "--like", like, "--corpus", corpus, "-v", "40", "-o", tkl})
              .exit_code == 0);
  CHECK(run_tokenlab({"encode", "-m", tkl, "--pieces"}, "The river\n").out == "the river\n");
}

TEST_CASE("train --like refuses options its file decides, and leaves no file on errors",
          "[cli][pretrained][like]") {
  TempDir dir;
  const std::string like = dir / "template.json";
  const std::string corpus = dir / "corpus.txt";
  const std::string out = dir / "out.json";
  write_bytes(
      like,
      R"({"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"BPE","vocab":{},"merges":[]}})");
  write_bytes(corpus, "abc abd\n");
  // Usage errors (exit 2): what the file decides cannot also be given.
  const auto usage_error = [](const RunResult& r, const std::vector<std::string>& words) {
    INFO(r.err);
    CHECK(r.exit_code == 2);
    for (const auto& w : words) CHECK_THAT(r.err, Catch::Contains(w));
  };
  usage_error(run_tokenlab(
                  {"train", "--like", like, "-a", "bpe", "--corpus", corpus, "-v", "9", "-o", out}),
              {"--algorithm"});
  usage_error(run_tokenlab({"train", "--like", like, "--normalization", "nfkc", "--corpus", corpus,
                            "-v", "9", "-o", out}),
              {"--normalization", "template.json"});
  usage_error(run_tokenlab({"train", "--corpus", corpus, "-v", "9", "-o", out}),
              {"--algorithm", "--like"});
  check_failure(run_tokenlab({"train", "--like", like, "--corpus", corpus, "-v", "9", "--option",
                              "limit_alphabet=x", "-o", out}),
                {"limit_alphabet=x"});
  write_bytes(dir / "bad.txt", "ok\n\xff\n");
  check_failure(
      run_tokenlab({"train", "--like", like, "--corpus", dir / "bad.txt", "-v", "9", "-o", out}),
      {"bad.txt:2", "UTF-8"});
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("train --like a SentencePiece .model writes the .model spm_train wrote",
          "[cli][pretrained][like]") {
  // bpe.model is spm_train's model of spm_text.txt at 200 pieces (tests/data/pretrained).
  TempDir dir;
  const std::string like = data_file("pretrained/bpe.model");
  const std::string out = dir / "retrained.model";
  const RunResult trained =
      run_tokenlab({"train", "--like", like, "--corpus", data_file("pretrained/spm_text.txt"), "-v",
                    "200", "-o", out});
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  CHECK_THAT(trained.err, Catch::Contains("sentencepiece like"));
  // The same pieces, scores and ids: every line of the text encodes alike, and
  // every id decodes alike. (The bytes differ only in the corpus path spm_train
  // records in the TrainerSpec, which names where the fixture was made.)
  const std::string text = data_file("pretrained/spm_text.txt");
  const RunResult ours = run_tokenlab({"encode", "-m", out, "-i", text});
  const RunResult theirs = run_tokenlab({"encode", "-m", like, "-i", text});
  REQUIRE(ours.exit_code == 0);
  CHECK(ours.out == theirs.out);
  std::string all_ids;
  for (int id = 0; id < 200; ++id) all_ids += std::to_string(id) + "\n";
  CHECK(run_tokenlab({"decode", "-m", out}, all_ids).out ==
        run_tokenlab({"decode", "-m", like}, all_ids).out);
  check_failure(
      run_tokenlab({"train", "--like", like, "--corpus", data_file("pretrained/spm_text.txt"), "-v",
                    "200", "--special-tokens", "<x>", "-o", dir / "x.model"}),
      {"control_symbols"});
}
