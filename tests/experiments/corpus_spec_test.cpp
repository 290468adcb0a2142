// How compare and sweep read the corpora a user names (resolve_corpora).
#include <catch2/catch.hpp>

#include <fstream>

#include "../common/temp_files.hpp"
#include "tokenlab/corpus_spec.hpp"
#include "tokenlab/error.hpp"

using tokenlab::CompareOptions;
using tokenlab::CorpusSpec;
using tokenlab::Error;
using tokenlab::resolve_corpora;

namespace {

void touch(const std::filesystem::path& path) {
  std::ofstream(path) << "In the beginning\n";
}

// The entries as the command line writes them ("LANG=FILE" or "FILE").
std::vector<tokenlab::CorpusEntry> entries(std::initializer_list<std::string> texts) {
  std::vector<tokenlab::CorpusEntry> out;
  for (const auto& text : texts) out.push_back(tokenlab::parse_corpus_entry(text));
  return out;
}

std::string error_of(const CorpusSpec& spec) {
  CompareOptions options;
  try {
    resolve_corpora(spec, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("corpora: LANG=FILE is a label only when LANG holds no '/'", "[corpus_spec]") {
  CHECK(tokenlab::parse_corpus_entry("hi=hi.txt") == tokenlab::CorpusEntry{"hi", "hi.txt"});
  CHECK(tokenlab::parse_corpus_entry("dir/x=y.txt") == tokenlab::CorpusEntry{"", "dir/x=y.txt"});
  CHECK(tokenlab::parse_corpus_entry("=y.txt") == tokenlab::CorpusEntry{"", "=y.txt"});
  CHECK(tokenlab::parse_corpus_entry("a.txt") == tokenlab::CorpusEntry{"", "a.txt"});
}

TEST_CASE("corpora: unlabelled files make one corpus", "[corpus_spec]") {
  CompareOptions options;
  resolve_corpora({.corpus = entries({"a.txt", "b.txt"})}, options);
  CHECK(options.corpus_files == std::vector<std::string>{"a.txt", "b.txt"});
  CHECK(options.languages.empty());
  CHECK_FALSE(options.aligned);
}

TEST_CASE("corpora: LANG=FILE entries group by language in first-seen order", "[corpus_spec]") {
  // "dir/x=y.txt" is a path with '=' in it, not a label: mixing is refused.
  CHECK(error_of({.corpus = entries({"hi=hi1.txt", "dir/x=y.txt"})}) ==
        "label every corpus with LANG=FILE, or none");
  CompareOptions two;
  resolve_corpora({.corpus = entries({"hi=hi1.txt", "en=en.txt", "hi=hi2.txt"})}, two);
  REQUIRE(two.languages.size() == 2);
  CHECK(two.languages[0].language == "hi");
  CHECK(two.languages[0].files == std::vector<std::string>{"hi1.txt", "hi2.txt"});
  CHECK(two.languages[1].language == "en");
  CHECK(two.corpus_files.empty());
}

TEST_CASE("corpora: one labelled language is an unlabelled corpus", "[corpus_spec]") {
  CompareOptions options;
  resolve_corpora({.corpus = entries({"en=a.txt", "en=b.txt"})}, options);
  CHECK(options.languages.empty());
  CHECK(options.corpus_files == std::vector<std::string>{"a.txt", "b.txt"});
}

TEST_CASE("corpora: a parallel directory gives its LANG.txt files, sorted, aligned",
          "[corpus_spec]") {
  tokenlab::test::TempDir dir;
  for (const char* name : {"hi.txt", "de.txt", "en.txt", "README.md"}) touch(dir / name);
  SECTION("every language") {
    CompareOptions options;
    resolve_corpora({.parallel_dir = dir.path().string()}, options);
    REQUIRE(options.languages.size() == 3);
    CHECK(options.languages[0].language == "de");
    CHECK(options.languages[2].language == "hi");
    CHECK(options.languages[1].files == std::vector<std::string>{(dir / "en.txt").string()});
    CHECK(options.aligned);
  }
  SECTION("the languages asked for") {
    CompareOptions options;
    resolve_corpora({.parallel_dir = dir.path().string(), .languages = {"hi", "en"}}, options);
    REQUIRE(options.languages.size() == 2);
    CHECK(options.languages[0].language == "en");
    CHECK(options.languages[1].language == "hi");
  }
  SECTION("errors name the directory and what is missing") {
    const std::string d = dir.path().string();
    CHECK(error_of({.parallel_dir = d, .languages = {"en", "fr"}}) == d + ": no file fr.txt");
    CHECK(error_of({.parallel_dir = d, .languages = {"en"}}) ==
          d + ": needs at least two LANG.txt files");
    CHECK(error_of({.parallel_dir = d + "/nowhere"}) == d + "/nowhere: not a directory");
    CHECK(error_of({.corpus = entries({"a.txt"}), .parallel_dir = d}) ==
          "give a corpus or a parallel directory, not both");
  }
}

TEST_CASE("corpora: the default corpus is used only when nothing is named", "[corpus_spec]") {
  CompareOptions options;
  options.corpus_files = {"mine.txt"};
  CHECK_FALSE(tokenlab::use_default_corpus(options).has_value());
  CHECK(options.corpus_files == std::vector<std::string>{"mine.txt"});
}
