// Tokenizers against each other (tokenizer_agreement.hpp) on vocabularies and
// cuts small enough to check by hand.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../pretrained/export_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/tokenizer_agreement.hpp"
#include "vocabulary_fixtures.hpp"

using namespace tokenlab;
using Strings = std::vector<std::string>;

TEST_CASE("vocabularies compare as text: ▁, Ġ and a space are one, ## marks the inside of a word",
          "[vocabulary][agreement]") {
  // BERT leaves word starts bare and marks "##ing": word starts get the space.
  CHECK(normalised_vocabulary(test::wordpiece_walk()) ==
        Strings{" talk", " the", " walk", "ed", "ing"});
  CHECK(normalised_vocabulary(test::metaspace_walk()) ==
        Strings{" ", " talk", " the", " walk", "ed", "ing"});
  // tiktoken: bytes as they are (" the" is GPT-2's "Ġthe").
  const Strings tiny = normalised_vocabulary(test::tiny_tiktoken());
  CHECK(tiny.size() == 262);
  CHECK(std::binary_search(tiny.begin(), tiny.end(), std::string(" the")));
  SECTION("Jaccard: shared entries over all entries") {
    CHECK(jaccard(normalised_vocabulary(test::wordpiece_walk()),
                  normalised_vocabulary(test::metaspace_walk())) == Approx(5.0 / 6.0));
    // w, alk, ing, talk, ed, the against walk, ing, ed, the, talk: 4 shared of 7.
    CHECK(jaccard(normalised_vocabulary(test::wordpiece_w_alk()),
                  normalised_vocabulary(test::wordpiece_walk())) == Approx(4.0 / 7.0));
    CHECK(jaccard(Strings{}, Strings{}) == 1.0);
  }
}

TEST_CASE("a word's cut: the boundaries inside it, the word-start marker not counted",
          "[vocabulary][agreement]") {
  const WordCut sp = cut_word(test::metaspace_walk(), "walking");
  CHECK(sp.text == "walking");
  CHECK(sp.boundaries == std::vector<std::uint32_t>{4});
  const WordCut wp = cut_word(test::wordpiece_w_alk(), "walking");
  CHECK(wp.text == "walking");
  CHECK(wp.boundaries == std::vector<std::uint32_t>{1, 4});
  CHECK(cut_word(test::wordpiece_walk(), "the").boundaries.empty());
}

TEST_CASE("agreement and boundary F1 between every pair, by hand", "[vocabulary][agreement]") {
  const PretrainedTokenizer wp = test::wordpiece_walk();
  const PretrainedTokenizer sp = test::metaspace_walk();
  const PretrainedTokenizer w_alk = test::wordpiece_w_alk();
  const Strings labels = {"wp", "sp", "w_alk"};
  const TextEncoder* encoders[] = {&wp, &sp, &w_alk};
  const Strings lines = {"walking talked the", "the walking"};
  const TokenizerAgreement m = compare_tokenizers(labels, encoders, lines, 2);
  CHECK(m.words == 5);
  // wp and sp cut every word alike: walk|ing, talk|ed, the.
  CHECK(m.at(m.word_agreement, 0, 1) == 1.0);
  CHECK(m.at(m.boundary_f1, 0, 1) == 1.0);
  // w_alk cuts walking (twice) as w|alk|ing: talked and the (twice) alike, 3 of 5.
  CHECK(m.at(m.word_agreement, 0, 2) == Approx(3.0 / 5.0));
  // Boundaries: wp {4} x2 + {4} = 3; w_alk {1,4} x2 + {4} = 5; shared 3.
  // F1 = 2 x 3 / (3 + 5) = 0.75.
  CHECK(m.at(m.boundary_f1, 0, 2) == Approx(0.75));
  CHECK(m.at(m.boundary_f1, 2, 0) == Approx(0.75));
  CHECK(m.at(m.jaccard, 1, 0) == Approx(5.0 / 6.0));
  CHECK(m.at(m.word_agreement, 2, 2) == 1.0);
  CHECK(m.compared[0 * 3 + 2] == 5);
}

TEST_CASE("a word one tokenizer cannot spell (an unknown token) is left out of the pair",
          "[vocabulary][agreement]") {
  const PretrainedTokenizer wp = test::wordpiece_walk();
  const PretrainedTokenizer bytes = test::tiny_tiktoken();
  const TextEncoder* encoders[] = {&wp, &bytes};
  // "xyz" is [UNK] for WordPiece (5 bytes of text), x|y|z for tiktoken: not compared.
  // "talked": talk|ed against t|a|l|k|e|d.
  const TokenizerAgreement m =
      compare_tokenizers(Strings{"wp", "bytes"}, encoders, Strings{"talked xyz"}, 1);
  CHECK(m.words == 2);
  CHECK(m.compared[1] == 1);
  CHECK(m.at(m.word_agreement, 0, 1) == 0.0);
  CHECK(m.at(m.boundary_f1, 0, 1) == Approx(2.0 * 1 / (1 + 5)));
}

TEST_CASE("a trained model and its exported tokenizer.json agree on everything",
          "[vocabulary][agreement]") {
  const Tokenizer trained = test::trained(std::make_shared<bpe::BpeSegmenter>(),
                                          NormalizerOptions{}, test::kSentencePiece, 600);
  const PretrainedTokenizer exported = PretrainedTokenizer::from_bytes(
      write_tokenizer_json(test::description_of(trained), trained.normalizer().options(),
                           trained.pre_tokenizer().options()),
      "export.json", "tokenizer.json");
  const TextEncoder* encoders[] = {&trained, &exported};
  const TokenizerAgreement m =
      compare_tokenizers(Strings{"trained", "exported"}, encoders, test::test_lines(), 2);
  CHECK(m.at(m.jaccard, 0, 1) == 1.0);
  CHECK(m.at(m.word_agreement, 0, 1) == 1.0);
  CHECK(m.at(m.boundary_f1, 0, 1) == 1.0);
  CHECK(m.compared[1] == m.words);
}
