// Hostile input, second round (issue 27), through the command line: a stream
// without line breaks, regexes that never finish, numbers that wrap, counts
// files that lie, and exports that must not leave a wrong file behind. Every
// case is a clear error (file, line, what) with exit code 1, or correct output.
#include <catch2/catch.hpp>

#include <algorithm>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"

using namespace tokenlab::test;
using Catch::Matchers::Contains;

namespace {

const std::string kEnglish = data_file("corpus/english.txt");

std::string train(const TempDir& dir, const std::string& algorithm,
                  const std::string& pre_tokenizer = "unicode") {
  const std::string model = dir / (algorithm + ".tkl");
  const RunResult r = run_tokenlab({"train", "-a", algorithm, "-v", "300", "--corpus", kEnglish,
                                    "--pre-tokenizer", pre_tokenizer, "-o", model});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return model;
}

const std::string kCatastrophic =
    R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"[UNK]"},)"
    R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"(a+)+$"},"behavior":"Isolated",)"
    R"("invert":false}})";

}  // namespace

TEST_CASE("a stream without line breaks is refused at 64 MiB by every line reader",
          "[cli][hostile][lines]") {
  // /dev/zero grew to 4.2 GB, then bad_alloc; diff-vocab took the bad_alloc for
  // the end of its text and exited 0 with "none".
  TempDir dir;
  const std::string counts = dir / "counts.tsv";
  const std::string zero = "/dev/zero";
  check_failure(run_tokenlab({"count", "--corpus", zero, "-o", counts}),
                {"/dev/zero:1:", "a line longer than 67108864 bytes"});
  check_failure(run_tokenlab({"count", "--corpus", zero, "--max-memory", "1M", "-o", counts}),
                {"/dev/zero:1:", "longer than"});
  CHECK_FALSE(std::filesystem::exists(counts));
  check_failure(
      run_tokenlab({"train", "-a", "bpe", "-v", "300", "--corpus", zero, "-o", dir / "m.tkl"}),
      {"/dev/zero:1:", "longer than"});
  const std::string model = train(dir, "bpe");
  check_failure(run_tokenlab({"encode", "-m", model, "-i", zero}), {"/dev/zero:1:", "longer than"});
  check_failure(run_tokenlab({"compare", "--corpus", zero, "-v", "300"}),
                {"/dev/zero:1:", "longer than"});
  check_failure(run_tokenlab({"sweep", "--corpus", zero, "--vocab-sizes", "300"}),
                {"/dev/zero:1:", "longer than"});
  const RunResult diff = run_tokenlab({"diff-vocab", "--a", model, "--b", model, "--text", zero});
  CHECK(diff.exit_code == 1);
  CHECK_THAT(diff.err, Contains("/dev/zero:1:") && Contains("longer than"));
  // A long line that is not too long is read whole.
  const std::string long_line = dir / "long.txt";
  write_bytes(long_line, std::string(3 << 20, 'a') + "\nb\n");
  const RunResult encoded = run_tokenlab({"encode", "-m", model, "-i", long_line});
  INFO(encoded.err);
  CHECK(encoded.exit_code == 0);
  CHECK(encoded.out_lines().size() == 2);
}

TEST_CASE("deeply nested JSON is refused by every command that reads tokenizer files",
          "[cli][hostile][json]") {
  // 200,000 '[' after {"model": gave SIGSEGV in inspect, encode -m, import and lab.
  TempDir dir;
  const std::string deep = dir / "deep.json";
  write_bytes(deep, R"({"model":)" + std::string(200000, '['));
  const std::string nests = "JSON nests deeper than 128 levels";
  check_failure(run_tokenlab({"inspect", deep}), {"deep.json", nests});
  check_failure(run_tokenlab({"encode", "-m", deep}, "text\n"), {"deep.json", nests});
  check_failure(run_tokenlab({"import", deep, "-o", dir / "deep.tkl"}), {"deep.json", nests});
  CHECK_FALSE(std::filesystem::exists(dir / "deep.tkl"));
  check_failure(run_tokenlab({"lab", "--port", "0", "--no-pretrained", "--sweep-sizes", "",
                              "--tokenizer", "deep=" + deep}),
                {"deep.json", nests});
  const std::string encoder = dir / "enc.json";
  write_bytes(encoder, R"({"pat_str":)" + std::string(200000, '{'));
  check_failure(run_tokenlab({"inspect", "--format", "tiktoken", encoder}), {"enc.json", nests});
}

TEST_CASE("a regex over its time limit fails naming the file and line", "[cli][hostile][regex]") {
  TempDir dir;
  const std::string tokenizer = dir / "tokenizer.json";
  write_bytes(tokenizer, kCatastrophic);
  const std::string text = dir / "text.txt";
  write_bytes(text, "aaa\nbbb\n" + std::string(30, 'a') + "!\n");
  const RunResult r = run_tokenlab({"encode", "-m", tokenizer, "-i", text});
  check_failure(r, {"text.txt:3:", "regular expression /(a+)+$/", "took longer than"});
  CHECK(r.out.empty());
}

TEST_CASE("encode names the input's first bad line, whatever the batch and the thread count",
          "[cli][hostile][lines]") {
  // Lines are checked on the encoding threads, in chunks of a batch of 8,192:
  // a later bad line in a chunk that finishes first must not be the one named.
  TempDir dir;
  const std::string tokenizer = dir / "tokenizer.json";
  write_bytes(tokenizer,
              R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"[UNK]"},)"
              R"("pre_tokenizer":{"type":"Whitespace"}})");
  std::string text;
  for (int line = 1; line <= 20'000; ++line)
    text += line == 8'300 ? "a a\xC3(a\n" : line == 9'000 || line == 19'999 ? "\xFF\n" : "a a\n";
  const std::string input = dir / "text.txt";
  write_bytes(input, text);
  for (const std::string threads : {"1", "2", "4"}) {
    INFO("threads " << threads);
    const std::string out = dir / ("ids" + threads);
    check_failure(
        run_tokenlab({"encode", "-m", tokenizer, "-i", input, "--threads", threads, "-o", out}),
        {input + ":8300: invalid UTF-8 at byte offset 3"});
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // Without it, the next one; and a good text gives the same ids on any thread count.
  text.replace(text.find("a a\xC3(a\n"), 7, "a a a\n");
  write_bytes(input, text);
  check_failure(run_tokenlab({"encode", "-m", tokenizer, "-i", input, "--threads", "2"}),
                {input + ":9000: invalid UTF-8 at byte offset 0"});
  std::string good;
  for (int line = 1; line <= 20'000; ++line) good += std::string(line % 97, 'a') + " b\r\n";
  write_bytes(input, good + "a");
  const RunResult one = run_tokenlab({"encode", "-m", tokenizer, "-i", input, "--threads", "1"});
  const RunResult two = run_tokenlab({"encode", "-m", tokenizer, "-i", input, "--threads", "2"});
  REQUIRE(one.exit_code == 0);
  CHECK(std::count(one.out.begin(), one.out.end(), '\n') == 20'001);
  CHECK(two.out == one.out);
}

TEST_CASE("min_frequency of 2^63 and more does not wrap", "[cli][hostile][numbers]") {
  // WordPiece cast it to int64: negative, then 3.9 GB and bad_alloc.
  TempDir dir;
  for (const std::string value : {"9223372036854775808", "18446744073709551615"}) {
    INFO(value);
    const RunResult r = run_tokenlab({"train", "-a", "wordpiece", "-v", "300", "--corpus", kEnglish,
                                      "--min-frequency", value, "-o", dir / "wp.tkl"});
    INFO(r.err);
    // No pair reaches the threshold: the alphabet alone, and the user is told.
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Contains("no pair left with count >="));
  }
}

TEST_CASE("count --merge names what is wrong with a counts file, briefly",
          "[cli][hostile][counts]") {
  TempDir dir;
  const std::string out = dir / "merged.tsv";
  const auto merge = [&](const std::string& content) {
    const std::string file = dir / "in.tsv";
    write_bytes(file, content);
    return run_tokenlab({"count", "--merge", file, "-o", out});
  };
  check_failure(merge("the\t5\r\nof\t3\r\n"), {"in.tsv:1:", "carriage return"});
  const RunResult huge = merge("the\t" + std::string(10 << 20, '7') + "\n");
  check_failure(huge, {"in.tsv:1:", "is not a positive integer"});
  CHECK(huge.err.size() < 300);
  check_failure(merge(std::string("th\0e\t5\n", 7)), {"in.tsv:1:", "NUL byte"});
  check_failure(merge("#tokenlab-counts normalizer=bogus pre-tokenizer=unicode\nthe\t5\n"),
                {"in.tsv", "counts settings", "not valid"});
  check_failure(merge("#tokenlab-counts escaped bogus\nthe\t5\n"), {"in.tsv", "not valid"});
  // With --max-memory the merge streams: the same checks.
  const std::string file = dir / "bogus.tsv";
  write_bytes(file, "#tokenlab-counts normalizer=bogus pre-tokenizer=unicode\nthe\t5\n");
  check_failure(run_tokenlab({"count", "--merge", file, "--max-memory", "1M", "-o", out}),
                {"bogus.tsv", "not valid"});
  CHECK_FALSE(std::filesystem::exists(out));
  // What count writes, merge takes.
  const std::string good = dir / "good.tsv";
  REQUIRE(run_tokenlab({"count", "--corpus", kEnglish, "-o", good}).exit_code == 0);
  CHECK(run_tokenlab({"count", "--merge", good, good, "-o", out}).exit_code == 0);
}

TEST_CASE("export writes nothing it has not verified, and never to an empty path",
          "[cli][hostile][export]") {
  TempDir dir;
  const std::string model = train(dir, "bpe", "whitespace");  // exportable as tokenizer.json
  const std::string out = dir / "tokenizer.json";
  // --verify that fails (here: its text cannot be read) used to leave the file.
  check_failure(run_tokenlab({"export", "--format", "tokenizer.json", "-m", model, "-o", out,
                              "--verify", dir / "missing.txt"}),
                {"missing.txt"});
  CHECK_FALSE(std::filesystem::exists(out));
  const RunResult verified = run_tokenlab(
      {"export", "--format", "tokenizer.json", "-m", model, "-o", out, "--verify", kEnglish});
  INFO(verified.err);
  CHECK(verified.exit_code == 0);
  CHECK(std::filesystem::exists(out));
  // -o '' silently wrote to standard output.
  const RunResult empty =
      run_tokenlab({"export", "--format", "tokenizer.json", "-m", model, "-o", ""});
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Contains("--output is empty"));
  CHECK(empty.out.empty());
  CHECK(run_tokenlab({"encode", "-m", model, "-o", ""}, "x\n").exit_code == 2);
}

TEST_CASE("an imported real tokenizer exports as the file it was", "[cli][hostile][export]") {
  TempDir dir;
  const std::string original = dir / "tokenizer.json";
  write_bytes(original,
              R"({"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"[UNK]"},)"
              R"("pre_tokenizer":{"type":"Whitespace"}})");
  const std::string imported = dir / "imported.tkl";
  const RunResult import = run_tokenlab({"import", original, "-o", imported});
  INFO(import.err);
  REQUIRE(import.exit_code == 0);
  // It said it needed the plugin 'pretrained:tokenizer.json', which does not exist.
  const std::string back = dir / "back.json";
  const RunResult exported =
      run_tokenlab({"export", "--format", "tokenizer.json", "-m", imported, "-o", back});
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK(read_bytes(back) == read_bytes(original));
  check_failure(
      run_tokenlab({"export", "--format", "sentencepiece", "-m", imported, "-o", dir / "x.model"}),
      {"real model's tokenizer", "--format tokenizer.json"});
  CHECK_FALSE(std::filesystem::exists(dir / "x.model"));
}

TEST_CASE("sweep names the reason of every failed row", "[cli][hostile][sweep]") {
  // --vocab-sizes 1 exited 1 with every row '-' and no reason.
  const RunResult r = run_tokenlab(
      {"sweep", "--corpus", kEnglish, "--vocab-sizes", "1", "--algorithms", "bpe,wordpiece"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("error: bpe at vocabulary size 1: ") &&
                        Contains("error: wordpiece at vocabulary size 1: "));
}

TEST_CASE("nbest -k is bounded as SentencePiece bounds it", "[cli][hostile][nbest]") {
  TempDir dir;
  const std::string model = train(dir, "unigram");
  // k = 100,000 on 'the' x 1000 reached 5 GB.
  const RunResult big = run_tokenlab({"nbest", "-m", model, "-k", "100000", "the"});
  CHECK(big.exit_code == 2);
  CHECK_THAT(big.err, Contains("1024"));
  std::string long_word;
  for (int i = 0; i < 1000; ++i) long_word += "the";
  const RunResult bounded = run_tokenlab({"nbest", "-m", model, "-k", "1024", "--ids", long_word});
  INFO(bounded.err.substr(0, 500));
  CHECK((bounded.exit_code == 0 || bounded.err.find("search states") != std::string::npos));
  if (bounded.exit_code == 0) CHECK(bounded.out_lines().size() <= 1024);
}

TEST_CASE("lab on a port in use is a clear error, not an abort", "[cli][hostile][lab]") {
  // The sweep thread started before the bind, and unwinding past it called
  // std::terminate.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::listen(listener, 1) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const std::string port = std::to_string(ntohs(address.sin_port));
  TempDir dir;
  const std::string model = train(dir, "character");
  const RunResult r =
      run_tokenlab({"lab", "--port", port, "--no-pretrained", "-m", model, "--corpus", kEnglish});
  ::close(listener);
  check_failure(r, {"cannot listen on 127.0.0.1:" + port});
}
