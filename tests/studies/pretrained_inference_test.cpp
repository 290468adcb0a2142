// Inference methods and morphology on a real tokenizer's file: a byte-level BPE
// tokenizer.json small enough to segment by hand (GPT-2's alphabet: Ġ is a space).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tokenlab/app/pretrained_inference.hpp"
#include "tokenlab/morphology.hpp"

using namespace tokenlab;

namespace {

using Ids = std::vector<TokenId>;

std::shared_ptr<const PretrainedTokenizer> byte_level_bpe() {
  return std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::from_bytes(
      R"({"model":{"type":"BPE","vocab":{"Ġ":0,"c":1,"a":2,"t":3,"s":4,"Ġc":5,"at":6,"Ġcat":7,)"
      R"("cat":8,"ats":9},"merges":["Ġ c","a t","Ġc at"]},)"
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,)"
      R"("use_regex":true},"decoder":{"type":"ByteLevel"}})",
      "tokenizer.json", "tokenizer.json"));
}

Ids encode(const TextEncoder& encoder, std::string_view text) {
  Ids ids;
  encoder.encode(text, ids);
  return ids;
}

}  // namespace

TEST_CASE("a real BPE's vocabulary runs by other methods in its own byte alphabet",
          "[studies][inference][pretrained]") {
  const auto bpe = byte_level_bpe();
  const auto subject = make_pretrained_inference_subject(bpe);
  // " cats" is the piece "Ġcats". Its merges give Ġcat + s.
  CHECK(bpe->encode(" cats") == Ids{7, 4});
  const MethodEncoder prefix(bpe, subject, InferenceMethod::longest_prefix);
  CHECK(encode(prefix, " cats") == Ids{7, 4});
  // The longest piece ending the piece is "ats", then "Ġc".
  const MethodEncoder suffix(bpe, subject, InferenceMethod::longest_suffix);
  CHECK(encode(suffix, " cats") == Ids{5, 9});
  // The reader keeps no merges: "merges" is the model's own encoding; no scores.
  CHECK(subject->can_run(InferenceMethod::merges));
  CHECK_FALSE(subject->can_run(InferenceMethod::likelihood));
  CHECK_THROWS(MethodEncoder(bpe, subject, InferenceMethod::likelihood));

  const std::vector<std::string_view> lines = {" cats", " cat"};
  const InferenceAgreement a = measure_agreement(*subject, InferenceMethod::longest_suffix, lines);
  // Ġcats: own Ġcat|s, suffix Ġc|ats: differ, no shared boundary. Ġcat: both one token.
  CHECK(a.units == 2);
  CHECK(a.differing_units == 1);
  CHECK(a.own_boundaries == 1);
  CHECK(a.method_boundaries == 1);
  CHECK(a.shared_boundaries == 0);
  CHECK(a.f1() == Approx(0.0));
}

TEST_CASE("a byte-level tokenizer's boundaries are read on the word's characters",
          "[studies][morphology][pretrained]") {
  const auto bpe = byte_level_bpe();
  // After a space the word is Ġcat|s: one boundary after "cat", Ġ decoded away.
  CHECK(token_boundaries(*bpe, "cats", true).boundaries == std::vector<std::size_t>{3});
  const MethodEncoder suffix(bpe, make_pretrained_inference_subject(bpe),
                             InferenceMethod::longest_suffix);
  CHECK(token_boundaries(suffix, "cats", true).boundaries == std::vector<std::size_t>{1});
  // Alone, "cats" is cat|s by the merges (a t, then no "c at" merge): c, at, s.
  CHECK(token_boundaries(*bpe, "cats", false).boundaries == std::vector<std::size_t>{1, 3});
}

TEST_CASE("a SentencePiece unigram's likelihood is its own encoding, cut at each ▁",
          "[studies][inference][pretrained]") {
  const auto spm = std::make_shared<const PretrainedTokenizer>(
      PretrainedTokenizer::load(TOKENLAB_TEST_DATA_DIR "/pretrained/unigram.model"));
  const auto subject = make_pretrained_inference_subject(spm);
  CHECK(subject->can_run(InferenceMethod::likelihood));
  CHECK_FALSE(subject->can_run(InferenceMethod::merges));
  const std::string line = "the quick brown fox jumps over the lazy dog";
  // The model sees the whole line; the methods see it word by word (cut before
  // each ▁), which is where a unigram model's pieces end anyway.
  const MethodEncoder likelihood(spm, subject, InferenceMethod::likelihood);
  CHECK(encode(likelihood, line) == spm->encode(line));
  const MethodEncoder fewest(spm, subject, InferenceMethod::fewest_tokens);
  CHECK(encode(fewest, line).size() <= spm->encode(line).size());
  std::size_t units = 0;
  subject->for_each_unit(line, [&](std::string_view unit, std::span<const TokenId>, bool) {
    CHECK(unit.starts_with("\xE2\x96\x81"));
    ++units;
  });
  CHECK(units == 9);
}
