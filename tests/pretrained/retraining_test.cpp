// train --like a tokenizer.json (retrain_like): what is kept from the file, what
// is taken from transformers' train_new_from_iterator, what is refused.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "../common/temp_files.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/pretrained/retraining.hpp"

using tokenlab::PretrainedTokenizer;
using tokenlab::retrain_like;
using tokenlab::RetrainingRequest;
using tokenlab::test::TempDir;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A BERT-like template: two special tokens, a TemplateProcessing that names them
// with the ids of an older vocabulary (100, 101), a non-special added token.
const char* const kBertLike = R"({"version":"1.0","truncation":null,"padding":null,
"added_tokens":[{"id":100,"content":"[CLS]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
{"id":101,"content":"[SEP]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
{"id":102,"content":"<note>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}],
"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},
"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[100],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[101],"tokens":["[SEP]"]}}},
"decoder":{"type":"WordPiece","prefix":"##","cleanup":true},
"model":{"type":"WordPiece","unk_token":"[CLS]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{}}})";

}  // namespace

TEST_CASE(
    "train --like keeps the pipeline, puts the special tokens first and renumbers the "
    "post-processor",
    "[pretrained][retraining]") {
  TempDir dir;
  write(dir / "bert.json", kBertLike);
  write(dir / "corpus.txt", "Hug hug HUGS\npug hugs\n");
  RetrainingRequest request;
  request.like = (dir / "bert.json").string();
  request.corpus = {(dir / "corpus.txt").string()};
  request.vocab_size = 100;
  std::vector<std::string> notes;
  const auto out = retrain_like(request, [&](const std::string& n) { notes.push_back(n); });
  CHECK(out.format == "tokenizer.json");
  CHECK(notes.empty());
  const auto tokenizer = PretrainedTokenizer::from_bytes(out.content, "retrained.json");
  CHECK(tokenizer.token(0) == "[CLS]");
  CHECK(tokenizer.token(1) == "[SEP]");
  CHECK(tokenizer.token(2) == "g");  // the alphabet after the specials
  // The normalizer (Lowercase) is kept: "HUGS" counted as "hugs".
  CHECK(tokenizer.encode("HUGS").size() == 1);
  // The non-special added token comes after the new vocabulary.
  CHECK(out.content.find("\"id\": " + std::to_string(out.vocabulary_size - 1) +
                         ",\n      \"content\": \"<note>\"") != std::string::npos);
  CHECK(out.content.find("\"ids\": [\n          0\n        ]") != std::string::npos);
  CHECK(out.content.find("\"ids\": [\n          1\n        ]") != std::string::npos);
}

TEST_CASE("train --like refuses what it cannot reproduce, naming the file and the place",
          "[pretrained][retraining]") {
  TempDir dir;
  write(dir / "corpus.txt", "hello world\n");
  RetrainingRequest request;
  request.corpus = {(dir / "corpus.txt").string()};
  request.vocab_size = 50;
  const auto note = [](const std::string&) {};

  write(dir / "unigram.json", R"({"model":{"type":"Unigram","unk_id":null,"vocab":[["a",-1.0]]}})");
  request.like = (dir / "unigram.json").string();
  CHECK_THROWS_WITH(retrain_like(request, note),
                    Catch::Contains("unigram.json: model.type") && Catch::Contains("Unigram"));

  write(dir / "bpe.json",
        R"({"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"BPE","vocab":{},"merges":[]}})");
  request.like = (dir / "bpe.json").string();
  request.options = {{"limit_alphabet", "ten"}};
  CHECK_THROWS_WITH(retrain_like(request, note), Catch::Contains("limit_alphabet=ten"));
  request.options = {{"dropout", "0.1"}};
  CHECK_THROWS_WITH(retrain_like(request, note),
                    Catch::Contains("dropout") && Catch::Contains("min_frequency"));
  request.options.clear();

  write(dir / "bad.txt", "fine\nbad \xC3\x28 here\n");
  request.corpus = {(dir / "bad.txt").string()};
  CHECK_THROWS_WITH(retrain_like(request, note),
                    Catch::Contains("bad.txt:2") && Catch::Contains("UTF-8"));
}

TEST_CASE("train --like notes an unknown token the new vocabulary lacks, as HF leaves it",
          "[pretrained][retraining]") {
  TempDir dir;
  write(dir / "corpus.txt", "abc abd\n");
  write(
      dir / "bpe.json",
      R"({"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"BPE","unk_token":"<unk>","vocab":{},"merges":[]}})");
  RetrainingRequest request;
  request.like = (dir / "bpe.json").string();
  request.corpus = {(dir / "corpus.txt").string()};
  request.vocab_size = 50;
  std::vector<std::string> notes;
  retrain_like(request, [&](const std::string& n) { notes.push_back(n); });
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("unk_token \"<unk>\""));
  request.special_tokens = std::vector<std::string>{"<unk>"};
  notes.clear();
  const auto out = retrain_like(request, [&](const std::string& n) { notes.push_back(n); });
  CHECK(notes.empty());
  CHECK(PretrainedTokenizer::from_bytes(out.content, "x.json").token(0) == "<unk>");
}
