// Hostile numbers: word counts near 2^63 and 2^64-1 in training, and extreme
// sampling parameters. Training must neither overflow nor lose words, and
// sampling must never drop text.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/unigram/unigram_model.hpp"

using namespace tokenlab;
using namespace tokenlab::unigram;
using unigram_test::kMarker;

namespace {

const std::vector<std::string> kWords = {"hello", "world", "unbelievable", "help",
                                         "hold",  "word",  "believe",      "unable"};

// The words, the first with count `first` and the others with `rest`.
WordCounts scaled_counts(std::uint64_t first, std::uint64_t rest) {
  WordCounts counts;
  for (std::size_t i = 0; i < kWords.size(); ++i)
    counts.add(kMarker + kWords[i], i == 0 ? first : rest);
  return counts;
}

std::string saved(const Segmenter& s) {
  std::ostringstream out;
  s.save(out);
  return out.str();
}

// Trains, then checks that every training word encodes without the unknown
// token and decodes to itself.
void check_trains_cleanly(const WordCounts& counts, unsigned threads = 1) {
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = 40;
  options.threads = threads;
  options.character_coverage = 1.0;  // rare characters beside a 2^63 count stay known
  options.extra["byte_fallback"] = "false";
  s.train(counts, options, nullptr);
  REQUIRE(s.vocabulary().size() > 1);
  for (const auto& w : kWords) {
    INFO(w);
    std::vector<TokenId> ids;
    s.encode(kMarker + w, ids);
    REQUIRE_FALSE(ids.empty());
    for (const auto id : ids) CHECK(id != s.vocabulary().unknown_id());
    CHECK(s.decode(ids) == kMarker + w);
  }
}

}  // namespace

TEST_CASE("unigram training with counts near 2^63 and 2^64-1 keeps every word known",
          "[unigram][train][hostile]") {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  SECTION("counts of 1e13, where the fixed-point sums used to overflow int64") {
    check_trains_cleanly(scaled_counts(10'000'000'000'000ULL, 3'000'000'000'000ULL));
  }
  SECTION("one count of 2^63 and small ones") {
    check_trains_cleanly(scaled_counts(std::uint64_t{1} << 63, 5));
  }
  SECTION("9.2e18 for the first word, the rest sharing what is left below 2^64") {
    const std::uint64_t first = 9'200'000'000'000'000'000ULL;
    check_trains_cleanly(scaled_counts(first, (kMax - first) / kWords.size()));
  }
  SECTION("a total of exactly 2^64-1") {
    const std::uint64_t rest = 1'000'000'000'000'000'000ULL;
    check_trains_cleanly(scaled_counts(kMax - rest * (kWords.size() - 1), rest));
  }
  SECTION("huge counts train the same model at 1 and 2 threads") {
    const WordCounts counts = scaled_counts(std::uint64_t{1} << 63, std::uint64_t{1} << 59);
    UnigramSegmenter one, two;
    TrainOptions options;
    options.vocab_size = 40;
    options.threads = 1;
    one.train(counts, options, nullptr);
    options.threads = 2;
    two.train(counts, options, nullptr);
    CHECK(saved(one) == saved(two));
  }
}

TEST_CASE("unigram sampling keeps all the text for any alpha, and rejects bad ones",
          "[unigram][sampling][hostile]") {
  UnigramSegmenter s;
  TrainOptions options;
  options.vocab_size = 60;
  options.threads = 1;
  s.train(unigram_test::fixture_counts(), options, nullptr);
  const std::vector<std::string> words = {kMarker + "hello", kMarker + "world",
                                          kMarker + "unbelievable", kMarker + "x▁y",
                                          kMarker + "zzzzqqqq"};
  SamplingOptions sampling;
  std::uint64_t rng = 11;
  for (const double alpha :
       {0.0, 1e-300, 0.1, 1.0, 1000.0, 1e100, 1e300, 1e307, std::numeric_limits<double>::max()}) {
    sampling.alpha = alpha;
    for (const auto& word : words) {
      INFO("alpha " << alpha << ", word " << word);
      // What plain encoding keeps (unknown characters decode to the unknown mark).
      std::vector<TokenId> best;
      s.encode(word, best);
      const std::string expected = s.decode(best);
      for (int i = 0; i < 20; ++i) {
        std::vector<TokenId> ids;
        s.encode_sampled(word, sampling, rng, ids);
        CHECK(s.decode(ids) == expected);
      }
    }
  }
  SECTION("a huge alpha is the Viterbi segmentation") {
    sampling.alpha = 1e307;
    for (const auto& word : words) {
      std::vector<TokenId> best, drawn;
      s.encode(word, best);
      s.encode_sampled(word, sampling, rng, drawn);
      CHECK(drawn == best);
    }
  }
  SECTION("NaN, infinite and negative alphas are errors, never silent") {
    for (const double alpha : {std::nan(""), std::numeric_limits<double>::infinity(), -0.5, -1.0}) {
      INFO("alpha " << alpha);
      sampling.alpha = alpha;
      std::vector<TokenId> ids;
      CHECK_THROWS_AS(s.encode_sampled(words[0], sampling, rng, ids), Error);
    }
  }
}
