// compare --audit and --agreement (CompareOptions::audit, agreement): every row
// of a run, whether trained in it, given as a model trained before, or a real
// model's tokenizer, audited and compared the same way, and written to the
// reports (audit.csv, agreement.csv, heat maps in report.html).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "../experiments/experiments_support.hpp"
#include "../pretrained/export_support.hpp"
#include "common/temp_files.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/compare.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/report_bundle.hpp"
#include "tokenlab/vocabulary_report.hpp"
#include "vocabulary_fixtures.hpp"

using namespace tokenlab;

namespace {

const LabelAudit& audit_of(const CompareResult& r, const std::string& label) {
  for (const auto& a : r.audits)
    if (a.label == label) return a;
  FAIL("no audit for " << label);
  return r.audits.front();
}

std::size_t index_of(const TokenizerAgreement& m, const std::string& label) {
  for (std::size_t i = 0; i < m.labels.size(); ++i)
    if (m.labels[i] == label) return i;
  FAIL("no matrix row for " << label);
  return 0;
}

}  // namespace

TEST_CASE("compare audits and compares every row: trained, model and real tokenizer alike",
          "[vocabulary][compare]") {
  test::TempDir dir;
  std::string corpus;
  for (int i = 0; i < 20; ++i)
    for (const auto& line : test::training_lines()) corpus += line + "\n";
  for (const auto& line : test::test_lines()) corpus += line + "\n";
  test::write_bytes(dir / "corpus.txt", corpus);
  test::write_bytes(dir / "words.txt", "the\nlowest\nzebra\n");

  CompareOptions o;
  o.corpus_files = {(dir / "corpus.txt").string()};
  o.algorithms = {"bpe"};
  o.training.vocab_size = 600;
  o.training.threads = 2;
  o.bootstrap_samples = 0;
  o.audit = true;
  o.audit_words = (dir / "words.txt").string();
  o.agreement = true;
  o.pre_tokenizer = test::kSentencePiece;  // what tokenizer.json can express
  // The same model three ways: a Tokenizer (as a .tkl loads), and its tokenizer.json
  // read as a real model's tokenizer.
  auto model = std::make_shared<const Tokenizer>(
      test::trained(std::make_shared<bpe::BpeSegmenter>(), o.normalizer, o.pre_tokenizer, 600));
  o.models.push_back({"model", "model.tkl", model});
  o.pretrained.push_back(
      {"exported", "export.json",
       std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::from_bytes(
           write_tokenizer_json(test::description_of(*model), model->normalizer().options(),
                                model->pre_tokenizer().options()),
           "export.json", "tokenizer.json")),
       nullptr});
  o.pretrained.push_back({"bert", "tokenizer.json",
                          std::make_shared<const PretrainedTokenizer>(test::wordpiece_walk()),
                          nullptr});

  const CompareResult r = run_compare(test::experiments_registry(), o);
  REQUIRE(r.audits.size() == 4);
  for (const auto& a : r.audits) {
    CAPTURE(a.label);
    CHECK(a.error.empty());
    CHECK(a.audit.evaluated);
    CHECK(a.audit.words == 3);
  }
  const VocabularyAudit& m = audit_of(r, "model").audit;
  const VocabularyAudit& e = audit_of(r, "exported").audit;
  CHECK(m.entries == e.entries);
  CHECK(m.never_used == e.never_used);
  CHECK(m.words_single_token == e.words_single_token);
  CHECK(audit_of(r, "bert").audit.continuation == 2);

  REQUIRE(r.agreement.size() == 1);
  const TokenizerAgreement& a = r.agreement.front().matrix;
  CHECK(a.labels == std::vector<std::string>{"bpe", "model", "exported", "bert"});
  const std::size_t i = index_of(a, "model");
  const std::size_t j = index_of(a, "exported");
  CHECK(a.at(a.jaccard, i, j) == 1.0);
  CHECK(a.at(a.word_agreement, i, j) == 1.0);
  CHECK(a.at(a.boundary_f1, i, j) == 1.0);
  CHECK(a.at(a.jaccard, i, index_of(a, "bert")) < 0.1);

  SECTION("the reports hold the audit and the pairs, and report.html the heat maps") {
    const ReportTable audit = audit_table(r);
    CHECK(audit.rows.size() == 4);
    CHECK(agreement_table(r).rows.size() == 4 * 3);
    std::filesystem::create_directories(dir / "report");
    (void)write_compare_reports(dir / "report", r);
    CHECK(std::filesystem::exists(dir / "report" / "audit.csv"));
    CHECK(std::filesystem::exists(dir / "report" / "agreement.csv"));
    const std::string html = test::read_bytes(dir / "report" / "report.html");
    CHECK(html.find("Vocabulary audit") != std::string::npos);
    CHECK(html.find("Boundary F1") != std::string::npos);
    CHECK(html.find("<rect") != std::string::npos);
  }
}

TEST_CASE("the heat map draws one cell per pair with its value", "[vocabulary][report]") {
  const std::string svg = heat_map_svg("t", {"a", "b"}, {1.0, 0.25, 0.25, 1.0});
  std::size_t cells = 0;
  for (std::size_t at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1))
    ++cells;
  CHECK(cells == 4);
  CHECK(svg.find(">0.25<") != std::string::npos);
  CHECK(svg.find("a / b: 0.2500") != std::string::npos);
}

TEST_CASE("with per-language training, each language has its own audits and matrix",
          "[vocabulary][compare]") {
  test::TempDir dir;
  std::string en;
  std::string de;
  // Distinct lines: the held-out split is by line hash, so copies of one line
  // would all fall on one side.
  for (int i = 0; i < 30; ++i) {
    en += "the walking man talked to the walking woman " + std::to_string(i) + "\n";
    de += "der laufende Mann sprach mit der laufenden Frau " + std::to_string(i) + "\n";
  }
  test::write_bytes(dir / "en.txt", en);
  test::write_bytes(dir / "de.txt", de);
  CompareOptions o;
  o.languages = {{"en", {(dir / "en.txt").string()}}, {"de", {(dir / "de.txt").string()}}};
  o.per_language = true;
  o.algorithms = {"bpe"};
  o.training.vocab_size = 300;
  o.training.threads = 1;
  o.held_out = 0.5;
  o.bootstrap_samples = 0;
  o.audit = true;
  o.agreement = true;
  o.pretrained.push_back({"walk", "tokenizer.json",
                          std::make_shared<const PretrainedTokenizer>(test::metaspace_walk()),
                          nullptr});
  const CompareResult r = run_compare(test::experiments_registry(), o);
  REQUIRE(r.audits.size() == 3);
  CHECK(r.audits[0].label == "bpe");
  CHECK(r.audits[0].language == "en");
  CHECK(r.audits[1].language == "de");
  CHECK(r.audits[2].label == "walk");
  CHECK(r.audits[2].language.empty());
  REQUIRE(r.agreement.size() == 2);
  CHECK(r.agreement[0].language == "en");
  CHECK(r.agreement[1].language == "de");
  // In each language: that language's bpe and the tokenizer that serves all.
  CHECK(r.agreement[0].matrix.labels == std::vector<std::string>{"bpe", "walk"});
  CHECK(r.agreement[1].matrix.labels == std::vector<std::string>{"bpe", "walk"});
  CHECK(r.agreement[0].matrix.words > 0);
}

TEST_CASE("a word list without --audit, or one that cannot be read, fails before any training",
          "[vocabulary][compare]") {
  test::TempDir dir;
  test::write_bytes(dir / "corpus.txt", "a b c\n");
  CompareOptions o;
  o.corpus_files = {(dir / "corpus.txt").string()};
  o.algorithms = {"bpe"};
  o.audit_words = (dir / "words.txt").string();
  CHECK_THROWS_WITH(run_compare(test::experiments_registry(), o),
                    Catch::Contains("give --audit with it"));
  o.audit = true;
  CHECK_THROWS_WITH(run_compare(test::experiments_registry(), o),
                    Catch::Contains("words.txt: cannot read the word list"));
}
