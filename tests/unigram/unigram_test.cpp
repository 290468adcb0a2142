// The unigram segmenter: training, encoding, capabilities, persistence, options.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "support.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/unigram/unigram_model.hpp"
#include "tokenlab/unigram/unigram_trainer.hpp"
#include "tokenlab/utf8.hpp"

using namespace tokenlab;
using namespace tokenlab::unigram;
using unigram_test::kMarker;

namespace {

struct RecordingObserver : TrainingObserver {
  std::vector<TrainingStep> steps;
  void on_step(const TrainingStep& step) override { steps.push_back(step); }
  [[nodiscard]] bool trace() const override { return true; }
};

std::string saved(const Segmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

std::string field(const TrainingStep& step, const std::string& name) {
  for (const auto& [k, v] : step.fields)
    if (k == name) return v;
  return "";
}

}  // namespace

TEST_CASE("Training on the fixture corpus reaches the requested vocabulary size",
          "[unigram][train]") {
  const WordCounts counts = unigram_test::fixture_counts();
  const std::size_t vocab_size = GENERATE(60, 120, 180);
  CAPTURE(vocab_size);
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.threads = 1;
  s.train(counts, options, nullptr);
  const auto& v = s.vocabulary();
  CHECK(v.size() == vocab_size);
  CHECK(v.piece(0) == "<unk>");
  CHECK(v.unknown_id() == TokenId{0});
  CHECK(v.special_count() == 1);
  // Pieces never cross a word boundary and come best first.
  for (TokenId id = 1; id < v.size(); ++id) {
    const auto cps = utf8::split_code_points(v.piece(id));
    std::u32string code_points;
    for (const auto cp : cps) code_points.push_back(utf8::decode_at(cp, 0));
    CAPTURE(v.piece(id));
    CHECK(is_valid_piece(code_points));
    if (id > 1) CHECK(s.scores()[id - 1] >= s.scores()[id]);
    CHECK(s.scores()[id] < 0.0);
  }

  SECTION("every training word round-trips and frequent words are short") {
    std::size_t tokens = 0, with_unknown = 0, characters = 0;
    for (const auto& e : counts.entries()) {
      std::vector<TokenId> ids;
      s.encode(e.word, ids);
      // Characters seen once fall outside the 0.9995 coverage and become <unk>.
      if (std::find(ids.begin(), ids.end(), TokenId{0}) != ids.end()) {
        ++with_unknown;
        continue;
      }
      CHECK(s.decode(ids) == e.word);
      for (const auto id : ids) CHECK(id < v.size());
      characters += utf8::count_code_points(e.word);
      tokens += ids.size();
    }
    std::vector<TokenId> the;
    s.encode(kMarker + "the", the);
    CHECK(the.size() == 1);
    CHECK(tokens < characters);
    if (vocab_size >= 120) CHECK(2 * tokens < characters);
    CHECK(with_unknown < 5);
  }
}

TEST_CASE("Trained scores lie on the 1/256 grid, so equal totals tie exactly", "[unigram][train]") {
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = 120;
  s.train(unigram_test::fixture_counts(), options, nullptr);
  for (const double score : s.scores()) {
    CAPTURE(score);
    CHECK(score / kScoreGrid == std::round(score / kScoreGrid));
  }
  CHECK(on_score_grid(-1.0 / 3.0) == -85.0 / 256.0);
  CHECK(on_score_grid(-0.001) == 0.0);

  // On the grid "0" "00" and "00" "0" total exactly alike after any prefix; the
  // earliest start of the last piece decides, whatever the order of additions.
  UnigramSegmenter zeros;
  zeros.set_model({"<unk>"},
                  {{kMarker + "x", on_score_grid(-7.3)},
                   {"0", on_score_grid(-4.1)},
                   {"00", on_score_grid(-5.7)}},
                  false);
  std::vector<TokenId> ids;
  zeros.encode(kMarker + "x000", ids);
  std::vector<std::string> pieces;
  for (const auto id : ids) pieces.push_back(zeros.vocabulary().piece(id));
  CHECK(pieces == std::vector<std::string>{kMarker + "x", "0", "00"});
}

TEST_CASE("Training is deterministic whatever the thread count", "[unigram][train][determinism]") {
  const WordCounts counts = unigram_test::synthetic_counts(3000, 99);
  TrainOptions options;
  options.vocab_size = 400;
  options.threads = 1;
  UnigramSegmenter one, two, again;
  one.train(counts, options, nullptr);
  options.threads = 2;
  two.train(counts, options, nullptr);
  again.train(counts, options, nullptr);
  CHECK(one.vocabulary().size() == 400);
  CHECK(saved(one) == saved(two));
  CHECK(saved(two) == saved(again));
}

TEST_CASE("A vocabulary larger than the data supports ends smaller, with a message",
          "[unigram][train]") {
  struct Messages : TrainingObserver {
    std::vector<std::string> messages;
    void on_message(std::string_view m) override { messages.emplace_back(m); }
  } observer;
  TrainOptions options;
  options.vocab_size = 5000;
  UnigramSegmenter s;
  s.train(unigram_test::fixture_counts(), options, &observer);
  CHECK(s.vocabulary().size() < 5000);
  CHECK(std::any_of(observer.messages.begin(), observer.messages.end(),
                    [](const std::string& m) { return m.find("smaller") != std::string::npos; }));
}

TEST_CASE("Training reports EM rounds and pruning steps to a tracing observer",
          "[unigram][train][trace]") {
  const WordCounts counts = unigram_test::fixture_counts();
  TrainOptions options;
  options.vocab_size = 80;
  RecordingObserver observer;
  UnigramSegmenter s;
  s.train(counts, options, &observer);
  std::size_t em = 0, prune = 0;
  for (const auto& step : observer.steps) {
    if (step.kind == "em") {
      ++em;
      CHECK(std::stod(field(step, "objective")) > 0.0);
      CHECK(std::stod(field(step, "tokens_per_word")) >= 1.0);
      CHECK(std::stoul(field(step, "size")) > 0);
    } else if (step.kind == "prune") {
      ++prune;
      CHECK(std::stoul(field(step, "size_after")) < std::stoul(field(step, "size_before")));
    }
  }
  CHECK(em >= 2);
  CHECK(prune >= 1);
  CHECK(em % 2 == 0);  // two sub-iterations per round by default
}

TEST_CASE("Seed pieces are scored by weighted frequency times length", "[unigram][seed]") {
  WordCounts counts;
  counts.add(kMarker + "low", 5);
  counts.add(kMarker + "lower", 2);
  counts.add(kMarker + "newest", 6);
  counts.add(kMarker + "widest", 3);
  counts.add(kMarker + "wider", 2);
  TrainerConfig config;
  config.piece_target = 100;
  const SeedVocabulary seeds = make_seed_pieces(counts, config);
  REQUIRE(seeds.required_characters == 11);  // 10 letters and the marker
  // Brute force: weighted frequency of every substring of length >= 2.
  std::map<std::string, double> value;
  for (const auto& e : counts.entries()) {
    const auto cps = utf8::split_code_points(e.word);
    for (std::size_t i = 0; i < cps.size(); ++i) {
      std::string s(cps[i]);
      for (std::size_t j = i + 1; j < cps.size(); ++j) {
        s += cps[j];
        value[s] += static_cast<double>(e.count) * static_cast<double>(j - i + 1);
      }
    }
  }
  const auto& first = seeds.pieces[seeds.required_characters];
  // "est" (9 x 3) and "▁new"/"newest"-like strings compete; the best seed is the brute-force best.
  double best = 0.0;
  for (const auto& [s, v] : value) best = std::max(best, v);
  CHECK(value.at(first.piece) == best);
  std::set<std::string> seen;
  for (std::size_t i = seeds.required_characters; i < seeds.pieces.size(); ++i) {
    const auto& p = seeds.pieces[i];
    CAPTURE(p.piece);
    REQUIRE(value.count(p.piece) == 1);
    CHECK(seen.insert(p.piece).second);
    // Scores are log(value) - log(sum): their differences are exact ratios.
    CHECK(std::exp(p.score - first.score) == Approx(value.at(p.piece) / value.at(first.piece)));
  }
  // "est" occurs only followed by the word end or ... it is right-maximal and frequent: a seed.
  CHECK(seen.count("est") == 1);
  // "es" always continues with "t": dominated by "est", not a seed (as in SentencePiece).
  CHECK(seen.count("es") == 0);
}

TEST_CASE("Character coverage decides the required characters", "[unigram][seed]") {
  WordCounts counts;
  counts.add(kMarker + "aaaa", 1000);
  counts.add(kMarker + "b", 1);
  TrainerConfig config;
  config.character_coverage = 0.99;
  const auto seeds = make_seed_pieces(counts, config);
  CHECK(seeds.required_characters == 2);  // "a" and the marker; "b" is too rare
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = 10;
  options.character_coverage = 0.99;
  s.train(counts, options, nullptr);
  CHECK_FALSE(s.vocabulary().contains("b"));
  std::vector<TokenId> ids;
  s.encode(kMarker + "bb", ids);
  CHECK(std::count(ids.begin(), ids.end(), TokenId{0}) == 1);  // one <unk> for the run "bb"
}

TEST_CASE("A hand-made model encodes by Viterbi and handles unknown characters",
          "[unigram][encode]") {
  UnigramSegmenter s;
  s.set_model({"<unk>"},
              {{kMarker, -3.0}, {"a", -2.0}, {"b", -2.0}, {kMarker + "ab", -2.5}, {"ab", -3.5}},
              false);
  const auto& v = s.vocabulary();
  std::vector<TokenId> ids;
  SECTION("the segmentation is the most probable one") {
    // ▁ab + ab = -6.0 beats ▁ab + a + b = -6.5 and ▁ + a + b + ab = -10.5.
    s.encode(kMarker + "abab", ids);
    REQUIRE(ids.size() == 2);
    CHECK(v.piece(ids[0]) == kMarker + "ab");
    CHECK(v.piece(ids[1]) == "ab");
    CHECK(s.decode(ids) == kMarker + "abab");
    const auto best = s.nbest(kMarker + "abab", 1);
    REQUIRE(best.size() == 1);
    CHECK(best[0].ids == ids);
    CHECK(best[0].score == Approx(-6.0));
  }
  SECTION("unknown characters become one <unk> per run, and the rest still encodes") {
    ids.clear();
    s.encode(kMarker + "a\xD0\x96\xD0\x96" + "b", ids);
    std::vector<std::string> pieces;
    for (auto id : ids) pieces.push_back(v.piece(id));
    CHECK(pieces == std::vector<std::string>{kMarker, "a", "<unk>", "b"});
  }
  SECTION("appending keeps what the caller already had") {
    std::vector<TokenId> out = {42};
    s.encode("a", out);
    CHECK(out.size() == 2);
    CHECK(out[0] == 42);
  }
  SECTION("the empty word encodes to nothing") {
    ids.clear();
    s.encode("", ids);
    CHECK(ids.empty());
  }
}

TEST_CASE("A saved model loads into an identical segmenter", "[unigram][persistence]") {
  const WordCounts counts = unigram_test::fixture_counts();
  TrainOptions options;
  options.vocab_size = 120;
  options.extra["byte_fallback"] = GENERATE(as<std::string>{}, "false", "true");
  if (options.extra["byte_fallback"] == "true") options.vocab_size = 400;
  UnigramSegmenter trained;
  trained.train(counts, options, nullptr);
  const std::string bytes = saved(trained);
  CHECK(saved(trained) == bytes);  // same model, same bytes

  UnigramSegmenter loaded;
  std::istringstream in(bytes);
  loaded.load(in);
  CHECK(loaded.vocabulary().pieces() == trained.vocabulary().pieces());
  CHECK(loaded.scores() == trained.scores());
  CHECK(saved(loaded) == bytes);
  for (const auto& e : counts.entries()) {
    std::vector<TokenId> a, b;
    trained.encode(e.word, a);
    loaded.encode(e.word, b);
    CHECK(a == b);
  }

  SECTION("garbage, truncated and empty payloads throw Error") {
    std::istringstream garbage(std::string(200, '\x7f'));
    CHECK_THROWS_AS(loaded.load(garbage), Error);
    std::istringstream truncated(bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_AS(loaded.load(truncated), Error);
    std::istringstream empty("");
    CHECK_THROWS_AS(loaded.load(empty), Error);
    // A failed load leaves the previous model intact.
    CHECK(saved(loaded) == bytes);
  }
}

TEST_CASE("Byte fallback encodes unknown characters as their UTF-8 bytes", "[unigram][encode]") {
  UnigramSegmenter s;
  s.set_model({"<unk>"}, {{kMarker, -2.0}, {"a", -2.0}}, true);
  const auto& v = s.vocabulary();
  CHECK(v.size() == 1 + 256 + 2);
  CHECK(v.piece(1) == "<0x00>");
  CHECK(v.piece(256) == "<0xFF>");
  const std::string word = kMarker + "a\xE2\x82\xAC" + "a";  // ▁a€a
  std::vector<TokenId> ids;
  s.encode(word, ids);
  REQUIRE(ids.size() == 6);
  CHECK(v.piece(ids[2]) == "<0xE2>");
  CHECK(v.piece(ids[3]) == "<0x82>");
  CHECK(v.piece(ids[4]) == "<0xAC>");
  CHECK(s.decode(ids) == word);
  SECTION("ill-formed UTF-8 still round-trips byte by byte") {
    const std::string bad = "a\xFF\xC3";
    ids.clear();
    s.encode(bad, ids);
    CHECK(s.decode(ids) == bad);
  }
}

TEST_CASE("Sampled encodings are valid segmentations and reproducible", "[unigram][sampling]") {
  // Many segmentations per word (a trained model on a tiny corpus mostly keeps
  // whole words); the exact distribution is checked in lattice_test.cpp.
  const auto vocab = unigram_test::small_vocabulary();
  UnigramSegmenter s;
  s.set_model({"<unk>"}, std::vector<std::pair<std::string, double>>(vocab.begin(), vocab.end()),
              false);
  const std::string word = kMarker + "lowestwider";
  SamplingOptions sampling;
  sampling.alpha = 0.1;
  std::uint64_t rng = 5;
  std::set<std::vector<TokenId>> distinct;
  for (int i = 0; i < 200; ++i) {
    std::vector<TokenId> ids;
    s.encode_sampled(word, sampling, rng, ids);
    CHECK(s.decode(ids) == word);
    distinct.insert(ids);
  }
  CHECK(distinct.size() > 5);  // low alpha: many segmentations

  std::uint64_t rng_a = 77, rng_b = 77;
  std::vector<TokenId> a, b;
  s.encode_sampled(word, sampling, rng_a, a);
  s.encode_sampled(word, sampling, rng_b, b);
  CHECK(a == b);
  CHECK(rng_a == rng_b);

  SECTION("a very large alpha concentrates on the Viterbi segmentation") {
    sampling.alpha = 1000.0;
    std::vector<TokenId> best, drawn;
    s.encode(word, best);
    s.encode_sampled(word, sampling, rng, drawn);
    CHECK(drawn == best);
  }
  SECTION("a non-finite alpha is rejected") {
    sampling.alpha = std::nan("");
    std::vector<TokenId> ids;
    CHECK_THROWS_AS(s.encode_sampled(word, sampling, rng, ids), Error);
  }
}

TEST_CASE("n-best segmentations are distinct, sorted and start with Viterbi", "[unigram][nbest]") {
  const auto vocab = unigram_test::small_vocabulary();
  UnigramSegmenter s;
  s.set_model({"<unk>"}, std::vector<std::pair<std::string, double>>(vocab.begin(), vocab.end()),
              false);
  const std::string word = kMarker + "newest";
  const auto nbest = s.nbest(word, 8);
  REQUIRE(nbest.size() == 8);
  std::vector<TokenId> best;
  s.encode(word, best);
  CHECK(nbest[0].ids == best);
  std::set<std::vector<TokenId>> distinct;
  for (std::size_t i = 0; i < nbest.size(); ++i) {
    CHECK(s.decode(nbest[i].ids) == word);
    double score = 0.0;
    for (const auto id : nbest[i].ids) score += s.scores()[id];
    CHECK(nbest[i].score == Approx(score));
    if (i > 0) CHECK(nbest[i - 1].score >= nbest[i].score);
    distinct.insert(nbest[i].ids);
  }
  CHECK(distinct.size() == nbest.size());
  CHECK(s.nbest(word, 0).empty());

  SECTION("on a trained model the best of n is the encoding, for every word") {
    TrainOptions options;
    options.vocab_size = 100;
    const WordCounts counts = unigram_test::fixture_counts();
    s.train(counts, options, nullptr);
    for (const auto& e : counts.entries()) {
      std::vector<TokenId> ids;
      s.encode(e.word, ids);
      const auto top = s.nbest(e.word, 2);
      REQUIRE(!top.empty());
      CHECK(top[0].ids == ids);
    }
  }
}

TEST_CASE("Concurrent encoding equals serial encoding", "[unigram][threads]") {
  const WordCounts counts = unigram_test::synthetic_counts(2000, 3);
  TrainOptions options;
  options.vocab_size = 300;
  UnigramSegmenter s;
  s.train(counts, options, nullptr);
  std::vector<std::vector<TokenId>> serial(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) s.encode(counts.entries()[i].word, serial[i]);
  std::vector<std::vector<std::vector<TokenId>>> results(
      4, std::vector<std::vector<TokenId>>(counts.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 2; ++round)
        for (std::size_t i = 0; i < counts.size(); ++i) {
          results[t][i].clear();
          s.encode(counts.entries()[(i * (t + 1)) % counts.size()].word, results[t][i]);
        }
    });
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t i = 0; i < counts.size(); ++i)
      CHECK(results[t][i] == serial[(i * (t + 1)) % counts.size()]);

  SECTION("retraining invalidates the per-thread cache") {
    options.vocab_size = 100;
    const std::string& word = counts.entries()[0].word;
    std::vector<TokenId> before, after, fresh;
    s.encode(word, before);
    s.train(counts, options, nullptr);
    s.encode(word, after);
    UnigramSegmenter other;
    other.train(counts, options, nullptr);
    other.encode(word, fresh);
    CHECK(after == fresh);
  }
}

TEST_CASE("Bad options are rejected with a clear Error", "[unigram][options]") {
  WordCounts counts;
  counts.add(kMarker + "abc", 3);
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = 50;

  SECTION("an unknown key lists the valid ones") {
    options.extra["seedsize"] = "10";
    try {
      s.train(counts, options, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      const std::string message = e.what();
      CHECK(message.find("seedsize") != std::string::npos);
      for (const char* key : {"seed_size", "max_piece_length", "shrinking_factor",
                              "num_sub_iterations", "byte_fallback"})
        CHECK(message.find(key) != std::string::npos);
    }
  }
  SECTION("out-of-range or malformed values") {
    const auto [key, value] = GENERATE(table<std::string, std::string>({
        {"shrinking_factor", "1"},
        {"shrinking_factor", "0"},
        {"shrinking_factor", "1.5"},
        {"num_sub_iterations", "0"},
        {"max_piece_length", "0"},
        {"max_piece_length", "300"},
        {"seed_size", "abc"},
        {"byte_fallback", "maybe"},
    }));
    CAPTURE(key, value);
    options.extra[key] = value;
    CHECK_THROWS_AS(s.train(counts, options, nullptr), Error);
  }
  SECTION("a vocabulary too small for the byte tokens") {
    options.extra["byte_fallback"] = "true";
    CHECK_THROWS_AS(s.train(counts, options, nullptr), Error);
  }
  SECTION("a vocabulary with no room for any piece") {
    options.vocab_size = 1;
    CHECK_THROWS_AS(s.train(counts, options, nullptr), Error);
  }
}

TEST_CASE("Options change training as documented", "[unigram][options]") {
  const WordCounts counts = unigram_test::fixture_counts();
  TrainOptions options;
  options.vocab_size = 150;
  options.extra["max_piece_length"] = "3";
  UnigramSegmenter s;
  s.train(counts, options, nullptr);
  for (TokenId id = 1; id < s.vocabulary().size(); ++id)
    CHECK(utf8::count_code_points(s.vocabulary().piece(id)) <= 3);

  SECTION("custom special tokens come first, <unk> is added when missing") {
    options.special_tokens = std::vector<std::string>{"<s>", "</s>"};
    s.train(counts, options, nullptr);
    const auto& v = s.vocabulary();
    CHECK(v.special_count() == 3);
    CHECK(v.size() == 150);
    REQUIRE(v.unknown_id().has_value());
    CHECK(v.piece(*v.unknown_id()) == "<unk>");
  }
  SECTION("an empty corpus gives a vocabulary of special tokens only") {
    s.train(WordCounts{}, options, nullptr);
    CHECK(s.vocabulary().size() == 1);
    std::vector<TokenId> ids;
    s.encode(kMarker + "x", ids);
    CHECK(ids == std::vector<TokenId>{0});
  }
}

TEST_CASE("By default unigram adds byte pieces when the vocabulary has room",
          "[unigram][byte-fallback]") {
  const WordCounts counts = unigram_test::fixture_counts();
  TrainOptions options;
  SECTION("room for them: unseen characters become their UTF-8 bytes, losslessly") {
    options.vocab_size = 400;
    UnigramSegmenter unigram;
    unigram.train(counts, options, nullptr);
    CHECK(unigram.byte_fallback());
    std::vector<TokenId> ids;
    unigram.encode(kMarker + "~\xE2\x80\x94", ids);
    CHECK(std::find(ids.begin(), ids.end(), *unigram.vocabulary().unknown_id()) == ids.end());
    CHECK(unigram.decode(ids) == kMarker + "~\xE2\x80\x94");
  }
  SECTION("no room: the plain alphabet, as before") {
    options.vocab_size = 120;
    UnigramSegmenter unigram;
    unigram.train(counts, options, nullptr);
    CHECK_FALSE(unigram.byte_fallback());
  }
  SECTION("byte_fallback=false reproduces SentencePiece's default") {
    options.vocab_size = 400;
    options.extra["byte_fallback"] = "false";
    UnigramSegmenter unigram;
    unigram.train(counts, options, nullptr);
    CHECK_FALSE(unigram.byte_fallback());
  }
}

TEST_CASE("max_steps stops training after that many pruning steps", "[unigram][train]") {
  const WordCounts counts = unigram_test::fixture_counts();
  TrainOptions options;
  options.vocab_size = 60;
  options.threads = 1;
  const auto prune_steps = [&](std::size_t max_steps) {
    options.max_steps = max_steps;
    RecordingObserver observer;
    UnigramSegmenter s;
    s.train(counts, options, &observer);
    return std::count_if(observer.steps.begin(), observer.steps.end(),
                         [](const TrainingStep& step) { return step.kind == "prune"; });
  };
  const auto unlimited = prune_steps(0);
  REQUIRE(unlimited > 2);  // the fixture needs several pruning steps to reach 60
  CHECK(prune_steps(1) == 1);
  CHECK(prune_steps(2) == 2);
}
