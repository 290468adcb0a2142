// Training: the textbook golden trace, agreement with a naive reference trainer,
// replay of the learned merges, determinism across thread counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bpe_test_support.hpp"
#include "tokenlab/bpe/bpe_model.hpp"
#include "tokenlab/bpe/bpe_trainer.hpp"
#include "tokenlab/bpe/pair_queue.hpp"
#include "tokenlab/utf8.hpp"

using namespace tokenlab;
using namespace tokenlab::bpe;
using namespace tokenlab::bpe::test;

namespace {

struct NaiveMerge {
  TokenId left;
  TokenId right;
  TokenId result;
  std::uint64_t count;
};

// The textbook algorithm, written for clarity: every step recounts all pairs in an
// insertion-ordered table (scan words in order, left to right), takes the most
// frequent (first in the table on ties, or the smaller id pair for "hf"), and
// rewrites every word left to right. Pairs whose text already exists, or that are
// too long, are never merged, as in the fast trainer.
std::vector<NaiveMerge> naive_train(std::vector<std::vector<TokenId>> words,
                                    const std::vector<std::uint64_t>& counts,
                                    std::vector<std::string> pieces, std::size_t vocab_size,
                                    std::uint64_t min_count, std::size_t max_length, TieBreak tie) {
  std::vector<NaiveMerge> merges;
  std::set<std::pair<TokenId, TokenId>> banned;
  std::vector<std::size_t> units(pieces.size(), 1);
  while (pieces.size() < vocab_size) {
    std::vector<std::pair<std::pair<TokenId, TokenId>, std::uint64_t>> table;
    std::map<std::pair<TokenId, TokenId>, std::size_t> where;
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::size_t j = 0; j + 1 < words[w].size(); ++j) {
        const std::pair<TokenId, TokenId> p{words[w][j], words[w][j + 1]};
        if (banned.count(p) || (max_length > 0 && units[p.first] + units[p.second] > max_length))
          continue;
        const auto [it, fresh] = where.emplace(p, table.size());
        if (fresh) table.push_back({p, 0});
        table[it->second].second += counts[w];
      }
    const std::pair<std::pair<TokenId, TokenId>, std::uint64_t>* best = nullptr;
    for (const auto& e : table)
      if (e.second >= min_count &&
          (best == nullptr || e.second > best->second ||
           (e.second == best->second && tie == TieBreak::kSmallerIds && e.first < best->first)))
        best = &e;
    if (best == nullptr) break;
    const auto [a, b] = best->first;
    const std::string text = pieces[a] + pieces[b];
    if (std::find(pieces.begin(), pieces.end(), text) != pieces.end()) {
      banned.insert(best->first);
      continue;
    }
    const auto result = static_cast<TokenId>(pieces.size());
    merges.push_back({a, b, result, best->second});
    pieces.push_back(text);
    units.push_back(units[a] + units[b]);
    for (auto& word : words) {
      std::vector<TokenId> out;
      for (std::size_t j = 0; j < word.size(); ++j) {
        if (j + 1 < word.size() && word[j] == a && word[j + 1] == b) {
          out.push_back(result);
          ++j;
        } else {
          out.push_back(word[j]);
        }
      }
      word = std::move(out);
    }
  }
  return merges;
}

struct Trained {
  std::vector<MergeRule> merges;
  std::vector<std::uint64_t> counts;
  std::vector<std::string> base_pieces;  // specials and alphabet: the vocabulary before merges
};

Trained train_fast(BpeSegmenter& bpe, const WordCounts& words, TrainOptions options) {
  Recorder recorder;
  bpe.train(words, options, &recorder);
  Trained t;
  t.merges = bpe.merges();
  for (const auto& step : recorder.steps) t.counts.push_back(std::stoull(step.fields.at(1).second));
  const auto& pieces = bpe.vocabulary().pieces();
  t.base_pieces.assign(pieces.begin(), pieces.end() - static_cast<std::ptrdiff_t>(t.merges.size()));
  return t;
}

std::vector<NaiveMerge> train_naive(const WordCounts& counts, const std::vector<std::string>& base,
                                    const TrainOptions& options, std::size_t max_length,
                                    TieBreak tie) {
  std::vector<std::vector<TokenId>> words;
  std::vector<std::uint64_t> weights;
  for (const auto& e : counts.entries()) {
    std::vector<TokenId> ids;
    for (const auto cp : utf8::split_code_points(e.word)) {
      const auto it = std::find(base.begin(), base.end(), std::string(cp));
      REQUIRE(it != base.end());
      ids.push_back(static_cast<TokenId>(it - base.begin()));
    }
    words.push_back(std::move(ids));
    weights.push_back(e.count);
  }
  return naive_train(std::move(words), weights, base, options.vocab_size,
                     std::max<std::uint64_t>(1, options.min_frequency), max_length, tie);
}

void check_agreement(const WordCounts& counts, TrainOptions options, std::size_t max_length,
                     TieBreak tie) {
  options.character_coverage = 1.0;
  options.extra["tie_break"] = tie == TieBreak::kFirstSeen ? "first-seen" : "hf";
  if (max_length > 0) options.extra["max_token_length"] = std::to_string(max_length);
  BpeSegmenter bpe;
  const Trained fast = train_fast(bpe, counts, options);
  const auto naive = train_naive(counts, fast.base_pieces, options, max_length, tie);
  REQUIRE(fast.merges.size() == naive.size());
  REQUIRE(fast.counts.size() == naive.size());
  for (std::size_t r = 0; r < naive.size(); ++r) {
    CAPTURE(r, bpe.vocabulary().piece(naive[r].left), bpe.vocabulary().piece(naive[r].right));
    REQUIRE(fast.merges[r].left == naive[r].left);
    REQUIRE(fast.merges[r].right == naive[r].right);
    REQUIRE(fast.merges[r].result == naive[r].result);
    REQUIRE(fast.counts[r] == naive[r].count);
  }
}

TrainOptions textbook_options() {
  TrainOptions options;
  options.vocab_size = 19;
  options.special_tokens = std::vector<std::string>{};
  options.threads = 1;
  return options;
}

std::vector<std::string> pieces_of(const BpeSegmenter& bpe, const std::vector<TokenId>& ids) {
  std::vector<std::string> out;
  for (const TokenId id : ids) out.push_back(bpe.vocabulary().piece(id));
  return out;
}

std::string saved(const BpeSegmenter& bpe) {
  std::ostringstream out;
  bpe.save(out);
  return out.str();
}

}  // namespace

TEST_CASE("The textbook example reproduces the published merge table", "[bpe][golden]") {
  BpeSegmenter bpe;
  Recorder recorder;
  bpe.train(textbook_counts(), textbook_options(), &recorder);

  const std::vector<std::vector<std::string>> expected = {
      {"e + s", "9", "98", "12"},
      {"es + t", "9", "89", "13"},
      {"est + " + kMarker, "9", "80", "14"},
      {"l + o", "7", "73", "15"},
      {"lo + w", "7", "66", "16"},
      {"n + e", "6", "60", "17"},
      {"ne + w", "6", "54", "18"},
      {"new + est" + kMarker, "6", "48", "19"},
  };
  REQUIRE(recorder.steps.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& step = recorder.steps[i];
    CAPTURE(i);
    CHECK(step.kind == "merge");
    CHECK(step.index == i + 1);
    REQUIRE(step.fields.size() == 4);
    CHECK(step.fields[0].first == "pair");
    CHECK(step.fields[1].first == "count");
    CHECK(step.fields[2].first == "tokens");
    CHECK(step.fields[3].first == "vocabulary");
    for (std::size_t f = 0; f < 4; ++f) CHECK(step.fields[f].second == expected[i][f]);
  }
  CHECK(bpe.vocabulary().size() == 19);
  CHECK(bpe.vocabulary().special_count() == 0);
  CHECK_FALSE(bpe.vocabulary().unknown_id().has_value());

  SECTION("the start has 107 tokens and 11 symbols") {
    CHECK(bpe.vocabulary().size() - bpe.merges().size() == 11);
    MergeTrainerInput input;
    input.offsets.push_back(0);
    const WordCounts corpus = textbook_counts();
    for (const auto& e : corpus.entries()) {
      for (const auto cp : utf8::split_code_points(e.word))
        input.symbols.push_back(*bpe.vocabulary().find(cp));
      input.offsets.push_back(static_cast<std::uint32_t>(input.symbols.size()));
      input.counts.push_back(e.count);
    }
    input.unit_lengths.assign(11, 1);
    const MergeTrainer trainer(std::move(input), {});
    CHECK(trainer.total_tokens() == 107);
  }
  SECTION("the unseen word lowest encodes as low + est</w>") {
    std::vector<TokenId> ids;
    bpe.encode("lowest" + kMarker, ids);
    CHECK(pieces_of(bpe, ids) == std::vector<std::string>{"low", "est" + kMarker});
    CHECK(bpe.decode(ids) == "lowest" + kMarker);
  }
  SECTION("the observer hears the size reached") {
    REQUIRE_FALSE(recorder.messages.empty());
    CHECK(recorder.messages.back().find("19") != std::string::npos);
  }
}

TEST_CASE("Without tracing the trainer reports no steps but learns the same merges", "[bpe]") {
  BpeSegmenter traced;
  BpeSegmenter silent;
  Recorder with_trace(true);
  Recorder without_trace(false);
  traced.train(textbook_counts(), textbook_options(), &with_trace);
  silent.train(textbook_counts(), textbook_options(), &without_trace);
  CHECK(without_trace.steps.empty());
  CHECK(traced.merges() == silent.merges());
  CHECK(saved(traced) == saved(silent));
}

TEST_CASE("The fast trainer agrees merge for merge with a naive recounting trainer",
          "[bpe][reference]") {
  const TieBreak tie = GENERATE(TieBreak::kFirstSeen, TieBreak::kSmallerIds);
  CAPTURE(static_cast<int>(tie));
  TrainOptions options;
  options.threads = 2;
  options.vocab_size = 100000;  // run until no pair is left

  SECTION("on the textbook corpus") {
    options.special_tokens = std::vector<std::string>{};
    check_agreement(textbook_counts(), options, 0, tie);
  }
  SECTION("on a small real text") {
    check_agreement(fixture_counts(), options, 0, tie);
  }
  SECTION("on a small real text with a length limit and min_frequency") {
    options.min_frequency = 2;
    check_agreement(fixture_counts(), options, 4, tie);
  }
  SECTION("on random corpora with many equal counts") {
    const std::uint64_t seed = GENERATE(range(1, 9));
    CAPTURE(seed);
    check_agreement(random_counts(seed, 60), options, 0, tie);
  }
  SECTION("on random corpora with long repetitive words, stopped at a vocabulary size") {
    const std::uint64_t seed = GENERATE(range(20, 24));
    CAPTURE(seed);
    options.vocab_size = 60;
    check_agreement(random_counts(seed, 40, 30), options, 0, tie);
  }
}

TEST_CASE("Replaying the learned merges gives the trainer's final segmentation", "[bpe]") {
  const std::string units = GENERATE(as<std::string>{}, "chars", "bytes");
  const std::string tie = GENERATE(as<std::string>{}, "first-seen", "hf");
  CAPTURE(units, tie);
  TrainOptions options;
  options.threads = 2;
  options.extra["units"] = units;
  options.extra["tie_break"] = tie;

  const auto check = [&](const WordCounts& counts) {
    BpeSegmenter bpe;
    std::vector<std::vector<TokenId>> final_segmentation;
    bpe.train(counts, options, nullptr, &final_segmentation);
    REQUIRE(final_segmentation.size() == counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const std::string& word = counts.entries()[i].word;
      CAPTURE(word);
      std::vector<TokenId> ids;
      bpe.encode(word, ids);
      CHECK(ids == final_segmentation[i]);
      CHECK(bpe.decode(ids) == word);
    }
  };
  SECTION("on a real text, stopped early") {
    options.vocab_size = units == "bytes" ? 256 + 60 : 60;
    check(fixture_counts());
  }
  SECTION("on a real text, run to the end") {
    options.vocab_size = 100000;
    check(fixture_counts());
  }
  SECTION("on random words") {
    options.vocab_size = units == "bytes" ? 256 + 80 : 80;
    check(random_counts(7, 300, 12));
  }
}

TEST_CASE("Training is byte-identical whatever the thread count", "[bpe][determinism]") {
  // Enough distinct words for several counting chunks, so the parallel reduction runs.
  const WordCounts counts = random_counts(42, 30000, 10);
  const std::string units = GENERATE(as<std::string>{}, "chars", "bytes");
  const std::string tie = GENERATE(as<std::string>{}, "first-seen", "hf");
  CAPTURE(units, tie);
  std::vector<std::string> models;
  for (const unsigned threads : {1u, 2u, 3u}) {
    TrainOptions options;
    options.vocab_size = units == "bytes" ? 600 : 400;
    options.threads = threads;
    options.extra["units"] = units;
    options.extra["tie_break"] = tie;
    BpeSegmenter bpe;
    bpe.train(counts, options, nullptr);
    CHECK(bpe.vocabulary().size() == options.vocab_size);
    models.push_back(saved(bpe));
  }
  CHECK(models[0] == models[1]);
  CHECK(models[0] == models[2]);
}

TEST_CASE("Training stops below min_frequency and says where", "[bpe]") {
  TrainOptions options = textbook_options();
  options.vocab_size = 1000;
  options.min_frequency = 7;
  options.extra["byte_fallback"] = "false";  // room for byte pieces, but this is the textbook
  BpeSegmenter bpe;
  Recorder recorder;
  bpe.train(textbook_counts(), options, &recorder);
  // e+s, es+t, est+</w> (9) and l+o, lo+w (7); n+e has only 6.
  CHECK(bpe.merges().size() == 5);
  CHECK(bpe.vocabulary().size() == 16);
  REQUIRE_FALSE(recorder.messages.empty());
  CHECK(recorder.messages.back().find("16") != std::string::npos);
  CHECK(recorder.messages.back().find("min_frequency") != std::string::npos);
}

TEST_CASE("min_frequency 0 and 1 both merge pairs seen once", "[bpe]") {
  WordCounts counts;
  counts.add("ab", 1);
  for (const std::uint64_t min : {0u, 1u}) {
    TrainOptions options;
    options.special_tokens = std::vector<std::string>{};
    options.min_frequency = min;
    options.vocab_size = 10;
    BpeSegmenter bpe;
    bpe.train(counts, options, nullptr);
    CHECK(bpe.merges().size() == 1);
  }
}

TEST_CASE("max_token_length bounds every learned piece", "[bpe]") {
  TrainOptions options;
  options.vocab_size = 100000;
  options.extra["max_token_length"] = "3";
  BpeSegmenter bpe;
  bpe.train(fixture_counts(), options, nullptr);
  REQUIRE_FALSE(bpe.merges().empty());
  for (const auto& rule : bpe.merges())
    CHECK(utf8::count_code_points(bpe.vocabulary().piece(rule.result)) <= 3);
}

TEST_CASE("A merge that would rebuild an existing piece is skipped", "[bpe]") {
  // "aaa" -> a+a first; then "aa a" and, in "baaa" after b+a, "ba aa": aa+a gives
  // "aaa"; a+aa would give "aaa" again and must not be learned twice.
  WordCounts counts;
  counts.add("aaa", 10);
  counts.add("aaaa", 10);
  counts.add("baaa", 10);
  TrainOptions options;
  options.special_tokens = std::vector<std::string>{};
  options.vocab_size = 100;
  BpeSegmenter bpe;
  std::vector<std::vector<TokenId>> final_segmentation;
  bpe.train(counts, options, nullptr, &final_segmentation);
  std::set<std::string> results;
  for (const auto& rule : bpe.merges())
    CHECK(results.insert(bpe.vocabulary().piece(rule.result)).second);
  CHECK(bpe.vocabulary().size() == 2 + bpe.merges().size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::vector<TokenId> ids;
    bpe.encode(counts.entries()[i].word, ids);
    CHECK(ids == final_segmentation[i]);
  }
}

TEST_CASE("The pair queue gives the highest count first, then the smaller tie key", "[bpe]") {
  PairQueue queue;
  // Counts 1 to 300 fall in bit-width buckets 1 to 9: the heap holds the highest
  // bucket only, the others wait unordered until it empties.
  for (const PairQueue::Entry e :
       {PairQueue::Entry{5, 1, 50}, {300, 9, 30}, {7, 4, 70}, {300, 2, 31}, {1, 0, 10}, {6, 8, 60}})
    queue.push(e);
  const auto next_key = [&] { return queue.pop().key; };
  CHECK(next_key() == 31);    // 300, tie 2
  CHECK(next_key() == 30);    // 300, tie 9
  CHECK(next_key() == 70);    // 7: bucket 3 becomes the heap
  queue.push({6, 3, 61});     // into the heap's bucket, ahead of (6, tie 8)
  queue.push({1000, 5, 99});  // above the heap's bucket: still comes out first
  queue.push({2, 0, 20});     // below it: waits
  CHECK(next_key() == 99);
  CHECK(next_key() == 61);
  CHECK(next_key() == 60);
  CHECK(next_key() == 50);
  CHECK(next_key() == 20);
  CHECK(next_key() == 10);
  CHECK(queue.empty());
}
