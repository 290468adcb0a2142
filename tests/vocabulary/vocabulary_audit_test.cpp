// The vocabulary audit (vocabulary_audit.hpp) on fixtures counted by hand, on a
// model trained here against its own exported tokenizer.json, and GPT-2's
// published figures (Land & Bartolo 2024: 256 single bytes, 216 partial UTF-8).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../pretrained/export_support.hpp"
#include "common/skip.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/vocabulary_audit.hpp"
#include "vocabulary_fixtures.hpp"

using namespace tokenlab;

TEST_CASE("the audit counts single bytes, partial UTF-8, unreachable and special entries",
          "[vocabulary][audit]") {
  const PretrainedTokenizer t = test::tiny_tiktoken();
  const std::vector<std::string> lines = {"abc the", "ab"};
  const std::vector<std::string> words = {"abc", "the", "a.", "zz", "has space", ""};
  const VocabularyAudit a =
      audit_vocabulary(t, {.evaluation_lines = lines, .word_list = words, .threads = 2});
  CHECK(a.ids == 50257);    // <|endoftext|> at 50256, the ids between are gaps
  CHECK(a.entries == 263);  // 256 bytes + 6 merges + 1 special
  CHECK(a.single_byte == 256);
  CHECK(a.partial_utf8 == 2);  // "\xE2\x80" and " \xE2\x80"; the bytes 0x80-0xFF are single
  CHECK(a.special == 1);
  CHECK(a.added == 0);
  CHECK(a.byte_fallback == 0);
  // Tested: the 128 ASCII bytes, "ab", "abc", " the", "a."; only "a." fails.
  CHECK(a.reachability_tested == 132);
  CHECK(a.unreachable == 1);
  CHECK(a.unreachable_examples == std::vector<std::string>{"a."});
  SECTION("never used: every text entry but abc, the and ab") {
    REQUIRE(a.evaluated);
    CHECK(a.evaluation_tokens == 3);
    CHECK(a.never_used == 262 - 3);
  }
  SECTION(
      "retention: a word with a space or no text is dropped; abc is one token alone, the "
      "after a space") {
    CHECK(a.words == 4);
    CHECK(a.words_single_token == 1);
    CHECK(a.words_single_token_spaced == 1);
    CHECK(a.retention() == Approx(0.25));
    CHECK(a.retention_spaced() == Approx(0.25));
  }
}

TEST_CASE("the audit gives the same counts at every thread count", "[vocabulary][audit]") {
  const PretrainedTokenizer t = test::tiny_tiktoken();
  const std::vector<std::string> lines = {"abc the", "ab", "a. —"};
  const VocabularyAudit one = audit_vocabulary(t, {.evaluation_lines = lines, .threads = 1});
  const VocabularyAudit four = audit_vocabulary(t, {.evaluation_lines = lines, .threads = 4});
  CHECK(one.never_used == four.never_used);
  CHECK(one.unreachable == four.unreachable);
  CHECK(one.partial_utf8 == four.partial_utf8);
  CHECK_FALSE(audit_vocabulary(t, {}).evaluated);
}

TEST_CASE(
    "WordPiece: ## pieces are continuations, not tested for reachability, and [UNK] is special",
    "[vocabulary][audit]") {
  const VocabularyAudit a = audit_vocabulary(test::wordpiece_walk(), {});
  CHECK(a.entries == 6);
  CHECK(a.special == 1);
  CHECK(a.continuation == 2);
  CHECK(a.reachability_tested == 3);  // walk, the, talk
  CHECK(a.unreachable == 0);
  CHECK(a.single_byte == 0);
}

TEST_CASE("a model trained here audits the same from its Tokenizer and its tokenizer.json",
          "[vocabulary][audit]") {
  const Tokenizer trained = test::trained(std::make_shared<bpe::BpeSegmenter>(),
                                          NormalizerOptions{}, test::kSentencePiece, 600);
  const PretrainedTokenizer exported = PretrainedTokenizer::from_bytes(
      write_tokenizer_json(test::description_of(trained), trained.normalizer().options(),
                           trained.pre_tokenizer().options()),
      "export.json", "tokenizer.json");
  const auto& lines = test::test_lines();
  const VocabularyAudit a = audit_vocabulary(trained, {.evaluation_lines = lines});
  const VocabularyAudit b = audit_vocabulary(exported, {.evaluation_lines = lines});
  CHECK(a.entries == b.entries);
  CHECK(a.byte_fallback == 256);  // BPE's byte pieces <0x00>..<0xFF>
  CHECK(a.byte_fallback == b.byte_fallback);
  CHECK(a.single_byte == b.single_byte);
  CHECK(a.partial_utf8 == 0);
  CHECK(b.partial_utf8 == 0);
  CHECK(a.special == b.special);
  CHECK(a.never_used == b.never_used);
  for (TokenId id = 0; id < trained.vocabulary_size(); ++id) {
    CAPTURE(id, trained.display_piece(id));
    CHECK(trained.vocabulary_entry(id).text == exported.vocabulary_entry(id).text);
    CHECK(trained.vocabulary_entry(id).kind == exported.vocabulary_entry(id).kind);
  }
}

TEST_CASE("r50k_base (GPT-2): 256 single-byte tokens, 216 multi-byte partial UTF-8, 1 special",
          "[vocabulary][audit][reference]") {
  const auto file = test::tiktoken_encoders() / "r50k_base.json";
  if (!std::filesystem::exists(file))
    TOKENLAB_SKIP(file.string() << " missing: run tools/scripts/fetch-references");
  const PretrainedTokenizer gpt2 = PretrainedTokenizer::load(file);
  const VocabularyAudit a = audit_vocabulary(gpt2, {});
  CHECK(a.ids == 50257);
  CHECK(a.entries == 50257);
  CHECK(a.single_byte == 256);
  CHECK(a.partial_utf8 == 216);
  CHECK(a.special == 1);
  CHECK(a.added == 0);
}

TEST_CASE("a SentencePiece .model: its CONTROL pieces and <unk> are special, the piece ▁ is not",
          "[vocabulary][audit]") {
  // tests/data/pretrained/unigram.model: <unk>, <s>, </s>, then "▁" and 196 more pieces.
  const PretrainedTokenizer t =
      PretrainedTokenizer::load(TOKENLAB_TEST_DATA_DIR "/pretrained/unigram.model");
  const VocabularyAudit a = audit_vocabulary(t, {});
  CHECK(a.entries == 200);
  CHECK(a.special == 3);
  CHECK(a.added == 0);
  CHECK(t.vocabulary_entry(3).kind == EntryKind::normal);
  CHECK(t.vocabulary_entry(3).text == " ");
}
