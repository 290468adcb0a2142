// The WordPiece plugin through the built tokenlab executable: trace, import, export.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "tokenlab-wordpiece-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) FAIL("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] std::string operator/(const std::string& name) const {
    return (path_ / name).string();
  }

 private:
  fs::path path_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

std::string quoted(const std::string& arg) {
  std::string q = "'";
  for (const char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Run {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the CLI with the given arguments; stdout and stderr go through files in dir.
Run run_cli(const ScratchDir& dir, const std::vector<std::string>& args) {
  std::string command = quoted(TOKENLAB_CLI_PATH);
  for (const auto& a : args) command += " " + quoted(a);
  command += " >" + quoted(dir / "stdout") + " 2>" + quoted(dir / "stderr");
  const int status = std::system(command.c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir / "stdout");
  r.err = read_file(dir / "stderr");
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("tokenlab trace wordpiece --merges N stops after N merges", "[wordpiece][cli]") {
  ScratchDir dir;
  const Run r =
      run_cli(dir, {"trace", "wordpiece", "--words", "low:5 lower:2 newest:6 widest:3 wider:2",
                    "--marker", "suffix", "--merges", "8", "--encode", "lowest"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  // Table rows are the lines that start with a step number; every one is a merge.
  std::vector<std::string> rows;
  for (const auto& line : lines_of(r.out)) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] >= '1' && line[first] <= '9' &&
        line.find(" + ") != std::string::npos)
      rows.push_back(line);
  }
  CHECK(rows.size() == 8);
  REQUIRE(!rows.empty());
  CHECK_THAT(rows.front(), Catch::Contains("w + ##i"));
  // The marker is shown as </w> and is glued to its neighbour from the start.
  CHECK_THAT(r.out, Catch::Contains("</w>"));
  CHECK_THAT(r.out, Catch::Contains("max_steps"));
  CHECK_THAT(r.out, Catch::Contains("lowest ->"));
}

TEST_CASE("tokenlab import and export round-trip a BERT vocab.txt", "[wordpiece][cli][vocab_txt]") {
  ScratchDir dir;
  // BERT's own WordpieceTokenizer test vocabulary, behind bert-base's special tokens.
  const std::string vocab =
      "[PAD]\n[unused0]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nwant\n##want\n##ed\nwa\nun\nrunn\n##ing\n"
      "##aff\n##able\n,\n";
  write_file(dir / "vocab.txt", vocab);
  write_file(dir / "input.txt", "unaffable\nUnwanted, running\n");

  SECTION("cased") {
    const Run imported = run_cli(
        dir, {"import", "--format", "vocab.txt", dir / "vocab.txt", "-o", dir / "model.tlm"});
    CAPTURE(imported.err);
    REQUIRE(imported.exit_code == 0);
    const Run encoded =
        run_cli(dir, {"encode", "-m", dir / "model.tlm", "--pieces", "--input", dir / "input.txt"});
    CAPTURE(encoded.err);
    REQUIRE(encoded.exit_code == 0);
    // A cased vocabulary has no "Un": the whole word is unknown.
    CHECK(lines_of(encoded.out) ==
          std::vector<std::string>{"un ##aff ##able", "[UNK] , runn ##ing"});

    const Run exported = run_cli(
        dir, {"export", "--format", "vocab.txt", "-m", dir / "model.tlm", "-o", dir / "out.txt"});
    CAPTURE(exported.err);
    REQUIRE(exported.exit_code == 0);
    CHECK(read_file(dir / "out.txt") == vocab);
  }
  SECTION("uncased lowercases the text first") {
    const Run imported = run_cli(dir, {"import", "--format", "vocab.txt", dir / "vocab.txt", "-o",
                                       dir / "model.tlm", "--uncased"});
    CAPTURE(imported.err);
    REQUIRE(imported.exit_code == 0);
    const Run encoded =
        run_cli(dir, {"encode", "-m", dir / "model.tlm", "--pieces", "--input", dir / "input.txt"});
    CAPTURE(encoded.err);
    REQUIRE(encoded.exit_code == 0);
    CHECK(lines_of(encoded.out) ==
          std::vector<std::string>{"un ##aff ##able", "un ##want ##ed , runn ##ing"});
  }
  SECTION("an unknown format is refused with the supported ones named") {
    const Run imported = run_cli(
        dir, {"import", "--format", "merges.txt", dir / "vocab.txt", "-o", dir / "model.tlm"});
    CHECK(imported.exit_code != 0);
    CHECK_THAT(imported.err, Catch::Contains("merges.txt"));
    CHECK_THAT(imported.err, Catch::Contains("tokenizer.json"));
    CHECK_THAT(imported.err, Catch::Contains("vocab.txt"));
    CHECK_FALSE(fs::exists(dir / "model.tlm"));
  }
  SECTION("a vocab.txt read as tokenizer.json is an error naming the file and the place") {
    const Run imported = run_cli(
        dir, {"import", "--format", "tokenizer.json", dir / "vocab.txt", "-o", dir / "model.tlm"});
    CHECK(imported.exit_code == 1);
    CHECK_THAT(imported.err, Catch::Contains(dir / "vocab.txt") && Catch::Contains("line 1") &&
                                 Catch::Contains("malformed JSON"));
    CHECK_FALSE(fs::exists(dir / "model.tlm"));
  }
  SECTION("without --format a vocab.txt is not mistaken for another format") {
    const Run imported = run_cli(dir, {"import", dir / "vocab.txt", "-o", dir / "model.tlm"});
    CHECK(imported.exit_code == 1);
    CHECK_THAT(imported.err, Catch::Contains("--format") && Catch::Contains("vocab.txt"));
    CHECK_FALSE(fs::exists(dir / "model.tlm"));
  }
}
